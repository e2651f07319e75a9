"""The payment change the caller confirmed, the rules an order must meet before the task
starts, the check of the task's result, and what the caller hears of the store's answer."""

from __future__ import annotations

from collections.abc import Sequence

from livekit.agents import ToolError
from pydantic import BaseModel, ConfigDict, Field

from customer_service.call.delegation import ResultRejected
from customer_service.call.heard_facts import ReadBackStale
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.payment_methods import spoken_amount, spoken_method
from customer_service.call.refunds import refund_said
from customer_service.call.run_check_write import well_formed
from customer_service.domain import (
    ORDER_ID_PATTERN,
    Order,
    OrderStatus,
    PaymentMethod,
    Transaction,
    TransactionKind,
)
from customer_service.order_numbers import spoken_order_id
from customer_service.specialists.order_lookup import not_found_message
from customer_service.specialists.payment_change.wording import CANCELLED, REFUSALS, refused
from customer_service.store.order_changes import Changed, ChangeRefusal

__all__ = [
    "PaymentChangeResult",
    "choice_refused",
    "payment_change_said",
    "the_one_payment",
    "validated_payment_change",
]


class PaymentChangeResult(BaseModel):
    """The caller's confirmed wish to pay one pending order with another of their methods."""

    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    payment_method_id: str = Field(min_length=1)


def the_one_payment(order: OrderLookupResult) -> Transaction:
    """The order's one payment, when it is pending and paid once; else a speakable refusal."""
    if order.status is OrderStatus.CANCELLED:
        raise refused(CANCELLED, order.order_id)
    if not order.status.is_pending:
        raise refused(REFUSALS[ChangeRefusal.NOT_PENDING], order.order_id)
    payments = order.payments
    if len(payments) != 1 or payments[0].kind is not TransactionKind.PAYMENT:
        raise refused(REFUSALS[ChangeRefusal.NOT_ONE_PAYMENT], order.order_id)
    return payments[0]


def choice_refused(order_id: str, paid: Transaction, new: PaymentMethod) -> str | None:
    """Why the caller's choice `new` cannot pay for the order instead, as they hear it;
    None when it can."""
    refusal = None
    if new.method_id == paid.method_id:
        refusal = ChangeRefusal.SAME_PAYMENT_METHOD
    elif new.balance is not None and new.balance < paid.amount:
        refusal = ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW
    if refusal is None:
        return None
    amount, method = spoken_amount(paid.amount), spoken_method(new)
    return REFUSALS[refusal].format(order=spoken_order_id(order_id), method=method, amount=amount)


def validated_payment_change(
    result: object, order_id: str, paid: Transaction, methods: Sequence[PaymentMethod]
) -> PaymentChangeResult:
    """The confirmed change, once it is well formed, for `order_id`, and to another of the
    caller's methods."""
    change = well_formed(PaymentChangeResult, result, what="payment change")
    if change.order_id != order_id:
        raise ResultRejected("payment change result is for another order")
    if change.payment_method_id not in {m.method_id for m in methods} - {paid.method_id}:
        raise ResultRejected("payment change result names no other method of the caller's")
    return change


def payment_change_said(
    order: OrderLookupResult,
    changed: Changed[Order],
    paid: Transaction,
    new: PaymentMethod,
    old: PaymentMethod | None,
    result: PaymentChangeResult | None = None,
) -> str:
    """The sentences that tell the caller what the store did and what comes back to
    them, and when (`new` as it stands after the change: a gift card's balance after
    the charge); a refusal is raised, and `ReadBackStale` with `result` when the order
    or the card's free balance is no longer what the caller heard."""
    spaced = spoken_order_id(order.order_id)
    if changed.refusal in (
        ChangeRefusal.CHANGED_SINCE_READ_BACK,
        ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW,
    ):
        raise ReadBackStale(result)
    if changed.done:
        return (
            f"Done. Order {spaced} is now paid with {spoken_method(new)}. "
            f"{refund_said(paid.amount, old)}"
        )
    # Missing or someone else's, or a rule no payment change meets: the order reads as not found.
    template = REFUSALS.get(changed.refusal) if changed.refusal else None
    if template is None:
        raise ToolError(not_found_message(order.order_id))
    words = {"method": spoken_method(new), "amount": spoken_amount(paid.amount)}
    raise refused(template, order.order_id, **words)
