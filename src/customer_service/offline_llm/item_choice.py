"""Which of an order's items a caller's words name ("the mat", "the water bottles"), and
the items and their variants a specialist's instructions list, for the version the
caller describes (`spoken.variant_words`).

Items are named by the last word of their name before any qualifier, singular or
plural.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import TypeVar

from customer_service.call.wording import unquoted
from customer_service.spoken.variant_words import (
    ListedItem,
    ListedVariant,
    Several,
    Unavailable,
    variant_described,
)

__all__ = [
    "ListedItem",
    "ListedVariant",
    "Several",
    "Unavailable",
    "head_noun",
    "item_segments",
    "items_named",
    "listed_items",
    "paid_with",
    "variant_described",
]

KeyT = TypeVar("KeyT")

# The listing of `call.item_swaps.swap_listing`; stored text is quoted, so has no quotes.
_ITEM_LINE = re.compile(r'^- item (\S+): "([^"]*)", quantity (\d+), (.*), price ([\d.]+)\.')
_VARIANT_LINE = re.compile(r"^  - (\S+): (.*), price ([\d.]+), (available|not available)$")
_OPTION = re.compile(r'"([^":]*): ([^"]*)"')
_PAID_WITH = re.compile(r"^The order was paid with: (\S+)$", re.MULTILINE)


def _options(listed: str) -> dict[str, str]:
    return dict(_OPTION.findall(listed))


def listed_items(instructions: str) -> list[ListedItem]:
    """The order's items and their variants, as the swap listing gives them."""
    items: list[ListedItem] = []
    variants: list[ListedVariant] = []
    for line in instructions.splitlines():
        if (item := _ITEM_LINE.match(line)) is not None:
            if items:
                items[-1] = _with(items[-1], variants)
            item_id, name, quantity, options, price = item.groups()
            items.append(
                ListedItem(item_id, name, int(quantity), _options(options), Decimal(price), ())
            )
            variants = []
        elif (variant := _VARIANT_LINE.match(line)) is not None and items:
            item_id, options, price, available = variant.groups()
            variants.append(
                ListedVariant(item_id, _options(options), Decimal(price), available == "available")
            )
    if items:
        items[-1] = _with(items[-1], variants)
    return items


def _with(item: ListedItem, variants: list[ListedVariant]) -> ListedItem:
    return ListedItem(
        item.item_id, item.name, item.quantity, item.options, item.price, tuple(variants)
    )


def paid_with(instructions: str) -> str | None:
    """The id of the method that paid the order, as the listing gives it."""
    found = _PAID_WITH.search(instructions)
    return found.group(1) if found else None


def head_noun(name: str) -> str:
    """What an item is asked for by: "Cork yoga mat" is "the mat", "Linen duvet cover,
    double" is "the cover"."""
    return unquoted(name).partition(",")[0].split()[-1].lower()


def _mentions(name: str, said: str) -> list[re.Match[str]]:
    noun = re.escape(head_noun(name))
    return list(re.finditer(rf"\b{noun}(?:s|es)?\b", said))


def items_named(names: Mapping[KeyT, str], said: str) -> list[KeyT]:
    """The keys of the items whose names the caller's (normalised) words mention."""
    return [key for key, name in names.items() if _mentions(name, said)]


def item_segments(items: list[ListedItem], said: str) -> dict[str, str]:
    """Each item the caller's words name, with the words about it: from its mention (the
    first item's from the start) to the mention of the next one. An order of one item is
    named by any words."""
    found = sorted(
        (match.start(), item.item_id) for item in items for match in _mentions(item.name, said)[:1]
    )
    if not found:
        return {items[0].item_id: said} if len(items) == 1 else {}
    segments = {}
    for index, (mentioned_at, item_id) in enumerate(found):
        start = mentioned_at if index else 0
        end = found[index + 1][0] if index + 1 < len(found) else len(said)
        segments[item_id] = said[start:end]
    return segments
