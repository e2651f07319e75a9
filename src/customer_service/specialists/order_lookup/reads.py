"""The verified caller's own orders as the store holds them: one by the number they
said, each miss counted and audited; their recent orders read out, their disclosure
recorded; and the newest ones, that tell a caller with one order from one with several."""

from __future__ import annotations

from livekit.agents import ToolError

from customer_service.call import audit
from customer_service.call.disclosed_reads import order_disclosing, recent_orders_disclosing
from customer_service.call.state import CallState
from customer_service.domain import Order
from customer_service.order_choice import recent_orders_list
from customer_service.order_numbers import normalize_order_id
from customer_service.specialists.order_lookup.wording import (
    INVALID_ORDER_NUMBER,
    NOT_VERIFIED,
    TOO_MANY_MISSES,
    not_found_message,
)


async def find_callers_order(
    state: CallState, said_order_id: str, *, disclosing: bool = False
) -> Order:
    """The verified caller's order with that number, or a speakable ToolError. When
    `disclosing`, the order is read in the transaction that records its disclosure."""
    customer = state.verified_customer
    if customer is None:
        raise ToolError(NOT_VERIFIED)
    order_id = normalize_order_id(said_order_id)
    if order_id is None:
        raise ToolError(INVALID_ORDER_NUMBER)
    if disclosing:
        order = await order_disclosing(state, customer.customer_id, order_id)
    else:
        order = await state.store.get_order(order_id)
    if order is None or order.customer_id != customer.customer_id:
        state.record_order_lookup_failure()
        await audit.record_later(
            state, "order_not_found", customer_id=customer.customer_id, order_id=order_id
        )
        if state.order_lookup_attempts_left == 0:
            raise ToolError(TOO_MANY_MISSES)
        raise ToolError(not_found_message(order_id))
    return order


async def recent_orders_read_out(state: CallState) -> tuple[list[Order], str]:
    """The caller's recent orders, their disclosure recorded, and the list as said."""
    customer = state.verified_customer
    if customer is None:
        raise ToolError(NOT_VERIFIED)
    orders = await recent_orders_disclosing(state, customer.customer_id)
    return orders, recent_orders_list(orders)


async def newest_orders(state: CallState) -> list[Order]:
    """The verified caller's recent orders, and always two when they have two or more:
    enough to tell a caller with one order from one with several."""
    customer = state.verified_customer
    if customer is None:
        return []
    limit = max(state.settings.recent_orders_limit, 2)
    return await state.store.recent_orders(customer.customer_id, limit)
