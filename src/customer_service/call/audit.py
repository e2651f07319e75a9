"""Delegation and decision events: one structured log line and one stored record each.

An event that must be stored before what it describes takes effect (a verification, a
disclosure) is written at once with `record`. One that only reports what already
happened (a specialist's run, a failed check) is kept with `record_later` and written in
the same transaction as the call's next write, or when the call ends (`flush`): the
caller does not wait for a write of its own. Either way no event is dropped in silence.

Details must already be masked: this module writes what it is given.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from customer_service.store import AuditEvent, StoreUnavailable

if TYPE_CHECKING:
    from customer_service.call.state import CallState

logger = logging.getLogger(__name__)

DetailValue = str | int | float | bool | None
T = TypeVar("T")


AUDIT_WRITE_ATTEMPTS = 3
"""Tries at storing audit events before the caller hears the store apology."""


@dataclass
class AuditBacklog:
    """One call's events kept for its next write."""

    events: list[AuditEvent] = field(default_factory=list)
    closed: bool = False
    """The call has ended: events are written at once, there is no next write."""


def note(
    state: CallState,
    kind: str,
    *,
    customer_id: str | None = None,
    order_id: str | None = None,
    **detail: DetailValue,
) -> AuditEvent:
    """The event, logged; storing it is the caller's business (`store_with`)."""
    event = AuditEvent(
        call_id=state.call_id,
        kind=kind,
        customer_id=customer_id,
        order_id=order_id,
        detail=dict(detail),
    )
    log(event)
    return event


def log(event: AuditEvent) -> None:
    """The event's structured log line (`note` writes it; an event built for a write
    that may not store it is logged once it is stored)."""
    logger.info(
        event.kind,
        extra={
            "call_id": event.call_id,
            "customer_id": event.customer_id,
            "order_id": event.order_id,
            **{f"detail_{key}": value for key, value in event.detail.items()},
        },
    )


async def record(
    state: CallState,
    kind: str,
    *,
    customer_id: str | None = None,
    order_id: str | None = None,
    **detail: DetailValue,
) -> None:
    """Logs the event and stores it now, with the events kept for this write, trying
    again on a failed write. Events that still cannot be stored raise `StoreUnavailable`:
    a lost audit row is lost data, so the caller hears the store apology instead of the
    call going on without its record."""
    event = note(state, kind, customer_id=customer_id, order_id=order_id, **detail)
    await store_with(state, [event], state.store.add_audit_events)


async def record_later(
    state: CallState,
    kind: str,
    *,
    customer_id: str | None = None,
    order_id: str | None = None,
    **detail: DetailValue,
) -> None:
    """Logs the event and keeps it for the call's next write (at once after the call)."""
    event = note(state, kind, customer_id=customer_id, order_id=order_id, **detail)
    backlog = state.audit_backlog
    if backlog.closed:
        await store_with(state, [event], state.store.add_audit_events)
    else:
        backlog.events.append(event)


async def store_with(
    state: CallState,
    events: Sequence[AuditEvent],
    write: Callable[[list[AuditEvent]], Awaitable[T]],
    *,
    attempts: int = AUDIT_WRITE_ATTEMPTS,
) -> T:
    """`write` (one transaction) given the kept events followed by `events`; the kept
    ones count as written only once it succeeds. Tried `attempts` times, then
    `StoreUnavailable` with the kept events kept again for the next write."""
    backlog = state.audit_backlog
    # Taken before the first await: a parallel write does not store them twice.
    kept, backlog.events = backlog.events, []
    batch = [*kept, *events]
    for attempt in range(1, attempts + 1):
        try:
            return await write(batch)
        except StoreUnavailable:
            logger.warning(
                "audit event not stored",
                extra={
                    "call_id": state.call_id,
                    "kinds": ",".join(event.kind for event in batch),
                    "attempt": attempt,
                },
            )
    backlog.events[:0] = kept
    raise StoreUnavailable("The store could not record an audit event.")


async def flush(state: CallState) -> None:
    """Writes the kept events now (before reading the call's events back, say). Raises
    `StoreUnavailable`, keeping them, when they cannot be written."""
    if state.audit_backlog.events:
        await store_with(state, [], state.store.add_audit_events)


async def end_of_call(state: CallState) -> None:
    """The call's last audit write: what the backlog kept. Later events are written at
    once. Events that cannot be written are logged in full as an error (they hold no
    personal data), the only record left of them: there is no caller to apologise to."""
    backlog = state.audit_backlog
    backlog.closed = True
    try:
        await flush(state)
    except StoreUnavailable:
        for event in backlog.events:
            logger.error("audit event lost", extra=event.model_dump(mode="json"))
        backlog.events = []
