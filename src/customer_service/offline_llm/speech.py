"""Phrases the offline model listens for beyond yes and no."""

from __future__ import annotations

import re

from customer_service.call.answers import Phrases

__all__ = ["CORRECTION", "PERSON", "REFUSALS"]

CORRECTION = re.compile(
    r"\b(?:no,?\s+wait|wait|sorry|i mean|i meant|actually|correction|scratch that|"
    r"let me correct(?: that)?|make that)\b",
    re.IGNORECASE,
)
"""Said before the right value inside one line: what follows replaces what came before
("94110, no wait, 94105")."""

PERSON = Phrases(
    [
        "human",
        "person",
        # "the last agent checked me" asks for nobody: only an agent asked for does.
        "an agent",
        "live agent",
        "real agent",
        "to the agent",
        "with the agent",
        "representative",
        "operator",
        "someone real",
        "somebody real",
        "manager",
        "supervisor",
        "talk to someone",
        "talk to somebody",
        "speak to someone",
        "speak to somebody",
        "speak with someone",
        "talk with someone",
        "put me through",
        "transfer me",
    ],
    plurals=True,
)
"""A caller asking for a person; every agent can hand the call over."""

REFUSALS = Phrases(
    [
        "i don't know",
        "i do not know",
        "i don't have",
        "i do not have",
        "never mind",
        "nevermind",
        "forget it",
        "cancel",
        "stop",
        "give up",
    ]
)
