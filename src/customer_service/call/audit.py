"""Delegation and decision events: one structured log line and one stored record each.

An event that must be stored before what it describes takes effect (a verification, a
disclosure) is written at once with `record`. One that only reports what already
happened (a specialist's run, a failed check) is kept with `record_later` and written in
the same transaction as the call's next write, or in the background once the agent's
reply starts playing or the agent turns back to listening (`write_kept_each_turn`),
whichever comes first: the caller does not wait for a write of its own, and a process
that dies mid-call loses at most the turn in progress. Either way no event is dropped in
silence.

Details must already be masked: this module writes what it is given.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from customer_service.call.listeners import listen
from customer_service.call.state import CallState
from customer_service.store import AuditEvent, StoreUnavailable

if TYPE_CHECKING:
    from livekit.agents import AgentSession, AgentStateChangedEvent

logger = logging.getLogger(__name__)

DetailValue = str | int | float | bool | None
T = TypeVar("T")


AUDIT_WRITE_ATTEMPTS = 3
"""Tries at storing audit events before the caller hears the store apology."""


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
    """Logs the event and keeps it for the call's next write, or the background write
    as the turn's reply starts (`write_kept_each_turn`); at once after the call."""
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


def write_kept_each_turn(session: AgentSession[CallState]) -> None:
    """Has the call's kept events written in the background whenever the agent's reply
    starts playing, and when the agent turns back to listening (for events kept after
    the reply began, by a tool that ends in no reply): off the caller's wait, and at the
    latest as each turn ends."""
    state = session.userdata

    def on_agent_state(event: AgentStateChangedEvent) -> None:
        if event.new_state in ("speaking", "listening"):
            write_kept_soon(state)

    listen(session, "agent_state_changed", on_agent_state)


def write_kept_soon(state: CallState) -> None:
    """Starts writing the kept events in the background, unless a background write is
    already running: that one writes the events kept meanwhile once it is done, so a
    call has one such write at a time."""
    backlog = state.audit_backlog
    if backlog.closed or not backlog.events:
        return
    if backlog.writing is not None and not backlog.writing.done():
        return
    backlog.writing = asyncio.create_task(_write_kept(state), name="write kept audit events")


async def _write_kept(state: CallState) -> None:
    # Checked again after each write: events kept while it ran are this task's too
    # (`write_kept_soon` sees it running). Nothing awaits between the last check and
    # the task's end, so none is left behind.
    backlog = state.audit_backlog
    try:
        while backlog.events:
            await store_with(state, [], state.store.add_audit_events)
    except StoreUnavailable:
        logger.warning(
            "kept audit events left for the call's next write",
            extra={"call_id": state.call_id, "kept": len(backlog.events)},
        )
    except Exception as error:
        # Not the store's known failures: a defect, and the events it took are gone but
        # for their log lines (`note`). Its text may quote what was written: not logged.
        logger.error(
            "kept audit events not written",
            extra={"call_id": state.call_id, "error": type(error).__name__},
        )


async def background_write_done(state: CallState) -> None:
    """Returns once the call's background write of kept events, if one is running, has
    ended (whether it stored them or left them kept)."""
    writing = state.audit_backlog.writing
    if writing is not None and not writing.done():
        # `wait`, not `await writing`: a caller cancelled here must not cancel the write.
        await asyncio.wait([writing])


async def flush(state: CallState) -> None:
    """Writes the kept events now (before reading the call's events back, say), after
    the background write in flight, if any. Raises `StoreUnavailable`, keeping them,
    when they cannot be written."""
    await background_write_done(state)
    if state.audit_backlog.events:
        await store_with(state, [], state.store.add_audit_events)


async def end_of_call(state: CallState) -> None:
    """The call's last audit write: what the backlog kept, after the background write
    in flight. Later events are written at once. Events that cannot be written are
    logged in full as an error (they hold no personal data), the only record left of
    them: there is no caller to apologise to."""
    backlog = state.audit_backlog
    backlog.closed = True
    try:
        await flush(state)
    except StoreUnavailable:
        for event in backlog.events:
            logger.error("audit event lost", extra=event.model_dump(mode="json"))
        backlog.events = []
