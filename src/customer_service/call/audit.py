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


async def record(
    state: CallState,
    kind: str,
    *,
    customer_id: str | None = None,
    order_id: str | None = None,
    **detail: DetailValue,
) -> None:
    """Logs the event and stores it. A store outage is logged, never raised: losing an
    audit line must not end a call that is otherwise going well."""
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
    try:
        await state.store.add_audit_event(event)
    except StoreUnavailable:
        logger.warning("audit event not stored", extra={"call_id": state.call_id, "kind": kind})
