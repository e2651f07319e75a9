"""The verified caller's payment methods as specialists speak of them, list them to their
model and take the model's choice of one.

A method is chosen by its id from the caller's own methods, read from the store in
code: an id the model invents or copies from elsewhere is simply not among them, so no
choice can reach another customer's card. How a refund travels is said here once, for
every specialist that moves money.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Annotated

from livekit.agents import ToolError
from pydantic import Field

from customer_service.call.speakable import spoken_list
from customer_service.call.wording import quoted
from customer_service.domain import PaymentKind, PaymentMethod

__all__ = [
    "PaymentMethodId",
    "chosen_method",
    "methods_listing",
    "refund_timing",
    "spoken_amount",
    "spoken_method",
]

PaymentMethodId = Annotated[
    str,
    Field(description="The id of one of the caller's payment methods, as listed to you."),
]
"""A specialist tool's payment-method argument; checked by `chosen_method`."""

LISTING_LINE = "- {method_id}: {method}"
"""One method in a specialist's instructions: its id for the tool, then what it is."""


def spoken_amount(amount: Decimal) -> str:
    """An amount for the ear: "12 dollars and 50 cents", "40 dollars", "75 cents"."""
    cents = int((abs(amount) * 100).to_integral_value())
    dollars, rest = divmod(cents, 100)
    parts = []
    if dollars:
        parts.append(f"{dollars:,} dollar{'s' if dollars != 1 else ''}")
    if rest or not dollars:
        parts.append(f"{rest} cent{'s' if rest != 1 else ''}")
    return " and ".join(parts)


def spoken_method(method: PaymentMethod, *, for_the_model: bool = False) -> str:
    """A method as the caller knows it: "your Visa card ending in 4 2 4 2", "your PayPal
    account", "your gift card, which has 40 dollars on it". The brand is stored text,
    quoted `for_the_model`."""
    if method.kind is PaymentKind.PAYPAL:
        return "your PayPal account"
    if method.kind is PaymentKind.GIFT_CARD:
        balance = spoken_amount(method.balance or Decimal(0))
        return f"your gift card, which has {balance} on it"
    brand = (method.brand or "credit").title()
    shown = quoted(brand) if for_the_model else brand
    ending = f" ending in {' '.join(method.last_four)}" if method.last_four else ""
    return f"your {shown} card{ending}"


def methods_listing(methods: Sequence[PaymentMethod]) -> str:
    """The caller's methods for a specialist's instructions, one line each with its id."""
    return "\n".join(
        LISTING_LINE.format(
            method_id=method.method_id, method=spoken_method(method, for_the_model=True)
        )
        for method in methods
    )


def chosen_method(methods: Sequence[PaymentMethod], method_id: str) -> PaymentMethod:
    """The caller's method with `method_id`; a speakable `ToolError` naming the caller's
    methods when it is none of theirs."""
    for method in methods:
        if method.method_id == method_id.strip():
            return method
    if not methods:
        raise ToolError("There is no payment method on your account I can use for that.")
    offered = spoken_list([spoken_method(method) for method in methods])
    raise ToolError(f"I can use {offered}. Which would you like?")


def refund_timing(method: PaymentMethod) -> str:
    """When money sent back to `method` reaches the caller, as a sentence."""
    if method.kind is PaymentKind.GIFT_CARD:
        return "It goes back onto your gift card straight away."
    return f"It reaches {spoken_method(method)} in five to seven business days."
