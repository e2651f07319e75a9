"""An address said back to the caller for confirmation, in the order of its country."""

from __future__ import annotations

from customer_service.addresses.country_rules import (
    CountryRules,
    country_code,
    country_rules,
    same_place,
)
from customer_service.domain import PostalAddress

__all__ = ["read_back"]


def read_back(address: PostalAddress) -> str:
    """The address as said back to the caller, in the order of the country's addresses.

    "500 Howard St, Apt 4B, San Francisco, CA 94107, United States",
    "Calle de Alcalá 45, 28014 Madrid, Spain", "10 Downing St, London, SW1A 2AA,
    United Kingdom". A region is said by its code where that is how it is written
    (US states, Canadian provinces), otherwise by its name, and not at all when it is
    the city's own name.
    """
    code = country_code(address.country)
    if code is None:
        parts = [address.street, address.unit, address.city, address.region, address.postal_code]
        return ", ".join(part for part in [*parts, address.country] if part)
    rules = country_rules(code)
    street = ", ".join(part for part in (address.street, address.unit) if part)
    values = {
        "street": street,
        "city": address.city,
        "region": _spoken_region(address, rules),
        "postal_code": address.postal_code,
    }
    lines = [_read_line(line, values) for line in rules.lines]
    return ", ".join(line for line in [*lines, rules.name] if line)


_PLACES = frozenset({"city", "region"})


def _read_line(line: tuple[str, ...], values: dict[str, str]) -> str:
    """One line of the country's format: parts at even places, the text between at odd."""
    said = ""
    separator: str | None = None
    previous = ""
    for index, piece in enumerate(line):
        if index % 2:
            separator = piece if separator is None else separator
            continue
        value = values[piece]
        if value:
            if said and previous in _PLACES and piece in _PLACES and not (separator or "").strip():
                # Two place names said one after the other need a pause: "Ottawa, ON".
                separator = ", "
            said = f"{said}{separator or ''}{value}" if said else value
            separator = None
            previous = piece
    return said


def _spoken_region(address: PostalAddress, rules: CountryRules) -> str:
    region = rules.regions.get(address.region)
    if region is None:
        return address.region
    if region.said_by_code:
        return region.code
    return "" if same_place(region.name, address.city) else region.name
