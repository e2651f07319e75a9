"""Check a postal address a caller gave against its country's rules.

The rules (regions, postal-code patterns per country and per region) come from Google's
address metadata through `country_rules`. `validated_address` turns the arguments of
`record_address` into a `PostalAddress`, or raises `AddressProblem` for the first field
that cannot be used. The problem's message is a sentence that can be spoken to the
caller as it is: it names the field in plain words, says what is wrong and what to
check, and repeats at most a short piece of what was given. Text that could harm a
store or a log (control characters, quotes, semicolons, megabytes of input) is refused
here, so everything stored is literal, short and printable; so are placeholders ("N/A",
"x", an all-zero postal code). Pure and synchronous; the specialist turns a problem
into a `ToolError`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Literal

from customer_service.addresses.country_rules import (
    CountryRules,
    country_code,
    country_rules,
    lookup_key,
)
from customer_service.addresses.regions import PLACEHOLDERS, SYMBOL_NAMES
from customer_service.domain import PostalAddress
from customer_service.normalize import normalize_postal_code

__all__ = ["AddressField", "AddressProblem", "validated_address"]

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
_SPOKEN_POSTAL_CODE_LIMIT = 80

# Whitespace that collapses into one space; every other control or format character
# (NUL, escape, zero-width space, bidi overrides, ...) is refused.
_SPACES = re.compile(r"[\t\n\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2212", "-"))
_PUNCTUATION = frozenset(" .,'\u2019#/-&()\u00ba\u00aa\u00b0")
_ALLOWED_HINT = (
    "Please use only letters, numbers, spaces and ordinary punctuation "
    "like periods, commas, hyphens and slashes."
)
_CA_SHAPE = re.compile(r"[A-Z][0-9][A-Z][0-9][A-Z][0-9]")

_STREET_EXAMPLE = "Please give the house number and street name, like 500 Howard Street."
_CITY_EXAMPLE = "Please give the name of the city or town, like San Francisco."

# How the compact upper-case code is written where the metadata's pattern allows
# several forms ("941071234" and "94107 1234" are both "94107-1234").
_POSTAL_LAYOUTS: dict[str, Callable[[str], str]] = {
    "US": lambda code: code if len(code) == 5 else f"{code[:5]}-{code[5:]}",
    "CA": lambda code: f"{code[:3]} {code[3:]}",
    "GB": lambda code: code if code.startswith("BFPO") else f"{code[:-3]} {code[-3:]}",
    "NL": lambda code: f"{code[:4]} {code[4:]}",
    "FR": lambda code: code,
}
_POSTAL_HINTS = {
    "US": "US ZIP codes have five digits, like 94107, or nine digits with the ZIP+4, "
    "like 94107-1234",
    "CA": "Canadian postal codes go letter, number, letter, number, letter, number, like K1A 0B1",
    "GB": "UK postcodes look like SW1A 1AA or M1 1AE",
    "DE": "German postal codes have five digits, like 10115",
    "FR": "French postal codes have five digits, like 75001",
    "ES": "Spanish postal codes have five digits starting with 01 to 52, like 28013",
}
# Codes that fill the field without being a place: an assigned code is never all zeros,
# and 99999 is the American form's "unknown".
_PLACEHOLDER_POSTAL = re.compile(r"[0\W]+|99999")
_CA_LETTERS_HINT = (
    "Canadian postal codes never use the letters D, F, I, O, Q or U, and never start with W or Z"
)


def validated_address(
    *,
    street: str,
    city: str,
    region: str | None,
    postal_code: str,
    country: str,
    unit: str | None = None,
) -> PostalAddress:
    """The address normalised, or `AddressProblem` for its first unusable field.

    Fields are checked in the order country, street, unit, city, region, postal code,
    then whether the postal code belongs to the region. Countries become ISO alpha-2
    codes, regions the code of the country's metadata (US states "CA", Spanish provinces
    "M"), postal codes their national written form ("k1a0b1" -> "K1A 0B1"). A missing
    region is taken from the postal code when only one region's codes start that way;
    a region the country's addresses do not carry (UK, Germany, France) is left out.
    Other text is kept as given, apart from Unicode NFC and whitespace. Validating a
    returned address again gives the same address.
    """
    # One statement per field, so the first problem raised is the first in this order.
    rules = country_rules(_country(country))
    street_text = _street(street)
    unit_text = _unit(unit)
    city_text = _city(city)
    region_text = _region(region, rules)
    postal_code_text = _postal_code(postal_code, rules)
    return PostalAddress(
        street=street_text,
        unit=unit_text,
        city=city_text,
        region=_region_of_postal_code(region_text, postal_code_text, rules),
        postal_code=postal_code_text,
        country=rules.code,
    )


def _country(raw: str) -> str:
    text = _text("country", raw, "the country")
    if not text:
        raise AddressProblem(
            "country",
            "The country is missing. Please say which country the address is in, "
            "like United States or Canada.",
        )
    code = country_code(text)
    if code is None:
        raise AddressProblem(
            "country",
            f"The country{_echo(text)} isn't one I recognise. Please say the country's "
            "full name, like United States or Canada.",
        )
    return code


def _street(raw: str) -> str:
    text = _text("street", raw, "the street")
    if not text:
        raise AddressProblem(
            "street",
            "The street is missing. Please give the house number and street name, "
            "like 500 Howard Street.",
        )
    if lookup_key(text) in PLACEHOLDERS:
        raise AddressProblem("street", _placeholder("the street", text, _STREET_EXAMPLE))
    if not _has_letter(text):
        raise AddressProblem(
            "street",
            f"The street{_echo(text)} doesn't look right: it needs the street name, "
            f"not just a number. {_STREET_EXAMPLE}",
        )
    return text


def _unit(raw: str | None) -> str | None:
    text = _text("unit", raw, "the apartment or unit")
    if not text or lookup_key(text) in PLACEHOLDERS - {""}:
        return None
    if not any(char.isalnum() for char in text):
        raise AddressProblem(
            "unit",
            f"The apartment or unit{_echo(text)} doesn't look right: it should be "
            "something like Apt 4B or Suite 200.",
        )
    return text


def _city(raw: str) -> str:
    text = _text("city", raw, "the city")
    if not text:
        raise AddressProblem(
            "city", "The city is missing. Please give the name of the city or town."
        )
    if lookup_key(text) in PLACEHOLDERS:
        raise AddressProblem("city", _placeholder("the city", text, _CITY_EXAMPLE))
    if not _has_letter(text) or any(unicodedata.category(char)[0] == "N" for char in text):
        raise AddressProblem(
            "city",
            f"The city{_echo(text)} doesn't look right: it should be the name of the city "
            f"or town, without numbers. {_CITY_EXAMPLE}",
        )
    return text


def _region(raw: str | None, rules: CountryRules) -> str:
    """The region's code, or its text where the country has no list; "" when not said."""
    label = f"the {rules.region_label}"
    text = _text("region", raw, label)
    code = rules.region_code(text) if text else None
    # A region's own code first: "NA" is Navarra before it is "not applicable".
    if code is not None:
        return code
    if lookup_key(text) in PLACEHOLDERS:
        return ""
    if rules.has_region and not rules.region_required and not _names_north_american_region(text):
        # A region the metadata does not list, where none is needed: kept as said.
        return text
    if not rules.regions:
        if rules.has_region:
            return text
        if _names_north_american_region(text):
            raise AddressProblem(
                "region",
                f"The region{_echo(text)} sounds like a US state or Canadian province, "
                f"which an address in {rules.name_in_sentence} doesn't have. "
                "Please check the country, or leave the region out.",
            )
        # Not part of this country's addresses: nothing to write or read back.
        return ""
    raise AddressProblem(
        "region",
        f"{_capital(label)}{_echo(text)} isn't one I recognise in {rules.name_in_sentence}. "
        f"Please check the country, or give {_region_hint(rules)}",
    )


def _names_north_american_region(text: str) -> bool:
    key = lookup_key(text)
    return any(key in country_rules(code).region_codes for code in ("US", "CA"))


def _region_hint(rules: CountryRules) -> str:
    examples = {"US": ("California", "CA"), "CA": ("Ontario", "ON")}
    if rules.code in examples:
        name, code = examples[rules.code]
        return (
            f"the {rules.region_label}'s full name or its two-letter code, like {name} or {code}."
        )
    first = next(iter(rules.regions.values()), None)
    example = f", like {first.name}" if first else ""
    return f"the {rules.region_label}'s name{example}."


def _region_of_postal_code(region: str, postal_code: str, rules: CountryRules) -> str:
    """`region`, checked against the postal code, or found from it when not given."""
    label = "the ZIP code" if rules.postal_label == "ZIP code" else f"the {rules.postal_label}"
    if region in rules.regions:
        prefix = rules.regions[region].postal_prefix
        if postal_code and prefix is not None and not prefix.match(postal_code):
            name = rules.regions[region].name
            raise AddressProblem(
                "postal_code",
                f"{_capital(label)} {postal_code} isn't one for {name}. "
                f"Please check {label} or the {rules.region_label}.",
            )
        return region
    if region:
        return region
    matches = [
        code
        for code, found in rules.regions.items()
        if postal_code
        and found.postal_prefix is not None
        and found.postal_prefix.match(postal_code)
    ]
    if len(matches) == 1:
        return matches[0]
    if not rules.region_required:
        return ""
    prefixes = [found.postal_prefix for found in rules.regions.values()]
    if postal_code and prefixes and not matches and all(prefixes):
        raise AddressProblem(
            "postal_code",
            f"{_capital(label)} {postal_code} isn't one in {rules.name_in_sentence}. "
            f"Please check {label} or the country.",
        )
    raise AddressProblem(
        "region",
        f"The {rules.region_label} is missing. Addresses in {rules.name_in_sentence} need one: "
        f"please give {_region_hint(rules)}",
    )


def _postal_code(raw: str, rules: CountryRules) -> str:
    label = "the ZIP code" if rules.postal_label == "ZIP code" else f"the {rules.postal_label}"
    hint = _postal_hint(rules)
    text = _text("postal_code", raw, label, limit=_SPOKEN_POSTAL_CODE_LIMIT, hint=_capital(hint))
    if rules.postal_pattern is None:
        # The country's addresses carry no postal code: nothing to write or read back.
        return ""
    if not text:
        raise AddressProblem("postal_code", f"{_capital(label)} is missing. {_capital(hint)}.")
    code = normalize_postal_code(text)
    if len(code) > _LIMITS["postal_code"]:
        raise AddressProblem("postal_code", f"{_capital(label)} is too long. {_capital(hint)}.")
    placeholder = _PLACEHOLDER_POSTAL.fullmatch(code) and (code != "99999" or rules.code == "US")
    if placeholder or lookup_key(text) in PLACEHOLDERS:
        raise AddressProblem(
            "postal_code", _placeholder(label, text, f"Please check {label}: {hint}.")
        )
    layout = _POSTAL_LAYOUTS.get(rules.code)
    # Elsewhere the code is kept as said where the pattern allows it ("100-0001" in Japan).
    for candidate in (layout(code) if layout else text.upper(), code):
        if rules.postal_pattern.fullmatch(candidate):
            return layout(code) if layout else candidate
    wrong = f"{_capital(label)}{_echo(text)} doesn't look right:"
    if rules.code == "CA" and _CA_SHAPE.fullmatch(code):
        raise AddressProblem("postal_code", f"{wrong} {_CA_LETTERS_HINT}.")
    raise AddressProblem("postal_code", f"{wrong} {hint}.")


def _placeholder(label: str, text: str, example: str) -> str:
    return (
        f"{_capital(label)}{_echo(text)} looks like a placeholder rather than part of a real "
        f"address. {example}"
    )


def _postal_hint(rules: CountryRules) -> str:
    if rules.code in _POSTAL_HINTS:
        return _POSTAL_HINTS[rules.code]
    examples = " or ".join(rules.postal_examples[:2])
    if not examples:
        return (
            f"{_capital(rules.postal_label)}s in {rules.name_in_sentence} have letters and numbers"
        )
    return f"{_capital(rules.postal_label)}s in {rules.name_in_sentence} look like {examples}"


def _text(
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
        f"{_capital(label)} is too long. {hint}."
        if hint
        else f"{_capital(label)} is too long: it can have at most {limit} characters. "
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
            f"{_capital(label)} has a hidden control or formatting character in it, "
            f"so I can't use it as given. {_ALLOWED_HINT}",
        )
    for char in text:
        if unicodedata.category(char)[0] not in "LMN" and char not in _PUNCTUATION:
            raise AddressProblem(
                field, f"{_capital(label)} can't contain {_describe(char)}. {_ALLOWED_HINT}"
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


def _echo(text: str) -> str:
    """`text` with a leading space, to repeat in a message; empty if too long to say back."""
    return f" {text}" if len(text) <= _MAX_ECHO else ""


def _capital(label: str) -> str:
    return label[:1].upper() + label[1:]


def _has_letter(text: str) -> bool:
    return any(unicodedata.category(char)[0] == "L" for char in text)
