"""The caller's orders read in the transaction that records their disclosure, or their
disclosure recorded on its own: what is about to be said about an order is on record
before it is said, and what cannot be recorded is not said."""

from __future__ import annotations

from customer_service.call import audit
from customer_service.call.state import CallState
from customer_service.domain import Order
from customer_service.store import AuditEvent, StoreUnavailable

__all__ = ["disclosure_recorded", "order_disclosing", "recent_orders_disclosing"]


async def order_disclosing(state: CallState, customer_id: str, order_id: str) -> Order | None:
    """The customer's order with that number, its disclosure recorded as it is read; None
    when they have no such order (nothing is recorded then)."""
    disclosure = AuditEvent(
        call_id=state.call_id, kind="order_disclosed", customer_id=customer_id, order_id=order_id
    )

    async def read(events: list[AuditEvent]) -> Order | None:
        kept = [event for event in events if event is not disclosure]
        return await state.store.read_order_for_disclosure(order_id, customer_id, disclosure, kept)

    order = await audit.store_with(state, [disclosure], read)
    if order is not None:
        audit.log(disclosure)
    return order


async def recent_orders_disclosing(state: CallState, customer_id: str) -> list[Order]:
    """The customer's recent orders, read in the transaction that records, for each, that
    its number, main item, date and status are about to be said."""
    disclosure = AuditEvent(
        call_id=state.call_id,
        kind="order_disclosed",
        customer_id=customer_id,
        detail={"listed": True},
    )
    limit = state.settings.recent_orders_limit

    async def read(events: list[AuditEvent]) -> list[Order]:
        kept = [event for event in events if event is not disclosure]
        return await state.store.read_recent_orders_for_disclosure(
            customer_id, limit, disclosure, kept
        )

    orders = await audit.store_with(state, [disclosure], read)
    for order in orders:
        audit.log(disclosure.about(order.order_id))
    return orders


async def disclosure_recorded(state: CallState, order: Order) -> bool:
    """Records that the order's number and main item are about to be said, for an order
    just read without it; False when it cannot be recorded (nothing may be said then)."""
    disclosure = AuditEvent(
        call_id=state.call_id,
        kind="order_disclosed",
        customer_id=order.customer_id,
        order_id=order.order_id,
    )
    try:
        await audit.store_with(state, [disclosure], state.store.add_audit_events)
    except StoreUnavailable:
        return False
    audit.log(disclosure)
    return True
