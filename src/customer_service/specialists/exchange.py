"""Exchange: delivered items sent back for other versions of the same products, requested
once per order, only on the caller's clear yes.

The task changes nothing itself. It lists the order's items and their products'
variants, learns which items become which versions ("the same mat, but 6 mm") and the
caller's payment method for the price difference, checks all of it in code and reads
it back with the difference (`call.item_swaps`, `call.item_swap_task`). The supervisor
checks the result again and requests the exchange once; no money moves until the
returned items arrive.
"""

from __future__ import annotations

from textwrap import dedent

from livekit.agents import RunContext

from customer_service.call.confirmation import ConfirmationWording
from customer_service.call.fixed_sentences import fixed
from customer_service.call.item_swap_task import ItemSwapTask, swap_of_callers_order
from customer_service.call.item_swaps import ItemSwapResult, Swap, SwapRules
from customer_service.call.payment_methods import spoken_amount, spoken_method
from customer_service.call.registration import PASS_ORDER_ID, CallersOrderId, Desk, supervisor_tool
from customer_service.call.state import CallState
from customer_service.call.wording import PERSONA
from customer_service.domain import Order, OrderStatus
from customer_service.order_numbers import spoken_order_id
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store.order_changes import ChangeRefusal

EXCHANGE_INSTRUCTIONS = PERSONA + dedent(
    """
    Your only job now is to learn which items of delivered order {order} the caller wants
    to exchange, for which version of the same product (the same version replaces a
    faulty unit with a new one), and which of their payment methods pays or receives
    the price difference. An order can be exchanged only once: make sure the caller
    names every item they want exchanged now.
    """
)


class ExchangeResult(ItemSwapResult):
    """The caller's confirmed exchange of units of one delivered order."""


NOT_EXCHANGEABLE = {
    # An offer the caller answers: a yes asks for the item change of this order.
    OrderStatus.PENDING: "Order {order} hasn't been delivered yet, so its items can't be "
    "exchanged, but they can still be changed. Would you like me to change the items?",
    OrderStatus.PENDING_ITEMS_MODIFIED: "Order {order} hasn't been delivered yet, and its "
    "items were already changed once, so they can't be exchanged or changed again.",
    OrderStatus.PROCESSED: "Order {order} is on its way. Once it arrives, its items can be "
    "exchanged.",
    OrderStatus.EXCHANGE_REQUESTED: "An exchange is already requested for order {order}: an "
    "order is exchanged once.",
    OrderStatus.RETURN_REQUESTED: "A return is requested for order {order}, so it can't be "
    "exchanged as well.",
    OrderStatus.CANCELLED: "Order {order} is cancelled, so there is nothing to exchange.",
}
"""Why an order that is not delivered cannot be exchanged, and what can be done."""
WORDING = ConfirmationWording(
    done="requested", thing="an exchange", question=fixed("Shall I request this exchange?")
)
RULES = SwapRules(
    ExchangeResult,
    intro=EXCHANGE_INSTRUCTIONS,
    name="exchange",
    verb="exchange",
    question=fixed(
        "Which items would you like to exchange, and for which version? An order can be "
        "exchanged only once, so please tell me every item you'd like to exchange now."
    ),
    wording=WORDING,
    swappable=OrderStatus.DELIVERED,
    swapped=OrderStatus.EXCHANGE_REQUESTED,
    not_swappable=NOT_EXCHANGEABLE,
    # Returned or exchanged in another call while this caller was deciding.
    changed_meanwhile={
        ChangeRefusal.NOT_DELIVERED: "Order {order} can't be exchanged any more: a return or "
        "an exchange was requested for it meanwhile."
    },
    not_found=not_found_message,
    same_variant_allowed=True,
    settled="That is settled once your items are back with us.",
)
not_exchangeable_message = RULES.not_swappable_message


class ExchangeTask(ItemSwapTask[ExchangeResult]):
    """Learns which delivered items become which versions and through which method the
    difference goes, and returns it only on the caller's clear yes to its read-back."""

    rules = RULES


def exchange_said(swap: Swap, order: Order) -> str:
    """The exchange requested, and what happens next."""
    settled = ""
    if swap.difference:
        way = "paid with" if swap.difference > 0 else "refunded to"
        settled = (
            f" The difference of {spoken_amount(swap.difference)} is {way} "
            f"{spoken_method(swap.method)} then."
        )
    return (
        f"Done. An exchange is requested for order {spoken_order_id(order.order_id)}. You'll "
        "get instructions for sending the items back, and your new items are sent once "
        f"they arrive.{settled}"
    )


@supervisor_tool(
    ExchangeTask,
    ExchangeResult,
    when_to_use=(
        "the caller wants items of an order they received exchanged for another version "
        f"(size, colour, ...) of the same product. {PASS_ORDER_ID}"
    ),
    menu_phrase="exchange items you've received",
    writes="order_exchange_requested",
    plain_name="Exchange",
    explains="Delivered items for another version of the product.",
)
async def exchange_items(
    desk: Desk, context: RunContext[CallState], order_id: CallersOrderId = None
) -> str:
    """Exchange items of one of the caller's delivered orders for other versions of the
    same products."""
    state = context.userdata
    write = state.store.exchange_order_items
    return await swap_of_callers_order(
        desk, state, order_id, ExchangeTask, write=write, said=exchange_said
    )
