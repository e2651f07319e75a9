"""The check of an order result, whoever built it: well formed, the order asked for,
and the verified caller's own."""

from __future__ import annotations

from customer_service.call.delegation import ResultRejected
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.run_check_write import well_formed
from customer_service.call.state import CallState


async def validated_order(
    result: object, state: CallState, requested_order_id: str | None
) -> OrderLookupResult:
    """The order result, once it is well formed, the one asked for and the verified
    caller's own. It is not read again: every result, the specialist's too, is built in
    code from the store's read (`find_callers_order`), never by the model."""
    order = well_formed(OrderLookupResult, result, what="order")
    customer = state.verified_customer
    if customer is None:
        raise ResultRejected("order result for an unverified caller")
    if requested_order_id is not None and order.order_id != requested_order_id:
        raise ResultRejected("order result is not the order asked for")
    if order.customer_id != customer.customer_id:
        raise ResultRejected("order result belongs to another customer")
    return order
