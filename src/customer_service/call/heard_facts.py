"""What the caller heard is what the write does: every money write takes the facts its
read-back said (the order's payments and items, the money it moves; the method is the
result's own) as its precondition (`store.order_changes.Heard`), and the store refuses
it when any of them changed before the yes.

A refusal of that kind is not the end: the specialist's supervisor tool reads the order
again and runs its task once more with the caller's last request (`until_heard_holds`),
and the task reads the new facts back, saying first that something changed
(`CHANGED_SINCE_READ_BACK`), and asks again; a second yes writes the new facts. The
framework's own capture-and-confirm tasks do the same with a confirm bound to the exact
value read back (`beta/workflows/email_address.py`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from decimal import Decimal
from typing import Any, TypedDict

from livekit.agents import ToolError

from customer_service.call.fixed_sentences import fixed
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.phrase_cache import say
from customer_service.call.registration import Desk
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN
from customer_service.store import AuditEvent
from customer_service.store.order_changes import Heard

__all__ = [
    "CHANGED_AGAIN",
    "CHANGED_SINCE_READ_BACK",
    "AsHeard",
    "ReadBackStale",
    "as_heard",
    "heard_of",
    "read_back_again",
    "until_heard_holds",
]

CHANGED_SINCE_READ_BACK = fixed(
    "Something about this order changed since I read it to you, so I haven't done anything "
    "yet. Here it is as it stands now."
)
"""Said before the new read-back, in the same breath."""
CHANGED_AGAIN = fixed(
    f"This order keeps changing while we talk, so I haven't changed anything. {OFFER_HUMAN}"
)
READ_BACK_ROUNDS = 3
"""Read-backs of one request, each after the store found the one before out of date."""


def heard_of(order: OrderLookupResult, amount: Decimal | None = None) -> Heard:
    """The facts of `order` its read-back was made from, and the money it said moves."""
    return Heard(payments=order.payments, items=order.items, amount=amount)


class AsHeard(TypedDict):
    """What every money write on an order takes besides its own request: whose order, in
    which call, as the caller heard it, with the call's kept audit events."""

    order_id: str
    customer_id: str
    call_id: str
    heard: Heard
    other_events: Sequence[AuditEvent]


def as_heard(
    state: CallState,
    order: OrderLookupResult,
    kept: Sequence[AuditEvent],
    amount: Decimal | None = None,
) -> AsHeard:
    """The write's arguments for `order` as its read-back said it (`heard_of`)."""
    return AsHeard(
        order_id=order.order_id,
        customer_id=order.customer_id,
        call_id=state.call_id,
        heard=heard_of(order, amount),
        other_events=kept,
    )


async def read_back_again(
    specialist: Specialist[Any], propose: Callable[[str], Awaitable[None]]
) -> None:
    """A task's opening when it runs again on the new facts: `propose(lead)` reads the
    caller's confirmed request back as it stands now, after `lead`, the sentence saying
    that something changed; when the request can no longer be made as it was, `propose`
    raises a speakable `ToolError` and that is said after it instead, for the caller to
    answer."""
    try:
        await propose(CHANGED_SINCE_READ_BACK)
    except ToolError as broken:
        say(specialist.session, f"{CHANGED_SINCE_READ_BACK} {broken.message}")


class ReadBackStale(Exception):
    """The store refused the write: the order is no longer what the caller heard.
    `result` is the caller's confirmed request, to be read back again on the new facts."""

    def __init__(self, result: Any) -> None:
        super().__init__("the order changed since its read-back")
        self.result = result


async def until_heard_holds(
    desk: Desk,
    state: CallState,
    order: OrderLookupResult,
    attempt: Callable[[OrderLookupResult, Any | None], Awaitable[str]],
) -> str:
    """`attempt(order, None)`, the supervisor tool's run of its task on the caller's
    order; each time the store finds the read-back out of date (`ReadBackStale`), the
    order read again (its disclosure recorded) and `attempt` on it with the caller's
    confirmed request, for the task to read the new facts back. A request that is out of
    date `READ_BACK_ROUNDS` times changes nothing."""
    again: Any | None = None
    for _ in range(READ_BACK_ROUNDS):
        try:
            return await attempt(order, again)
        except ReadBackStale as stale:
            again = stale.result
            _, order = await desk.callers_order(state, order.order_id, disclosing=True)
    raise ToolError(CHANGED_AGAIN)
