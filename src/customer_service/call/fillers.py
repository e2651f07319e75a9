"""Which filler a call says next: chosen by what the caller just did, never the same twice.

A filler holds the line while the answer is still to come (`call.latency.FirstWords`).
Heard as a person says them, fillers vary: a thanks after details, an "okay" after a
yes, a "sure" after a question. `FillerChoice` keeps, for one call, the last filler
said and those said once already, so the same filler never opens two turns in a row and
"All right." (`wording.ONCE_A_CALL`) is heard at most once. The sentences are written in
`call.wording`.
"""

from __future__ import annotations

import enum
import re

from customer_service.call.answers import polarity
from customer_service.call.wording import (
    FILLERS_AFTER_DETAILS,
    FILLERS_AFTER_QUESTION,
    FILLERS_AFTER_YES,
    FILLERS_OTHERWISE,
    ONCE_A_CALL,
)

__all__ = ["CallerMove", "FillerChoice", "caller_move"]


class CallerMove(enum.Enum):
    """What the caller's last words did, as far as a filler is concerned."""

    GAVE_DETAILS = "gave details"
    SAID_YES = "said yes"
    SAID_NO = "said no"
    ASKED = "asked a question"
    OTHER = "something else"


_FILLERS = {
    CallerMove.GAVE_DETAILS: FILLERS_AFTER_DETAILS,
    CallerMove.SAID_YES: FILLERS_AFTER_YES,
    CallerMove.SAID_NO: (),
    CallerMove.ASKED: FILLERS_AFTER_QUESTION,
    CallerMove.OTHER: FILLERS_OTHERWISE,
}

_DETAIL = re.compile(r"\d|@|\bat\b.*\bdot\b", re.IGNORECASE)
"""A number (an order, a postal code, a phone number, a street) or an email address."""
_QUESTION_WORDS = frozenset(
    [
        "what",
        "where",
        "when",
        "why",
        "how",
        "which",
        "who",
        "whose",
        "can",
        "could",
        "would",
        "will",
        "is",
        "are",
        "does",
        "do",
        "did",
    ]
)


def caller_move(words: str) -> CallerMove:
    """What the caller did with `words`, their last turn."""
    text = words.strip()
    if not text:
        return CallerMove.OTHER
    if _DETAIL.search(text):
        return CallerMove.GAVE_DETAILS
    first = text.split()[0].strip(",.!?").lower()
    if text.endswith("?") or first in _QUESTION_WORDS:
        return CallerMove.ASKED
    answer = polarity(text)
    if answer is not None:
        return CallerMove.SAID_YES if answer else CallerMove.SAID_NO
    return CallerMove.OTHER


class FillerChoice:
    """Per call: the fillers said so far, and the next one to say."""

    def __init__(self) -> None:
        self.last: str | None = None
        self._said_once: set[str] = set()

    def next(self, caller_words: str) -> str | None:
        """The filler for a turn whose caller said `caller_words`, counted as said: the
        first of its kind's set that is not the last one said nor a once-a-call filler
        already heard. None after a no: what answers it (nothing was done, or what
        else) opens with its own acknowledgement, and a filler would say it twice."""
        kind = _FILLERS[caller_move(caller_words)]
        usable = [
            filler for filler in kind if filler != self.last and filler not in self._said_once
        ]
        if not usable:
            return None
        chosen = usable[0]
        self.last = chosen
        if chosen in ONCE_A_CALL:
            self._said_once.add(chosen)
        return chosen
