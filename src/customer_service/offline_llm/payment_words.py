"""Which of the caller's payment methods their words name, among those a specialist's
instructions list (`call.payment_methods.methods_listing`): "the gift card", "my PayPal",
"the Visa", "the card ending in 4242"."""

from __future__ import annotations

import re

from customer_service.call.answers import normalise
from customer_service.call.wording import unquoted

__all__ = ["listed_methods", "method_named", "methods_as_said"]

# A listing line: '- credit_card_9000101: your "Visa" card ending in 4 2 4 2'.
_LISTING_LINE = re.compile(r"^- (\S+): (your .+)$", re.MULTILINE)
_KINDS = {"gift card": "gift card", "paypal": "paypal account", "credit card": "card ending"}


def listed_methods(instructions: str) -> dict[str, str]:
    """The listed methods: id to what it is, normalised ("your visa card ending in 4 2 4 2")."""
    return {
        method_id: normalise(unquoted(description))
        for method_id, description in _LISTING_LINE.findall(instructions)
    }


def methods_as_said(instructions: str) -> list[str]:
    """The listed methods as the caller hears them ("your Visa card ending in 4 2 4 2")."""
    return [unquoted(description) for _, description in _LISTING_LINE.findall(instructions)]


def method_named(instructions: str, line: str) -> str | None:
    """The id of the one listed method the caller's line names, if exactly one fits."""
    said = normalise(line)
    digits = "".join(re.findall(r"\d", said))
    fitting = []
    for method_id, description in listed_methods(instructions).items():
        last_four = "".join(re.findall(r"\d", description.partition("card ending")[2]))
        brand = description.removeprefix("your ").split()[0]
        if (
            (last_four and digits.endswith(last_four))
            or any(words in said and kind in description for words, kind in _KINDS.items())
            or (brand not in {"gift", "paypal"} and re.search(rf"\b{re.escape(brand)}\b", said))
            or ("card" in said.split() and "card ending" in description and "gift" not in said)
        ):
            fitting.append(method_id)
    return fitting[0] if len(fitting) == 1 else None
