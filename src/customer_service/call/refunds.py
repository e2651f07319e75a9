"""Money going back to the caller, said the same way by every specialist that sends it:
how much, and when it reaches which of their methods (`payment_methods.refund_timing`);
and where a refund of a return may go (`refund_choices`): to the methods that hold the
order's money now (`domain.held_by_method`), or to a gift card of the caller's."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal
from textwrap import dedent

from livekit.agents import ToolError

from customer_service.call.order_view import OrderLookupResult
from customer_service.call.payment_methods import (
    methods_listing,
    refund_timing,
    spoken_amount,
    spoken_method,
)
from customer_service.call.wording import OFFER_HUMAN
from customer_service.domain import (
    Order,
    PaymentKind,
    PaymentMethod,
    Transaction,
    TransactionKind,
    held_by_method,
)
from customer_service.order_numbers import spoken_order_id

__all__ = [
    "METHOD_GONE_TIMING",
    "chosen_refund_method",
    "no_refund_method_message",
    "refund_choice_instructions",
    "refund_choices",
    "refund_destination",
    "refund_only_to_message",
    "refund_question",
    "refund_said",
    "refunds_said",
]

METHOD_GONE_TIMING = "It goes back the way you paid, in five to seven business days."
"""When the method a refund goes to is no longer on the caller's account."""


def refund_said(amount: Decimal, method: PaymentMethod | None) -> str:
    """A refund as the caller hears it: "You get 48 dollars back. It reaches your Visa card
    ending in 4 2 4 2 in five to seven business days." `method` None: no longer on the
    caller's account."""
    timing = refund_timing(method) if method is not None else METHOD_GONE_TIMING
    return f"You get {spoken_amount(amount)} back. {timing}"


def refunds_said(refunds: Iterable[Transaction], methods: Sequence[PaymentMethod]) -> str:
    """Every refund in `refunds`, one sentence pair per method they go to, in the order
    the methods first appear; empty when there is none. Payments among them are not
    refunds, and are not said as money coming back."""
    by_method: dict[str, Decimal] = {}
    for refund in refunds:
        if refund.kind is not TransactionKind.REFUND:
            continue
        by_method[refund.method_id] = by_method.get(refund.method_id, Decimal(0)) + refund.amount
    known = {method.method_id: method for method in methods}
    return " ".join(
        refund_said(amount, known.get(method_id)) for method_id, amount in by_method.items()
    )


def refund_choices(
    order: OrderLookupResult | Order, methods: Sequence[PaymentMethod]
) -> list[PaymentMethod]:
    """Where the caller may have a return's refund sent, as the store allows: the methods
    that hold the order's money now (`held_by_method`, the one holding most first; after
    a change of payment method, the new one, never the one already paid back), then each
    other gift card of theirs."""
    held = held_by_method(order.payments)
    holding = sorted(
        (method for method in methods if method.method_id in held),
        key=lambda method: -held[method.method_id],
    )
    others = [m for m in methods if m.kind is PaymentKind.GIFT_CARD and m not in holding]
    return [*holding, *others]


REFUND_CHOICE_INSTRUCTIONS = dedent(
    """
    Also ask where the refund goes, and pass its id as refund_method_id; the first
    holds the order's money now:
    {methods}
    """
)


def refund_choice_instructions(choices: Sequence[PaymentMethod]) -> str:
    """The choices, for a specialist's instructions, when there is a choice; else empty."""
    if len(choices) < 2:
        return ""
    return REFUND_CHOICE_INSTRUCTIONS.format(methods=methods_listing(choices))


def refund_question(choices: Sequence[PaymentMethod]) -> str:
    """Where the refund should go, asked when there is a choice; empty when there is none."""
    if len(choices) < 2:
        return ""
    *first, last = [spoken_method(method) for method in choices]
    return f"Should the refund go to {', to '.join(first)}, or to {last}?"


def chosen_refund_method(
    choices: Sequence[PaymentMethod], refund_method_id: str | None
) -> PaymentMethod:
    """The method among `choices` the caller chose for the refund (the one choice when
    none was named); a speakable `ToolError` asking where when there is a choice and
    none was made, or naming the choices for any other."""
    if refund_method_id is None and len(choices) == 1:
        return choices[0]
    chosen = next((m for m in choices if m.method_id == (refund_method_id or "").strip()), None)
    if chosen is None:
        raise ToolError(refund_question(choices) or refund_only_to_message(choices[0]))
    return chosen


def refund_destination(method: PaymentMethod, amount: Decimal) -> str:
    """How much a return refunds, where it goes and when it arrives, for the read-back."""
    return (
        f"Once the items are back with us, you get {spoken_amount(amount)} back. "
        f"{refund_timing(method)}"
    )


def refund_only_to_message(method: PaymentMethod) -> str:
    return f"The refund for this order can only go to {spoken_method(method)}."


def no_refund_method_message(order_id: str) -> str:
    return (
        f"The payment method that paid for order {spoken_order_id(order_id)} is no longer on "
        f"your account, so I can't send its refund anywhere from here. {OFFER_HUMAN}"
    )
