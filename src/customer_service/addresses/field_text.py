"""The text of one address field: cleaned, bounded, refused when unusable, and the
`AddressProblem` that says so in a sentence the caller can hear.

Text that could harm a store or a log (control characters, quotes, semicolons,
megabytes of input) is refused here, so everything stored is literal, short and
printable. Messages repeat at most a short piece of what was given.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from customer_service.addresses.regions import SYMBOL_NAMES

__all__ = [
    "POSTAL_CODE_LIMIT",
    "SPOKEN_POSTAL_CODE_LIMIT",
    "AddressField",
    "AddressProblem",
    "capital",
    "echo",
    "field_text",
    "has_letter",
    "placeholder",
]

AddressField = Literal["street", "unit", "city", "region", "postal_code", "country"]


class AddressProblem(ValueError):
    """One field of an address cannot be used; `message` can be spoken to the caller."""

    def __init__(self, field: AddressField, message: str) -> None:
        super().__init__(message)
        self.field: AddressField = field
        self.message = message


# Longest text looked at: anything longer is refused before any other work is done.
_MAX_INPUT = 1_000
# Longest piece of the caller's input that a message repeats.
_MAX_ECHO = 30
_LIMITS: dict[AddressField, int] = {
    "street": 100,
    "unit": 30,
    "city": 60,
    "region": 60,
    "country": 60,
    # The code itself; said aloud ("nine four one oh seven") it may be longer.
    "postal_code": 12,
}
SPOKEN_POSTAL_CODE_LIMIT = 80
POSTAL_CODE_LIMIT = _LIMITS["postal_code"]

# Whitespace that collapses into one space; every other control or format character
# (NUL, escape, zero-width space, bidi overrides, ...) is refused.
_SPACES = re.compile(r"[\t\n\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2212", "-"))
_PUNCTUATION = frozenset(" .,'\u2019#/-&()\u00ba\u00aa\u00b0")
_ALLOWED_HINT = (
    "Please use only letters, numbers, spaces and ordinary punctuation "
    "like periods, commas, hyphens and slashes."
)


def placeholder(label: str, text: str, example: str) -> str:
    return (
        f"{capital(label)}{echo(text)} looks like a placeholder rather than part of a real "
        f"address. {example}"
    )


def field_text(
    field: AddressField,
    raw: str | None,
    label: str,
    *,
    limit: int | None = None,
    hint: str | None = None,
) -> str:
    """`raw` normalised ("" if absent), refused if too long or with unusable characters."""
    if raw is None:
        return ""
    limit = _LIMITS[field] if limit is None else limit
    too_long = (
        f"{capital(label)} is too long. {hint}."
        if hint
        else f"{capital(label)} is too long: it can have at most {limit} characters. "
        "Please give a shorter form."
    )
    if len(raw) > _MAX_INPUT:
        raise AddressProblem(field, too_long)
    text = _SPACES.sub(" ", unicodedata.normalize("NFC", raw).translate(_DASHES)).strip(" ")
    if len(text) > limit:
        raise AddressProblem(field, too_long)
    if any(unicodedata.category(char)[0] == "C" for char in text):
        raise AddressProblem(
            field,
            f"{capital(label)} has a hidden control or formatting character in it, "
            f"so I can't use it as given. {_ALLOWED_HINT}",
        )
    for char in text:
        if unicodedata.category(char)[0] not in "LMN" and char not in _PUNCTUATION:
            raise AddressProblem(
                field, f"{capital(label)} can't contain {_describe(char)}. {_ALLOWED_HINT}"
            )
    return text


def _describe(char: str) -> str:
    """How to say a refused character: "a semicolon", "a black heart suit symbol"."""
    if char in SYMBOL_NAMES:
        return SYMBOL_NAMES[char]
    name = unicodedata.name(char, "").lower()
    if not name or len(name) > _MAX_ECHO:
        return "an unusual symbol"
    article = "an" if name[0] in "aeiou" else "a"
    return f"{article} {name} symbol"


def echo(text: str) -> str:
    """`text` with a leading space, to repeat in a message; empty if too long to say back."""
    return f" {text}" if len(text) <= _MAX_ECHO else ""


def capital(label: str) -> str:
    return label[:1].upper() + label[1:]


def has_letter(text: str) -> bool:
    return any(unicodedata.category(char)[0] == "L" for char in text)
