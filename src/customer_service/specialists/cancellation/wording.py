"""What the caller hears of a cancellation: the two reasons an order is cancelled for and
the question about them, the opening question naming the order's items, the read-back
with its refund, and why an order is kept."""

from __future__ import annotations

from customer_service.call.confirmation import ConfirmationWording
from customer_service.call.fixed_sentences import fixed
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.speakable import spoken_items
from customer_service.call.wording import OFFER_HUMAN
from customer_service.domain import CancelReason, OrderStatus
from customer_service.order_numbers import spoken_order_id

REASON_WORDS = {
    CancelReason.NO_LONGER_NEEDED: "you no longer need it",
    CancelReason.ORDERED_BY_MISTAKE: "it was ordered by mistake",
}
"""Each reason the store takes, as the caller hears it."""
REASON_QUESTION = fixed(
    f"Why would you like to cancel it: because {REASON_WORDS[CancelReason.NO_LONGER_NEEDED]}, "
    f"or because {REASON_WORDS[CancelReason.ORDERED_BY_MISTAKE]}?"
)
CLOSER_REASON_QUESTION = fixed(
    "I can cancel an order only because you no longer need it or because it was ordered "
    "by mistake. Which of those is closer?"
)
"""Asked of a caller who gave another reason (the offline model says it)."""


def wording(order_id: str) -> ConfirmationWording:
    """What the cancellation of `order_id` says; the caller has nothing to correct."""
    return ConfirmationWording(
        done="cancelled",
        thing=f"order {spoken_order_id(order_id)}",
        question=fixed("Do you want me to cancel this order?"),
        correctable=False,
    )


def opening_question(order: OrderLookupResult) -> str:
    return (
        f"Order {spoken_order_id(order.order_id)} contains {spoken_items(order.items)}. "
        f"{REASON_QUESTION}"
    )


def read_back(order: OrderLookupResult, reason: CancelReason, refunds: str) -> str:
    """The cancellation as it will be done: the order, why, and `refunds` (how the money
    comes back, `refunds_said`)."""
    statement = (
        f"I'll cancel order {spoken_order_id(order.order_id)}, with "
        f"{spoken_items(order.items)}, because {REASON_WORDS[reason]}."
    )
    return wording(order.order_id).read_back(f"{statement} {refunds}".strip())


def kept_message(order_id: str) -> str:
    return wording(order_id).nothing_done


def no_fitting_reason_message(order_id: str) -> str:
    return (
        f"{kept_message(order_id)} I can cancel an order only because you no longer need "
        f"it or because it was ordered by mistake. {OFFER_HUMAN}"
    )


def not_cancellable_message(order_id: str, status: OrderStatus) -> str:
    spaced = spoken_order_id(order_id)
    if status is OrderStatus.CANCELLED:
        return f"Order {spaced} is already cancelled."
    if status is OrderStatus.PENDING_ITEMS_MODIFIED:
        return f"Order {spaced} had its items changed, so I can't cancel it any more. {OFFER_HUMAN}"
    done = "been delivered" if status is OrderStatus.DELIVERED else "already shipped"
    return f"Order {spaced} has {done}, so I can't cancel it any more. {OFFER_HUMAN}"
