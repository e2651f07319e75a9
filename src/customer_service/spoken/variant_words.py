"""Which version of an item a caller's words describe ("the same one but in green", "the
6 mm one", "the 750 one", "the bigger one"), among its product's variants.

A variant is named by its option values (said the way they are stored, "6 mm" or "6mm",
in words or digits, or a measure by its number alone), or by a comparison ("bigger",
"thinner") on the one option whose values are measures; what the caller does not
mention, or says stays the same ("same size"), stays as the item is. The choice is only
ever among the given variants of that item's product. The offline model reads them from
a swap's listing (`offline_llm.item_choice`); the code, from the store
(`call.callers_request`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from customer_service.call.answers import Phrases, normalise
from customer_service.spoken.numbers import numerals

__all__ = [
    "ListedItem",
    "ListedVariant",
    "Several",
    "Unavailable",
    "variant_described",
]

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


def _kept_as_is(option: str, heard: str) -> bool:
    """Whether the words keep `option` as the item has it: "same size", "the size stays"."""
    name = re.escape(_spoken_form(option))
    return re.search(rf"\bsame {name}\b|\b{name} (?:stays|is the same)\b", heard) is not None


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
        elif name in item.options and _kept_as_is(name, heard):
            named[name] = item.options[name]
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
