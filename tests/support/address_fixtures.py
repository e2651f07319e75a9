"""Valid addresses to vary one field of, and checks of the problems validation reports.

Shared by the address tests: test_addresses.py, test_address_postal_codes.py,
test_address_regions.py and test_address_field_text.py.
"""

from __future__ import annotations

import re

import pytest

from customer_service.addresses import AddressField, AddressProblem, validated_address
from customer_service.addresses.country_rules import country_rules
from customer_service.domain import PostalAddress

# A valid address for each country, so one test can change a single field.
VALID: dict[str, dict[str, str | None]] = {
    "US": {
        "street": "500 Howard St",
        "city": "San Francisco",
        "region": "CA",
        "postal_code": "94107",
        "country": "US",
    },
    "CA": {
        "street": "24 Sussex Dr",
        "city": "Ottawa",
        "region": "ON",
        "postal_code": "K1M 1M4",
        "country": "CA",
    },
    "GB": {
        "street": "10 Downing St",
        "city": "London",
        "region": None,
        "postal_code": "SW1A 2AA",
        "country": "GB",
    },
    "DE": {
        "street": "Unter den Linden 77",
        "city": "Berlin",
        "region": None,
        "postal_code": "10117",
        "country": "DE",
    },
    "FR": {
        "street": "55 Rue du Faubourg Saint-Honoré",
        "city": "Paris",
        "region": None,
        "postal_code": "75008",
        "country": "FR",
    },
    "ES": {
        "street": "Calle de Alcalá 45",
        "city": "Madrid",
        "region": "M",
        "postal_code": "28013",
        "country": "ES",
    },
    # A country whose addresses carry a region the metadata does not list: free text.
    "RO": {
        "street": "Strada Lipscani 1",
        "city": "Bucuresti",
        "region": "Sector 3",
        "postal_code": "030031",
        "country": "RO",
    },
    "NL": {
        "street": "Dam 1",
        "city": "Amsterdam",
        "region": None,
        "postal_code": "1012 JS",
        "country": "NL",
    },
}


def checked_address(template: str = "US", /, **changes: str | None) -> PostalAddress:
    """The valid address of the `template` country with `changes`, validated (twice)."""
    fields = {**VALID[template], **changes}
    address = validated_address(
        street=fields["street"] or "",
        city=fields["city"] or "",
        region=fields["region"],
        postal_code=fields["postal_code"] or "",
        country=fields["country"] or "",
        unit=fields.get("unit"),
    )
    # The supervisor validates a specialist's result again and needs the same address.
    assert validated_address(**address.model_dump()) == address
    return address


def address_problem(template: str = "US", /, **changes: str | None) -> AddressProblem:
    with pytest.raises(AddressProblem) as caught:
        checked_address(template, **changes)
    problem = caught.value
    assert str(problem) == problem.message
    assert problem.message[:1].isupper()
    assert problem.message.endswith(".")
    return problem


def assert_problem(problem: AddressProblem, field: AddressField, *words: str) -> None:
    assert problem.field == field
    for word in words:
        assert word in problem.message


def postal_code_in(country: str, region: str) -> str:
    """A postal code of `region`: the first prefix the metadata gives it, completed with
    the end of the country's first example ("9[0-5]" and "95014" -> "90014")."""
    rules = country_rules(country)
    prefix = rules.regions[region].postal_prefix
    assert prefix is not None
    first = prefix.pattern.removeprefix("^").split("|")[0]
    start = "".join(
        "0" if piece == "\\d" else piece[1] if piece.startswith("[") else piece
        for piece in re.findall(r"\[[^\]]+\]|\\d|.", first)
    )
    example = rules.postal_examples[0]
    return start + example[len(start) :]
