"""Whether an order may be returned: before the task starts (a request already made, a
return window, an order not yet delivered), and as the store answers the request, with
the sentence the caller hears for each answer."""

from __future__ import annotations

from livekit.agents import ToolError

from customer_service.call.heard_facts import ReadBackStale
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.speakable import spoken_date
from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN
from customer_service.domain import OrderStatus
from customer_service.order_numbers import spoken_order_id
from customer_service.specialists.order_lookup import not_found_message
from customer_service.specialists.returns.result import ReturnResult
from customer_service.specialists.returns.wording import (
    already_requested_message,
    return_number_message,
)
from customer_service.store import ReturnOutcome, ReturnRequest, last_return_day, return_refusal


def not_returnable_message(order: OrderLookupResult, refusal: ReturnOutcome) -> str:
    spaced = spoken_order_id(order.order_id)
    if order.status is OrderStatus.CANCELLED:
        return f"Order {spaced} is cancelled, so there is nothing to return."
    if refusal is ReturnOutcome.OUTSIDE_WINDOW and order.delivered_on is not None:
        last_day = spoken_date(last_return_day(order.delivered_on))
        return (
            f"Order {spaced} could be returned until {last_day}, thirty days after it "
            f"arrived, so it can't be returned any more. {OFFER_HUMAN}"
        )
    not_yet = f"Order {spaced} hasn't been delivered yet, so it can't be returned."
    # The window runs from the delivery date, which only a dated order will have: a store
    # without dates (τ²-bench's) has no window, so none is promised.
    if order.placed_on is None:
        return not_yet
    return f"{not_yet} Once it arrives, you'll have thirty days to return it."


async def ensure_returnable(state: CallState, order: OrderLookupResult) -> None:
    """Raises a speakable `ToolError` when `order` cannot be returned today, or when a
    return is already requested for it (its number is said again)."""
    for existing in await state.store.return_requests(order_id=order.order_id):
        if existing.customer_id == order.customer_id:
            raise ToolError(already_requested_message(existing))
    refusal = return_refusal(order, state.clock.today())
    if refusal is not None:
        raise ToolError(not_returnable_message(order, refusal))


def return_said(
    order: OrderLookupResult,
    stored: tuple[ReturnOutcome, ReturnRequest | None],
    result: ReturnResult | None = None,
) -> str:
    """The sentence with the return number; a refusal is raised, and `ReadBackStale`
    with `result` when the order is no longer what the caller heard."""
    outcome, request = stored
    if outcome is ReturnOutcome.CHANGED_SINCE_READ_BACK:
        raise ReadBackStale(result)
    if outcome is ReturnOutcome.REQUESTED and request is not None:
        return return_number_message("Your return is requested.", request)
    if outcome is ReturnOutcome.ALREADY_REQUESTED and request is not None:
        # Requested in another call while this caller was deciding.
        return already_requested_message(request)
    if outcome in (ReturnOutcome.NOT_DELIVERED, ReturnOutcome.OUTSIDE_WINDOW):
        raise ToolError(not_returnable_message(order, outcome))
    if outcome is ReturnOutcome.ITEMS_NOT_IN_ORDER:
        raise ToolError(f"Those items aren't in order {spoken_order_id(order.order_id)}.")
    if outcome is ReturnOutcome.REFUND_METHOD_NOT_ALLOWED:
        # The method was removed from the account while the caller was deciding.
        raise ToolError(
            f"That payment method can't take the refund for order "
            f"{spoken_order_id(order.order_id)} any more, so nothing was requested. {OFFER_HUMAN}"
        )
    raise ToolError(not_found_message(order.order_id))
