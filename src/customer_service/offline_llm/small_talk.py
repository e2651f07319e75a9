"""What the supervisor says to a line that asks for no work of a specialist: a greeting
alone, or a request of the agent itself that no specialist serves ("tell me a joke")."""

from __future__ import annotations

import re

from customer_service.call.answers import Phrases, normalise
from customer_service.call.wording import HOW_CAN_I_HELP

__all__ = ["GREETED_BACK", "NOT_SOMETHING_I_DO", "asks_something_of_us", "greets_only"]

NOT_SOMETHING_I_DO = (
    "I'm afraid that's not something I can do, but I'm happy to help with your orders. "
    "What would you like to do?"
)
"""The answer to a request of the agent that no specialist serves ("tell me a joke")."""
GREETED_BACK = f"Hi there. {HOW_CAN_I_HELP}"
"""The answer to a greeting alone ("hi"): a greeting and one question, not the menu."""

_GREETINGS = Phrases(
    ["hello", "hi", "hey", "hiya", "good morning", "good afternoon", "good evening"]
)
# "Tell me a joke", "can you sing": a request of the agent itself, for something
# ("unsubscribe me from ..." asks for a service, which the menu answers). The verbs that
# only ask the agent to wait, repeat or help are no such request ("can you help me").
_REQUEST_OF_US = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?P<asked>\w+)"
    r"|(?P<verb>\w+)\s+(?:me|us)\s+(?:a|an|some|another|one)\b)",
    re.IGNORECASE,
)
_NO_REQUEST = frozenset(
    {"help", "hear", "excuse", "let", "give", "bear", "hold", "repeat", "say", "pardon", "forgive"}
)


def greets_only(line: str) -> bool:
    """Whether a line is a greeting and nothing else ("hi", "hello there")."""
    said = normalise(line)
    if not _GREETINGS.found_in(said):
        return False
    rest = re.sub(r"\bthere\b", " ", _GREETINGS.removed_from(said))
    return re.search(r"\w", rest) is None


def asks_something_of_us(line: str) -> bool:
    """Whether a line asks the agent to do something ("tell me a joke", "can you sing?")."""
    found = _REQUEST_OF_US.match(normalise(line))
    if found is None:
        return False
    verb = (found.group("asked") or found.group("verb") or "").lower()
    return verb not in _NO_REQUEST
