"""Phrases the offline model listens for beyond yes and no."""

from __future__ import annotations

from customer_service.call.answers import Phrases

__all__ = ["PERSON", "REFUSALS"]

PERSON = Phrases(
    [
        "human",
        "person",
        "agent",
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
