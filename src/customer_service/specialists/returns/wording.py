"""What the caller hears of a return: the opening question naming the order's items, the
read-back of the items, the reason and where the refund goes, and the return number."""

from __future__ import annotations

from customer_service.call.confirmation import ConfirmationWording
from customer_service.call.fixed_sentences import fixed
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.refunds import refund_destination
from customer_service.call.speakable import spaced_digits, spoken_items
from customer_service.domain import PaymentMethod, value_of
from customer_service.order_numbers import spoken_order_id
from customer_service.specialists.returns.result import ReturnResult
from customer_service.store import ReturnReason, ReturnRequest

WORDING = ConfirmationWording(
    done="requested", thing="a return", question=fixed("Shall I request this return?")
)
REASON_WORDS = {
    ReturnReason.DAMAGED: "{they} arrived damaged",
    ReturnReason.DEFECTIVE: "{they} {are} faulty",
    ReturnReason.WRONG_ITEM: "{they} {are} not what was ordered",
    ReturnReason.NOT_AS_DESCRIBED: "{they} {are} not as described",
    ReturnReason.NO_LONGER_NEEDED: "{they} {are} no longer needed",
    ReturnReason.OTHER: "of another reason",
}
"""The reason as the read-back says it: the category, never the caller's words."""


def opening_question(order: OrderLookupResult) -> str:
    """The first of the task's questions, one at a time: the items; the reason and where
    the refund goes are asked once the caller has answered it."""
    return (
        f"Order {spoken_order_id(order.order_id)} contains {spoken_items(order.items)}. "
        "Which items would you like to return, or is it all of them?"
    )


def read_back(order: OrderLookupResult, request: ReturnResult, refund_to: PaymentMethod) -> str:
    chosen = [order.items[index] for index in request.item_indices]
    several = len(chosen) > 1 or chosen[0].quantity > 1
    reason = REASON_WORDS[request.reason].format(
        they="they" if several else "it", are="are" if several else "is"
    )
    return WORDING.read_back(
        f"You'd like to return {spoken_items(chosen)} from order "
        f"{spoken_order_id(order.order_id)}, because {reason}. "
        f"{refund_destination(refund_to, value_of(chosen))}"
    )


def return_number_message(lead: str, request: ReturnRequest) -> str:
    number = spaced_digits(request.return_number)
    return f"{lead} Your return number is {number}. Once more, that's {number}."


def already_requested_message(request: ReturnRequest) -> str:
    spaced = spoken_order_id(request.order_id)
    return return_number_message(f"A return is already requested for order {spaced}.", request)
