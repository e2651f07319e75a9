"""Check a postal address a caller gave, and read it back for confirmation.

`validated_address` turns the arguments of `record_address` into a `PostalAddress`, or
raises `AddressProblem` for the first field that cannot be used. The problem's message
is a sentence that can be spoken to the caller as it is: it names the field in plain
words, says what is wrong and what is expected, and repeats at most a short piece of
what was given. Text that could harm a store or a log (control characters, quotes,
semicolons, megabytes of input) is refused here, so everything stored is literal,
short and printable. Pure and synchronous; the specialist turns a problem into a
`ToolError`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Literal

from customer_service.addresses.regions import (
    CA_PROVINCE_ALIASES,
    CA_PROVINCE_NAMES,
    COUNTRY_ALIASES,
    COUNTRY_NAMES,
    SYMBOL_NAMES,
    US_STATE_ALIASES,
    US_STATE_NAMES,
)
from customer_service.domain import PostalAddress
from customer_service.normalize import normalize_postal_code

__all__ = ["AddressField", "AddressProblem", "country_name", "read_back", "validated_address"]

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
# Said as a unit, these mean "there is no unit".
_NO_VALUE = frozenset({"none", "null", "n/a"})

_ZIP = re.compile(r"[0-9]{5}(?:[0-9]{4})?")
_CA_SHAPE = re.compile(r"[A-Z][0-9][A-Z][0-9][A-Z][0-9]")
_CA_POSTAL = re.compile(r"[ABCEGHJ-NPRSTVXY][0-9][ABCEGHJ-NPRSTV-Z][0-9][ABCEGHJ-NPRSTV-Z][0-9]")
# Outward code (A9, A99, AA9, AA99, A9A, AA9A, with the letters each position allows),
# then the inward code 9AA; or the one special code GIR 0AA.
_GB_POSTAL = re.compile(
    r"GIR0AA|(?:[A-PR-UWYZ][0-9][0-9]?|[A-PR-UWYZ][A-HK-Y][0-9][0-9]?"
    r"|[A-PR-UWYZ][0-9][A-HJKPSTUW]|[A-PR-UWYZ][A-HK-Y][0-9][ABEHMNPRVWXY])"
    r"[0-9][ABD-HJLNP-UW-Z]{2}"
)
_FIVE_DIGITS = re.compile(r"[0-9]{5}")
_ES_POSTAL = re.compile(r"(?:0[1-9]|[1-4][0-9]|5[0-2])[0-9]{3}")
_GENERIC_POSTAL = re.compile(r"[A-Z0-9]+(?:[ -][A-Z0-9]+)*")


def _same(code: str) -> str:
    return code


# Per country: the pattern of the compact upper-case code, and how to write it.
_POSTAL_FORMATS: dict[str, tuple[re.Pattern[str], Callable[[str], str]]] = {
    "US": (_ZIP, lambda code: code if len(code) == 5 else f"{code[:5]}-{code[5:]}"),
    "CA": (_CA_POSTAL, lambda code: f"{code[:3]} {code[3:]}"),
    "GB": (_GB_POSTAL, lambda code: f"{code[:-3]} {code[-3:]}"),
    "DE": (_FIVE_DIGITS, _same),
    "FR": (_FIVE_DIGITS, _same),
    "ES": (_ES_POSTAL, _same),
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
_CA_LETTERS_HINT = (
    "Canadian postal codes never use the letters D, F, I, O, Q or U, and never start with W or Z"
)
_GENERIC_HINT = (
    "postal codes have 2 to 10 letters and numbers, including at least one number, "
    "with at most a single space or hyphen between groups"
)


def _key(text: str) -> str:
    """`text` in lookup form: "the U.S.A." -> "usa", "Île-du-Prince" -> "ile du prince".

    Lower case, without accents or punctuation, single spaces, no leading "the".
    """
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    plain = re.sub(r"[^\w\s]|[\u02bb\u02bc_]", "", plain.replace("&", " and ").replace("-", " "))
    words = plain.split()
    if words[:1] == ["the"]:
        words = words[1:]
    return " ".join(words)


def _lookup(names: Mapping[str, str], aliases: Mapping[str, str]) -> dict[str, str]:
    table = {code.casefold(): code for code in names}
    table.update({_key(name): code for code, name in names.items()})
    table.update(aliases)
    return table


_COUNTRY_CODES = _lookup(COUNTRY_NAMES, COUNTRY_ALIASES)
_REGION_CODES = {
    "US": _lookup(US_STATE_NAMES, US_STATE_ALIASES),
    "CA": _lookup(CA_PROVINCE_NAMES, CA_PROVINCE_ALIASES),
}


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

    Fields are checked in the order country, street, unit, city, region, postal code.
    Country names and codes become ISO alpha-2 codes, US states and Canadian provinces
    their two-letter codes, postal codes their national written form ("k1a0b1" ->
    "K1A 0B1"); other text is kept as given, apart from Unicode NFC and whitespace.
    Validating a returned address again gives the same address.
    """
    # One statement per field, so the first problem raised is the first in this order.
    country_code = _country(country)
    street_text = _street(street)
    unit_text = _unit(unit)
    city_text = _city(city)
    region_text = _region(region, country_code)
    postal_code_text = _postal_code(postal_code, country_code)
    return PostalAddress(
        street=street_text,
        unit=unit_text,
        city=city_text,
        region=region_text,
        postal_code=postal_code_text,
        country=country_code,
    )


def country_name(code: str) -> str:
    """The name said to a caller for the ISO alpha-2 `code`; an unknown code as given."""
    return COUNTRY_NAMES.get(code.strip().upper(), code)


def read_back(address: PostalAddress) -> str:
    """The address as said back to the caller for confirmation.

    "500 Howard St, Apt 4B, San Francisco, CA 94107, United States"; outside the US and
    Canada the region, if any, is said on its own before the postal code.
    """
    if address.country in _REGION_CODES:
        places = [f"{address.region} {address.postal_code}".strip()]
    else:
        places = [address.region, address.postal_code]
    parts = [address.street, address.unit, address.city, *places, country_name(address.country)]
    return ", ".join(part for part in parts if part)


def _country(raw: str) -> str:
    text = _text("country", raw, "the country")
    if not text:
        raise AddressProblem(
            "country",
            "The country is missing. Please say which country the address is in, "
            "like United States or Canada.",
        )
    code = _COUNTRY_CODES.get(_key(text))
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
    if not _has_letter(text):
        raise AddressProblem(
            "street",
            f"The street{_echo(text)} doesn't look right: it needs the street name, "
            "not just a number, like 500 Howard Street.",
        )
    return text


def _unit(raw: str | None) -> str | None:
    text = _text("unit", raw, "the apartment or unit")
    if not text or text.casefold() in _NO_VALUE:
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
    if not _has_letter(text) or any(unicodedata.category(char)[0] == "N" for char in text):
        raise AddressProblem(
            "city",
            f"The city{_echo(text)} doesn't look right: it should be the name of the city "
            "or town, without numbers, like San Francisco.",
        )
    return text


def _region(raw: str | None, country: str) -> str:
    codes = _REGION_CODES.get(country)
    label = {"US": "the state", "CA": "the province"}.get(country, "the region")
    text = _text("region", raw, label)
    if codes is None:
        return "" if text.casefold() in _NO_VALUE else text
    if country == "US":
        expected = "US addresses need a state, like California or CA."
        how = "the state's full name or its two-letter code, like California or CA."
    else:
        expected = "Canadian addresses need a province or territory, like Ontario or ON."
        how = "the province or territory's full name or its two-letter code, like Ontario or ON."
    if not text:
        raise AddressProblem("region", f"{_capital(label)} is missing. {expected}")
    code = codes.get(_key(text))
    if code is None:
        raise AddressProblem(
            "region",
            f"{_capital(label)}{_echo(text)} isn't one I recognise. Please give {how}",
        )
    return code


def _postal_code(raw: str, country: str) -> str:
    label = "the ZIP code" if country == "US" else "the postal code"
    hint = _POSTAL_HINTS.get(country, _GENERIC_HINT)
    text = _text("postal_code", raw, label, limit=_SPOKEN_POSTAL_CODE_LIMIT, hint=_capital(hint))
    if not text:
        raise AddressProblem("postal_code", f"{_capital(label)} is missing. {_capital(hint)}.")
    code = normalize_postal_code(text)
    if len(code) > _LIMITS["postal_code"]:
        raise AddressProblem("postal_code", f"{_capital(label)} is too long. {_capital(hint)}.")
    wrong = f"{_capital(label)}{_echo(text)} doesn't look right:"
    rule = _POSTAL_FORMATS.get(country)
    if rule is None:
        formatted = _generic_postal_code(text, code)
        if formatted is None:
            raise AddressProblem("postal_code", f"{wrong} {hint}.")
        return formatted
    pattern, layout = rule
    if pattern.fullmatch(code):
        return layout(code)
    if country == "CA" and _CA_SHAPE.fullmatch(code):
        raise AddressProblem("postal_code", f"{wrong} {_CA_LETTERS_HINT}.")
    raise AddressProblem("postal_code", f"{wrong} {hint}.")


def _generic_postal_code(text: str, code: str) -> str | None:
    """`text` as a postal code of a country without its own rule, or None if it is not one."""
    # normalize_postal_code only drops separators, unless it turned spoken digits into
    # digits: then the separators between words mean nothing and the compact code stands.
    spoken = code != re.sub(r"[\W_]", "", text.casefold()).upper()
    candidate = code if spoken else text.upper()
    alphanumerics = sum(char != " " and char != "-" for char in candidate)
    if (
        _GENERIC_POSTAL.fullmatch(candidate)
        and 2 <= alphanumerics <= 10
        and len(candidate) <= _LIMITS["postal_code"]
        and any(char in "0123456789" for char in candidate)
    ):
        return candidate
    return None


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
