"""Item change: a pending order's items become other versions of the same products, once,
only on the caller's clear yes; the price difference is paid or refunded at once.

The task changes nothing itself. It lists the order's items and their products'
variants, learns which items become which versions ("the bigger bottles") and the
caller's payment method for the difference, checks all of it in code and reads it back
with the difference (`call.item_swaps`, `call.item_swap_task`). The caller is reminded
that afterwards the order can be neither changed again nor cancelled. The supervisor
checks the result again and changes the items once.
"""

from __future__ import annotations

from textwrap import dedent

from livekit.agents import RunContext

from customer_service.call.confirmation import ConfirmationWording
from customer_service.call.fixed_sentences import fixed
from customer_service.call.item_swap_task import ItemSwapTask, swap_of_callers_order
from customer_service.call.item_swaps import ItemSwapResult, Swap, SwapRules
from customer_service.call.payment_methods import refund_timing, spoken_amount
from customer_service.call.registration import PASS_ORDER_ID, CallersOrderId, Desk, supervisor_tool
from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN, PERSONA
from customer_service.domain import Order, OrderStatus
from customer_service.order_numbers import spoken_order_id
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store.order_changes import ChangeRefusal

ITEM_CHANGE_INSTRUCTIONS = PERSONA + dedent(
    """
    Your only job now is to learn which items of order {order}, not shipped yet, the
    caller wants changed to another version of the same product (never to the version
    they are), and which of their payment methods pays or receives the price difference
    now. An order's items change only once, and afterwards it can't be changed again or
    cancelled: make sure the caller names every item they want changed now.
    """
)


class ItemChangeResult(ItemSwapResult):
    """The caller's confirmed change of units of one pending order."""


ALREADY_CHANGED = (
    "The items of order {order} were already changed once, so they can't be changed again. "
    f"{OFFER_HUMAN}"
)
NOT_CHANGEABLE = {
    OrderStatus.PENDING_ITEMS_MODIFIED: ALREADY_CHANGED,
    OrderStatus.DELIVERED: "Order {order} has been delivered, so its items can't be changed "
    "any more, but I can exchange them instead.",
    OrderStatus.PROCESSED: "Order {order} has already shipped, so its items can't be changed "
    "any more. Once it arrives, they can be exchanged.",
    OrderStatus.CANCELLED: "Order {order} is cancelled, so its items can't be changed.",
    OrderStatus.RETURN_REQUESTED: "Order {order} has been delivered, so its items can't be "
    "changed any more.",
    OrderStatus.EXCHANGE_REQUESTED: "Order {order} has been delivered, so its items can't be "
    "changed any more.",
}
"""Why the order's items cannot change, and what can be done instead."""
WORDING = ConfirmationWording(
    done="changed", thing="the items", question=fixed("Shall I make this change?")
)
RULES = SwapRules(
    ItemChangeResult,
    intro=ITEM_CHANGE_INSTRUCTIONS,
    name="item_change",
    verb="change",
    question=fixed(
        "Which items would you like to change, and to which version? Please tell me every "
        "item now: after this change, the order can't be changed again or cancelled."
    ),
    wording=WORDING,
    swappable=OrderStatus.PENDING,
    swapped=OrderStatus.PENDING_ITEMS_MODIFIED,
    not_swappable=NOT_CHANGEABLE,
    # Changed, shipped or cancelled in another call while this caller was deciding.
    changed_meanwhile={
        ChangeRefusal.ITEMS_ALREADY_CHANGED: ALREADY_CHANGED,
        ChangeRefusal.NOT_PENDING: "Order {order} can't be changed any more: it was shipped "
        f"or cancelled meanwhile. {OFFER_HUMAN}",
    },
    not_found=not_found_message,
    same_variant_allowed=False,
    settled="That is settled as soon as you say yes.",
)
not_changeable_message = RULES.not_swappable_message


class ItemChangeTask(ItemSwapTask[ItemChangeResult]):
    """Learns which items of a pending order become which versions and through which
    method the difference goes, and returns it only on the caller's clear yes."""

    rules = RULES


def item_change_said(swap: Swap, order: Order) -> str:
    """The items changed, and what became of the difference."""
    said = (
        f"Done. The items of order {spoken_order_id(order.order_id)} are changed, and it "
        "is still being processed."
    )
    amount = spoken_amount(swap.difference)
    if swap.difference > 0:
        return f"{said} The difference of {amount} is paid."
    if swap.difference < 0:
        return f"{said} The difference of {amount} is refunded. {refund_timing(swap.method)}"
    return said


@supervisor_tool(
    ItemChangeTask,
    ItemChangeResult,
    when_to_use=(
        "the caller wants items of an order not shipped yet changed to another version "
        f"(size, colour, ...) of the same product. {PASS_ORDER_ID}"
    ),
    menu_phrase="change the items of an order",
    writes="order_items_changed",
    plain_name="Item change",
    explains="Items of an order not shipped yet.",
)
async def change_items(
    desk: Desk, context: RunContext[CallState], order_id: CallersOrderId = None
) -> str:
    """Change items of one of the caller's pending orders to other versions of the same
    products."""
    state = context.userdata
    write = state.store.change_order_items
    return await swap_of_callers_order(
        desk, state, order_id, ItemChangeTask, write=write, said=item_change_said
    )
