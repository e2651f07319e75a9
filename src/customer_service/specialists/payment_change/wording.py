"""What the caller hears of a payment change: the opening question naming the method
that pays now, the read-back of what is charged and refunded, and each refusal."""

from __future__ import annotations

from collections.abc import Sequence

from livekit.agents import ToolError

from customer_service.call.confirmation import ConfirmationWording
from customer_service.call.fixed_sentences import fixed
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.payment_methods import spoken_amount, spoken_method
from customer_service.call.refunds import refund_said
from customer_service.call.wording import OFFER_HUMAN
from customer_service.domain import PaymentMethod, Transaction
from customer_service.order_numbers import spoken_order_id
from customer_service.store.order_changes import ChangeRefusal

__all__ = [
    "CANCELLED",
    "ONLY_METHOD",
    "REFUSALS",
    "WORDING",
    "opening_question",
    "paying_method",
    "read_back",
    "refused",
    "spoken_method_of",
]

WORDING = ConfirmationWording(
    done="changed", thing="how the order is paid", question=fixed("Shall I make this change?")
)


def opening_question(
    order: OrderLookupResult, paid: Transaction, methods: Sequence[PaymentMethod]
) -> str:
    current = spoken_method_of(paid, methods)
    others = [method for method in methods if method.method_id != paid.method_id]
    lead = f"Order {spoken_order_id(order.order_id)} is paid with {current}."
    if len(others) == 1:
        return f"{lead} Would you like to pay it with {spoken_method(others[0])} instead?"
    offered = " or ".join(spoken_method(method) for method in others)
    return f"{lead} Which would you like to pay it with instead: {offered}?"


def paying_method(paid: Transaction, methods: Sequence[PaymentMethod]) -> PaymentMethod | None:
    """The caller's method that made `paid`; None when it is no longer on their account."""
    return next((method for method in methods if method.method_id == paid.method_id), None)


def spoken_method_of(paid: Transaction, methods: Sequence[PaymentMethod]) -> str:
    known = paying_method(paid, methods)
    return spoken_method(known) if known else "a payment method no longer on your account"


def read_back(
    order: OrderLookupResult, paid: Transaction, new: PaymentMethod, old: PaymentMethod | None
) -> str:
    """What the change does to the caller's money: the amount charged to `new`, and the
    same refunded to `old` (the method paying now), with when it arrives."""
    amount = spoken_amount(paid.amount)
    return WORDING.read_back(
        # "The 72 dollars for order 2 0 0, 2 0 2": a possessive after digits said one by
        # one ("2 0 2's") does not read as one.
        f"The {amount} for order {spoken_order_id(order.order_id)} will be charged to "
        f"{spoken_method(new)} instead. {refund_said(paid.amount, old)}"
    )


REFUSALS = {
    ChangeRefusal.NOT_PENDING: "Order {order} has already shipped, so its payment can't be "
    f"changed. {OFFER_HUMAN}",
    ChangeRefusal.NOT_ONE_PAYMENT: "The payment for order {order} has already been changed or "
    f"refunded, so I can't change it again here. {OFFER_HUMAN}",
    ChangeRefusal.SAME_PAYMENT_METHOD: "Order {order} is already paid with {method}.",
    ChangeRefusal.PAYMENT_METHOD_NOT_FOUND: "That payment method is no longer on your account, "
    f"so nothing was changed. {OFFER_HUMAN}",
    ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW: "Your gift card doesn't have the order's "
    "{amount} on it, so it can't pay for it.",
}
"""What the caller hears for each rule that refuses a payment change; any other refusal
reads like an order not found."""
CANCELLED = "Order {order} is cancelled, so there is no payment to change."
ONLY_METHOD = (
    "Order {order} is paid with {method}, the only payment method on your account, so "
    "there is no other to pay it with."
)


def refused(template: str, order_id: str, **words: str) -> ToolError:
    """The refusal said with `template`, naming the order as it is spoken."""
    return ToolError(template.format(order=spoken_order_id(order_id), **words))
