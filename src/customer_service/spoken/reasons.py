"""Why a caller wants an order cancelled or items returned, as the category their words
pick ("I don't need it anymore", "they don't fit"). The caller's words pick a category;
they are never passed on themselves.

The offline model records the category it reads here; the code reads it to tell whether
the caller's request already gave a reason (`call.callers_request`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from customer_service.call.answers import Phrases, normalise
from customer_service.domain import CancelReason
from customer_service.store.returns import ReturnReason

__all__ = ["CANCEL_REASONS", "RETURN_REASONS", "cancel_reason_in", "return_reason_in"]

ReasonT = TypeVar("ReasonT")

CANCEL_REASONS: Mapping[CancelReason, Phrases] = {
    CancelReason.ORDERED_BY_MISTAKE: Phrases(
        ["mistake", "by accident", "accidentally", "didn't mean", "did not mean", "ordered twice"]
    ),
    CancelReason.NO_LONGER_NEEDED: Phrases(
        [
            "don't need",
            "do not need",
            "no longer need",
            "no longer needed",
            "not needed",
            "changed my mind",
            "don't want",
            "no longer want",
            "found it cheaper",
        ]
    ),
}
"""The words for each reason an order is cancelled for, a mistake before the others."""

RETURN_REASONS: Mapping[ReturnReason, Phrases] = {
    ReturnReason.DAMAGED: Phrases(["damaged", "broken", "cracked", "torn"]),
    ReturnReason.DEFECTIVE: Phrases(
        [
            "defective",
            "faulty",
            "stopped working",
            "doesn't work",
            "does not work",
            "not working",
            "won't turn on",
            "will not turn on",
            "quit working",
            "broke down",
        ]
    ),
    ReturnReason.WRONG_ITEM: Phrases(
        ["wrong", "not what i ordered", "didn't order", "did not order"]
    ),
    ReturnReason.NOT_AS_DESCRIBED: Phrases(
        [
            "not as described",
            "doesn't match",
            "does not match",
            "different from",
            "smaller",
            "don't fit",
            "doesn't fit",
            "do not fit",
            "does not fit",
            "too small",
            "too big",
            "too large",
            "too tight",
            "too loose",
        ]
    ),
    ReturnReason.NO_LONGER_NEEDED: Phrases(
        ["don't need", "do not need", "no longer need", "changed my mind", "don't want"]
    ),
}
"""The words for each return category but `OTHER`, which is what none of them fits."""


def _first_in(reasons: Mapping[ReasonT, Phrases], said: str) -> ReasonT | None:
    words = normalise(said)
    return next((reason for reason, phrases in reasons.items() if phrases.found_in(words)), None)


def cancel_reason_in(said: str) -> CancelReason | None:
    """The cancellation reason the caller's words give, if any."""
    return _first_in(CANCEL_REASONS, said)


def return_reason_in(said: str) -> ReturnReason | None:
    """The return category the caller's words give, if any (never `OTHER`)."""
    return _first_in(RETURN_REASONS, said)
