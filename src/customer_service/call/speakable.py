"""Text made for the ear: the one place that decides how numbers, dates, counts and lists
sound, so the same order number or date sounds the same in every sentence of the call.

Tool outputs pass stored text through `name` (`wording.quoted`) so the model reads it as
data; what code says straight to the caller passes it through unchanged.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence

from customer_service.domain import OrderItem

SPOKEN_GROUP = 3
"""Characters read out together before a pause: what a listener can write down."""

_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty"}
_ORDINAL_UNITS = [
    "zeroth",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
]
_ORDINAL_TENS = {2: "twentieth", 3: "thirtieth", 4: "fortieth", 5: "fiftieth"}


def spaced_digits(number: str) -> str:
    """A tracking or return number as it is read aloud for a listener to write down: one
    character at a time, in groups of three with a pause between ("1 Z 9, 9 9 A, ...").
    An order number is read out by `order_numbers.spoken_order_id`."""
    groups = [number[start : start + SPOKEN_GROUP] for start in range(0, len(number), SPOKEN_GROUP)]
    return ", ".join(" ".join(group) for group in groups)


def count_word(number: int) -> str:
    """A small count as a word ("two"); from sixty on, its digits."""
    if 0 <= number < len(_UNITS):
        return _UNITS[number]
    tens, units = divmod(number, 10)
    if tens not in _TENS:
        return str(number)
    return _TENS[tens] if units == 0 else f"{_TENS[tens]}-{_UNITS[units]}"


def ordinal_word(number: int) -> str:
    """A small position or day as a word ("second", "twenty-first"); from sixty on, digits."""
    if 0 <= number < len(_ORDINAL_UNITS):
        return _ORDINAL_UNITS[number]
    tens, units = divmod(number, 10)
    if tens not in _TENS:
        return f"{number}th"
    return _ORDINAL_TENS[tens] if units == 0 else f"{_TENS[tens]}-{_ORDINAL_UNITS[units]}"


def spoken_date(day: dt.date) -> str:
    """A date in words, month then day: "November second"."""
    return f"{day:%B} {ordinal_word(day.day)}"


def placed_on_phrase(day: dt.date | None) -> str:
    """ ", placed on November second" after an order's number or item; nothing for an order
    whose date the store does not know."""
    return "" if day is None else f", placed on {spoken_date(day)}"


def spoken_list(phrases: Sequence[str]) -> str:
    """Phrases as one natural phrase: "a, b and c"; never semicolons."""
    if len(phrases) <= 1:
        return "".join(phrases)
    return f"{', '.join(phrases[:-1])} and {phrases[-1]}"


def _plural(name: str) -> str:
    # The noun before any qualifier ("Linen duvet cover, double") takes the plural.
    noun, comma, rest = name.partition(",")
    lowered = noun.lower()
    if lowered.endswith(("ss", "x", "z", "ch", "sh")):
        noun += "es"
    elif lowered.endswith("s"):
        pass  # already plural ("headphones")
    elif lowered.endswith("y") and lowered[-2:-1] not in tuple("aeiou"):
        noun = noun[:-1] + "ies"
    else:
        noun += "s"
    return noun + comma + rest


def looks_plural(name: str) -> bool:
    """Whether a product's name is a plural noun ("Wireless headphones", "Yoga blocks"),
    which takes "come", not "comes", and no article."""
    noun = name.partition(",")[0].lower()
    return noun.endswith("s") and not noun.endswith("ss")


def item_phrase(item: OrderItem, name: Callable[[str], str] = str) -> str:
    """One item with its quantity as said: "a yoga mat", "two yoga blocks"."""
    said = item.name  # as stored: a listener hears no capitals, and quoted data stays exact
    if item.quantity != 1:
        return f"{count_word(item.quantity)} {name(_plural(said))}"
    if looks_plural(said):
        return name(said)  # "headphones", not "a headphones"
    article = "an" if said[:1].lower() in tuple("aeio") else "a"
    return f"{article} {name(said)}"


def spoken_items(items: Iterable[OrderItem], name: Callable[[str], str] = str) -> str:
    """Items as one natural phrase: "a yoga mat and two yoga blocks". Two items of one
    product are told apart by the options that differ: "a Tea Kettle with material
    glass and a Tea Kettle with material ceramic"."""
    listed = list(items)
    return spoken_list([_told_apart(item, listed, name) for item in listed])


def _told_apart(item: OrderItem, items: Sequence[OrderItem], name: Callable[[str], str]) -> str:
    phrase = item_phrase(item, name)
    namesakes = [other for other in items if other.name == item.name and other is not item]
    differing = [
        key
        for key, value in item.options.items()
        if any(other.options.get(key) != value for other in namesakes)
    ]
    if not differing:
        return phrase
    options = spoken_list([f"{key} {name(item.options[key])}" for key in differing])
    return f"{phrase} with {options}"


def main_item(items: Sequence[OrderItem], name: Callable[[str], str] = str) -> str:
    """What an order is, in a few words: its first item, and how many others it holds."""
    first = item_phrase(items[0], name)
    others = len(items) - 1
    if others == 0:
        return first
    return f"{first} and {count_word(others)} other item{'s' if others > 1 else ''}"
