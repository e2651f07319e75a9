"""Whether a caller's word names an item, the way people say it: a word of the product's
name, the head of a compound name ("watch" for a Wristwatch, "glasses" for Sunglasses),
the name said as one word ("tshirt"), an everyday word for it ("bike" for a Bicycle),
or, where the caller picks between items they heard, one of its options ("the blue one",
"the large one").

Everything but the everyday words is derived from the name and options themselves, so a
catalog's new products are matched without a list of them. The everyday words are
general English (clippings and broader words), not any catalog's product names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from customer_service.spoken.numbers import WORDS_UNDER_TWENTY, numerals

__all__ = [
    "EVERYDAY_WORDS",
    "SIZE_WORDS",
    "name_words",
    "names_item",
    "option_key",
    "option_words",
    "singular",
]

_WORD = re.compile(r"[a-z0-9]+")
_COMPOUND_HEAD = 3
"""The fewest letters of a compound name's head said on its own ("bud", "watch")."""

EVERYDAY_WORDS: Mapping[str, frozenset[str]] = {
    word: frozenset(meanings)
    for word, meanings in {
        # Clippings and everyday names: a word people say for a longer one.
        "bike": {"bicycle"},
        "cycle": {"bicycle"},
        "mobile": {"smartphone", "phone"},
        "cellphone": {"smartphone", "phone"},
        "cell": {"smartphone", "phone"},
        "telly": {"television"},
        "tv": {"television"},
        "fridge": {"refrigerator"},
        "mic": {"microphone"},
        "cam": {"camera"},
        "specs": {"glasses"},
        "shades": {"sunglasses"},
        "tee": {"shirt"},
        "hoover": {"vacuum"},
        "bbq": {"grill"},
        "barbecue": {"grill"},
        "suitcase": {"luggage"},
        "weights": {"dumbbell"},
        "earphones": {"headphones", "earbuds"},
        "fragrance": {"perfume"},
        "cologne": {"perfume"},
        # Broader words: a word for a kind that covers narrower ones.
        "shoes": {"sneakers", "boots", "trainers"},
        "footwear": {"shoes", "sneakers", "boots"},
        "trainers": {"sneakers", "shoes"},
        "coat": {"jacket"},
        "bag": {"backpack", "luggage"},
        "light": {"lamp", "bulb"},
        "machine": {"maker"},
        "computer": {"laptop", "tablet"},
    }.items()
}
"""General English: a word callers say, and the words of product names it may mean."""

# Sizes said as words match the letters stored ("large" for "L").
SIZE_WORDS = {
    "extra small": "xs",
    "small": "s",
    "medium": "m",
    "large": "l",
    "extra large": "xl",
    "extra extra large": "xxl",
}


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("es") and word[:-2].endswith(("ss", "x", "ch", "sh")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def name_words(name: str) -> frozenset[str]:
    """The words a product's name can be called by: each word, the name said as one
    word, and (of a compound word) its head."""
    words = [singular(word) for word in _WORD.findall(name.lower())]
    found = set(words)
    if len(words) > 1:
        found.add(singular("".join(words)))
    return frozenset(found)


def _head_of(word: str, name: Iterable[str]) -> bool:
    return len(word) >= _COMPOUND_HEAD and any(
        part.endswith(word) and len(part) > len(word) for part in name
    )


def _meanings(word: str) -> set[str]:
    said = singular(word.lower())
    return (
        {said}
        | {singular(meaning) for meaning in EVERYDAY_WORDS.get(said, ())}
        | {singular(meaning) for meaning in EVERYDAY_WORDS.get(word.lower(), ())}
    )


def option_words(options: Mapping[str, str]) -> frozenset[str]:
    """The words of an item's option values, with sizes said as words ("large" for
    "L") and numbers as digits: what "the blue one", "the large one" match."""
    found: set[str] = set()
    for value in options.values():
        found.update(_WORD.findall(value.lower()))
    return frozenset(found)


def _option_word(word: str) -> str:
    lowered = word.lower()
    return SIZE_WORDS.get(lowered, WORDS_UNDER_TWENTY.get(lowered, lowered))


def option_key(value: str) -> str:
    """An option value as compared, said or stored: "6mm" and "6 mm" are "6mm", "ten"
    and "10" are "10"."""
    return re.sub(r"[^a-z0-9]", "", numerals(value.lower()))


def names_item(word: str, name: str, options: Mapping[str, str] | None = None) -> bool:
    """Whether `word`, said by the caller, names the item called `name`; with its
    `options`, a word for one of them counts too."""
    called = name_words(name)
    if any(meaning in called or _head_of(meaning, called) for meaning in _meanings(word)):
        return True
    return options is not None and _option_word(word) in option_words(options)
