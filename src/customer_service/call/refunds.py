"""Money going back to the caller, said the same way by every specialist that sends it:
how much, and when it reaches which of their methods (`payment_methods.refund_timing`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

from customer_service.call.payment_methods import refund_timing, spoken_amount
from customer_service.domain import PaymentMethod, Transaction, TransactionKind

__all__ = ["METHOD_GONE_TIMING", "refund_said", "refunds_said"]

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
