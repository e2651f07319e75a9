"""Check a postal address a caller gave against its country's rules.

The rules (regions, postal-code patterns per country and per region) come from Google's
address metadata through `country_rules`. `validated_address` turns the arguments of
`record_address` into a `PostalAddress`, or raises `AddressProblem` for the first field
that cannot be used. The problem's message is a sentence that can be spoken to the
caller as it is: it names the field in plain words, says what is wrong and what to
check, and repeats at most a short piece of what was given. Text that could harm a
store or a log is refused (`field_text`), and so is text that names no place
(`plausible`): placeholders ("N/A", "x", "123 Fake Street", an all-zero postal code or
+4), references ("same as before") and keyboard mash ("asdf"). Pure and synchronous;
the specialist turns a problem into a `ToolError`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from customer_service.addresses.country_rules import (
    CountryRules,
    country_code,
    country_rules,
    lookup_key,
)
from customer_service.addresses.field_text import (
    POSTAL_CODE_LIMIT,
    SPOKEN_POSTAL_CODE_LIMIT,
    AddressField,
    AddressProblem,
    capital,
    echo,
    field_text,
    has_letter,
    placeholder,
)
from customer_service.addresses.plausible import has_a_name, mashed, refers_elsewhere, stands_in
from customer_service.addresses.regions import PLACEHOLDERS
from customer_service.domain import PostalAddress
from customer_service.normalize import normalize_postal_code

__all__ = ["AddressField", "AddressProblem", "validated_address"]

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
_NO_PLUS_4 = (
    "doesn't look right: the four digits after the dash are never all zeros. Please give "
    "the five-digit ZIP code, like 94107, or the full ZIP+4 as it appears on your mail."
)
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
    text = field_text("country", raw, "the country")
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
            f"The country{echo(text)} isn't one I recognise. Please say the country's "
            "full name, like United States or Canada.",
        )
    return code


def _street(raw: str) -> str:
    text = field_text("street", raw, "the street")
    if not text:
        raise AddressProblem(
            "street",
            "The street is missing. Please give the house number and street name, "
            "like 500 Howard Street.",
        )
    if lookup_key(text) in PLACEHOLDERS or stands_in(text):
        raise AddressProblem("street", placeholder("the street", text, _STREET_EXAMPLE))
    if refers_elsewhere(text):
        raise AddressProblem(
            "street",
            f"The street{echo(text)} isn't an address I can use: I need the address "
            f"itself, said in full. {_STREET_EXAMPLE}",
        )
    if not has_letter(text):
        raise AddressProblem(
            "street",
            f"The street{echo(text)} doesn't look right: it needs the street name, "
            f"not just a number. {_STREET_EXAMPLE}",
        )
    if mashed(text) or not has_a_name(text):
        raise AddressProblem(
            "street",
            f"The street{echo(text)} doesn't look like a real street name. {_STREET_EXAMPLE}",
        )
    return text


def _unit(raw: str | None) -> str | None:
    text = field_text("unit", raw, "the apartment or unit")
    if not text or lookup_key(text) in PLACEHOLDERS - {""}:
        return None
    if not any(char.isalnum() for char in text):
        raise AddressProblem(
            "unit",
            f"The apartment or unit{echo(text)} doesn't look right: it should be "
            "something like Apt 4B or Suite 200.",
        )
    return text


def _city(raw: str) -> str:
    text = field_text("city", raw, "the city")
    if not text:
        raise AddressProblem(
            "city", "The city is missing. Please give the name of the city or town."
        )
    if lookup_key(text) in PLACEHOLDERS or stands_in(text):
        raise AddressProblem("city", placeholder("the city", text, _CITY_EXAMPLE))
    if not has_letter(text) or any(unicodedata.category(char)[0] == "N" for char in text):
        raise AddressProblem(
            "city",
            f"The city{echo(text)} doesn't look right: it should be the name of the city "
            f"or town, without numbers. {_CITY_EXAMPLE}",
        )
    if mashed(text) or refers_elsewhere(text):
        raise AddressProblem(
            "city", f"The city{echo(text)} doesn't look like a real place name. {_CITY_EXAMPLE}"
        )
    return text


def _region(raw: str | None, rules: CountryRules) -> str:
    """The region's code, or its text where the country has no list; "" when not said."""
    label = f"the {rules.region_label}"
    text = field_text("region", raw, label)
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
                f"The region{echo(text)} sounds like a US state or Canadian province, "
                f"which an address in {rules.name_in_sentence} doesn't have. "
                "Please check the country, or leave the region out.",
            )
        # Not part of this country's addresses: nothing to write or read back.
        return ""
    raise AddressProblem(
        "region",
        f"{capital(label)}{echo(text)} isn't one I recognise in {rules.name_in_sentence}. "
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
                f"{capital(label)} {postal_code} isn't one for {name}. "
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
            f"{capital(label)} {postal_code} isn't one in {rules.name_in_sentence}. "
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
    text = field_text("postal_code", raw, label, limit=SPOKEN_POSTAL_CODE_LIMIT, hint=capital(hint))
    if rules.postal_pattern is None:
        # The country's addresses carry no postal code: nothing to write or read back.
        return ""
    if not text:
        raise AddressProblem("postal_code", f"{capital(label)} is missing. {capital(hint)}.")
    code = normalize_postal_code(text)
    if len(code) > POSTAL_CODE_LIMIT:
        raise AddressProblem("postal_code", f"{capital(label)} is too long. {capital(hint)}.")
    unassigned = _PLACEHOLDER_POSTAL.fullmatch(code) and (code != "99999" or rules.code == "US")
    if unassigned or lookup_key(text) in PLACEHOLDERS:
        raise AddressProblem(
            "postal_code", placeholder(label, text, f"Please check {label}: {hint}.")
        )
    layout = _POSTAL_LAYOUTS.get(rules.code)
    # Elsewhere the code is kept as said where the pattern allows it ("100-0001" in Japan).
    for candidate in (layout(code) if layout else text.upper(), code):
        if rules.postal_pattern.fullmatch(candidate):
            if rules.code == "US" and code[5:] == "0000":
                raise AddressProblem("postal_code", f"{capital(label)}{echo(text)} {_NO_PLUS_4}")
            return layout(code) if layout else candidate
    wrong = f"{capital(label)}{echo(text)} doesn't look right:"
    if rules.code == "CA" and _CA_SHAPE.fullmatch(code):
        raise AddressProblem("postal_code", f"{wrong} {_CA_LETTERS_HINT}.")
    raise AddressProblem("postal_code", f"{wrong} {hint}.")


def _postal_hint(rules: CountryRules) -> str:
    if rules.code in _POSTAL_HINTS:
        return _POSTAL_HINTS[rules.code]
    examples = " or ".join(rules.postal_examples[:2])
    if not examples:
        return (
            f"{capital(rules.postal_label)}s in {rules.name_in_sentence} have letters and numbers"
        )
    return f"{capital(rules.postal_label)}s in {rules.name_in_sentence} look like {examples}"
