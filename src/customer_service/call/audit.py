"""Delegation and decision events: one structured log line and one stored record each.

Details must already be masked: this module writes what it is given.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from customer_service.store import AuditEvent, StoreUnavailable

if TYPE_CHECKING:
    from customer_service.call.state import CallState

logger = logging.getLogger(__name__)

DetailValue = str | int | float | bool | None


AUDIT_WRITE_ATTEMPTS = 3
"""Tries at storing one audit event before the caller hears the store apology."""


async def record(
    state: CallState,
    kind: str,
    *,
    customer_id: str | None = None,
    order_id: str | None = None,
    **detail: DetailValue,
) -> None:
    """Logs the event and stores it, trying again on a failed write. An event that still
    cannot be stored raises `StoreUnavailable`: a lost audit row is lost data, so the
    caller hears the store apology instead of the call going on without its record."""
    event = AuditEvent(
        call_id=state.call_id,
        kind=kind,
        customer_id=customer_id,
        order_id=order_id,
        detail=dict(detail),
    )
    logger.info(
        kind,
        extra={
            "call_id": state.call_id,
            "customer_id": customer_id,
            "order_id": order_id,
            **{f"detail_{key}": value for key, value in detail.items()},
        },
    )
    for attempt in range(1, AUDIT_WRITE_ATTEMPTS + 1):
        try:
            await state.store.add_audit_event(event)
            return
        except StoreUnavailable:
            logger.warning(
                "audit event not stored",
                extra={"call_id": state.call_id, "kind": kind, "attempt": attempt},
            )
    # Never dropped in silence: the caller hears the store apology, like any write
    # that could not be made.
    raise StoreUnavailable("The store could not record an audit event.")
