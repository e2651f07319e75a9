"""Which of an order's items a caller's words name ("the mat", "the water bottles"), and
which variant of one ("the same one but in green", "the 6 mm one", "with clicky
switches", "the bigger one"), among what a specialist's instructions list.

Items are named by the last word of their name before any qualifier, singular or
plural. A variant is named by its option values (said the way they are stored, "6 mm"
or "6mm"), or by a comparison ("bigger", "thinner") on the one option whose values are
measures; what the caller does not mention stays as the item is. The choice is only
ever among the listed variants of that item's product.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TypeVar

from customer_service.call.answers import Phrases, normalise
from customer_service.call.wording import unquoted
from customer_service.spoken.numbers import numerals

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

_BIGGER = Phrases(["bigger", "larger", "longer", "thicker", "taller", "higher"])
_SMALLER = Phrases(["smaller", "shorter", "thinner", "lower"])
_SAME = Phrases(["same one", "same ones", "the same", "new one", "new ones", "replacement"])
_UNITS = (
    (re.compile(r"\bmillimet(?:er|re)s?\b"), "mm"),
    (re.compile(r"\bmillilit(?:er|re)s?\b"), "ml"),
    (re.compile(r"\bcentimet(?:er|re)s?\b"), "cm"),
    (re.compile(r"\bmet(?:er|re)s?\b"), "m"),
    (re.compile(r"\binch(?:es)?\b"), "inch"),
    (re.compile(r"\b(?:foot|feet)\b"), "ft"),
)
# A measure said by its number alone: "the 750 one" for "750ml".
_NUMBER_ALONE = re.compile(r"(\d+(?:\.\d+)?) [a-z]+")


@dataclass(frozen=True)
class ListedVariant:
    item_id: str
    options: dict[str, str]
    price: Decimal
    available: bool


@dataclass(frozen=True)
class ListedItem:
    """One of the order's items, with every variant of its product."""

    item_id: str
    name: str
    quantity: int
    options: dict[str, str]
    price: Decimal
    variants: tuple[ListedVariant, ...]


@dataclass(frozen=True)
class Unavailable:
    """The caller named a version that exists but cannot be had now."""

    variant: ListedVariant


@dataclass(frozen=True)
class Several:
    """The caller's words fit more than one available version."""

    variants: tuple[ListedVariant, ...]


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


def _spoken_form(text: str) -> str:
    text = re.sub(r"(\d)([a-z])", r"\1 \2", numerals(normalise(text)))
    for pattern, unit in _UNITS:
        text = pattern.sub(unit, text)
    return text


def _measure(value: str) -> Decimal | None:
    number = re.match(r"\s*(\d+(?:\.\d+)?)", value)
    return Decimal(number.group(1)) if number else None


def _compared(item: ListedItem, said: str) -> dict[str, str]:
    """The option a comparison ("the bigger one") changes, with its next value."""
    direction = 1 if _BIGGER.found_in(said) else -1 if _SMALLER.found_in(said) else 0
    measured = [
        name
        for name in item.options
        if all(_measure(variant.options.get(name, "")) is not None for variant in item.variants)
    ]
    if not direction or len(measured) != 1:
        return {}
    (name,) = measured
    current = _measure(item.options[name]) or Decimal(0)
    values = {variant.options[name] for variant in item.variants}
    beyond = [
        value for value in values if ((_measure(value) or Decimal(0)) - current) * direction > 0
    ]
    if not beyond:
        return {}
    return {name: min(beyond, key=lambda value: abs((_measure(value) or Decimal(0)) - current))}


def _said_by_number(value: str, values: set[str], heard: str) -> bool:
    """Whether the caller named a measure by its number alone ("the 750 one" for
    "750ml"), when no other value of the option has that number."""
    alone = _NUMBER_ALONE.fullmatch(_spoken_form(value))
    if alone is None:
        return False
    number = alone.group(1)
    same = [other for other in values if _spoken_form(other).split(" ")[0] == number]
    said = re.search(rf"(?<![\w.]){re.escape(number)}(?![\w.])", heard)
    return len(same) == 1 and said is not None


def _mentioned(item: ListedItem, said: str) -> dict[str, str]:
    """The option values the caller's words name, a new value before the item's own."""
    heard = _spoken_form(said)
    named: dict[str, str] = {}
    for name in dict.fromkeys(key for variant in item.variants for key in variant.options):
        values = {variant.options[name] for variant in item.variants if name in variant.options}
        said_values = [
            value
            for value in sorted(values)
            if re.search(rf"(?<![\w.]){re.escape(_spoken_form(value))}(?![\w])", heard)
            or _said_by_number(value, values, heard)
        ]
        new = [value for value in said_values if value != item.options.get(name)]
        if new or said_values:
            named[name] = (new or said_values)[0]
    # "A bigger green one": the comparison adds to the values said, never overrides one.
    return _compared(item, heard) | named


def variant_described(item: ListedItem, said: str) -> ListedVariant | Unavailable | Several | None:
    """The variant of `item`'s product the caller's words describe; what they leave out
    stays as the item is. `Unavailable` when the only fitting ones cannot be had,
    `Several` when more than one available fits, None when the words name none."""
    wanted = _mentioned(item, said)
    if not wanted:
        same = _SAME.found_in(normalise(said))
        return next((v for v in item.variants if v.item_id == item.item_id), None) if same else None
    fitting = [
        variant
        for variant in item.variants
        if all(variant.options.get(name) == value for name, value in wanted.items())
    ]

    def kept(variant: ListedVariant) -> int:
        return sum(variant.options.get(name) == value for name, value in item.options.items())

    available = [variant for variant in fitting if variant.available]
    for among in (available, fitting):
        if among:
            closest = max(kept(variant) for variant in among)
            best = tuple(variant for variant in among if kept(variant) == closest)
            if among is fitting:
                return Unavailable(best[0])
            return best[0] if len(best) == 1 else Several(best)
    return None
