from __future__ import annotations

import pytest

from customer_service.addresses import (
    AddressField,
    country_name,
    read_back,
    validated_address,
)
from customer_service.addresses.regions import COUNTRY_ALIASES, COUNTRY_NAMES
from customer_service.domain import Order, PostalAddress
from customer_service.store.seed import DEMO_ORDERS
from support.address_fixtures import VALID, address_problem, assert_problem, checked_address


def test_valid_address_is_normalised() -> None:
    address = validated_address(
        street="  500   Howard St ",
        unit=" Apt 4B ",
        city="san francisco",
        region="california",
        postal_code="94107",
        country="usa",
    )
    assert address == PostalAddress(
        street="500 Howard St",
        unit="Apt 4B",
        city="san francisco",
        region="CA",
        postal_code="94107",
        country="US",
    )


@pytest.mark.parametrize("order", DEMO_ORDERS, ids=lambda order: order.order_id)
def test_demo_addresses_are_valid_as_stored(order: Order) -> None:
    address = order.shipping_address
    assert validated_address(**address.model_dump()) == address


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("US", "US"),
        ("us", "US"),
        ("usa", "US"),
        ("U.S.", "US"),
        ("U.S.A.", "US"),
        ("United States", "US"),
        ("the United States of America", "US"),
        ("America", "US"),
        ("Canada", "CA"),
        ("ca", "CA"),
        ("UK", "GB"),
        ("the U.K.", "GB"),
        ("United Kingdom", "GB"),
        ("Great Britain", "GB"),
        ("England", "GB"),
        ("Scotland", "GB"),
        ("Wales", "GB"),
        ("Northern Ireland", "GB"),
        ("gb", "GB"),
        ("Germany", "DE"),
        ("Deutschland", "DE"),
        ("France", "FR"),
        ("Spain", "ES"),
        ("España", "ES"),
        ("Espana", "ES"),
        ("nl", "NL"),
        ("Holland", "NL"),
        ("the Netherlands", "NL"),
    ],
)
def test_countries(given: str, expected: str) -> None:
    assert checked_address(expected, country=given).country == expected


def test_every_country_name_code_and_alias() -> None:
    def template(code: str) -> str:
        # Countries without their own rules take the Dutch address as a template.
        return code if code in VALID else "NL"

    for code, name in COUNTRY_NAMES.items():
        for given in (code, code.lower(), name, name.upper()):
            assert checked_address(template(code), country=given).country == code, given
    for alias, code in COUNTRY_ALIASES.items():
        assert code in COUNTRY_NAMES
        assert checked_address(template(code), country=alias).country == code, alias


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ("Narnia", ("The country Narnia isn't one I recognise", "United States")),
        ("XX", ("The country XX isn't one I recognise",)),
        ("ZZ", ("The country ZZ",)),
        ("Georgia", ("The country Georgia",)),
        ("", ("The country is missing",)),
        (" ", ("The country is missing",)),
    ],
)
def test_invalid_countries(given: str, words: tuple[str, ...]) -> None:
    assert_problem(address_problem(country=given), "country", *words)


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"street": ""}, "street", ("The street is missing", "house number")),
        ({"street": "  "}, "street", ("The street is missing",)),
        ({"city": ""}, "city", ("The city is missing",)),
        ({"postal_code": ""}, "postal_code", ("The ZIP code is missing", "five digits")),
        ({"country": ""}, "country", ("The country is missing",)),
        # The first problem in the order country, street, unit, city, region, postal code.
        ({"country": "Narnia", "street": ""}, "country", ("Narnia",)),
        ({"street": "", "unit": "#"}, "street", ("missing",)),
        ({"unit": "#", "city": ""}, "unit", ("apartment or unit",)),
        ({"city": "", "region": "XX"}, "city", ("missing",)),
        ({"region": "XX", "postal_code": ""}, "region", ("state",)),
    ],
)
def test_missing_fields_and_their_order(
    changes: dict[str, str], field: AddressField, words: tuple[str, ...]
) -> None:
    assert_problem(address_problem("US", **changes), field, *words)


@pytest.mark.parametrize(
    ("given", "expected"),
    [(None, None), ("", None), ("   ", None), ("N/A", None), ("none", None), ("Apt 4B", "Apt 4B")],
)
def test_unit_is_optional(given: str | None, expected: str | None) -> None:
    assert checked_address("US", unit=given).unit == expected


@pytest.mark.parametrize(
    ("address", "spoken"),
    [
        (
            PostalAddress(
                street="500 Howard St",
                unit="Apt 4B",
                city="San Francisco",
                region="CA",
                postal_code="94107",
                country="US",
            ),
            "500 Howard St, Apt 4B, San Francisco, CA 94107, United States",
        ),
        (
            PostalAddress(
                street="24 Sussex Dr",
                city="Ottawa",
                region="ON",
                postal_code="K1M 1M4",
                country="CA",
            ),
            "24 Sussex Dr, Ottawa, ON K1M 1M4, Canada",
        ),
        (
            PostalAddress(
                street="10 Downing St",
                city="London",
                region="",
                postal_code="SW1A 2AA",
                country="GB",
            ),
            "10 Downing St, London, SW1A 2AA, United Kingdom",
        ),
        (
            PostalAddress(
                street="Calle de Alcalá 45",
                unit="2º izquierda",
                city="Madrid",
                region="M",
                postal_code="28013",
                country="ES",
            ),
            "Calle de Alcalá 45, 2º izquierda, Madrid, M, 28013, Spain",
        ),
        (
            PostalAddress(
                street="Dam 1", city="Amsterdam", region="", postal_code="1012 JS", country="XK"
            ),
            "Dam 1, Amsterdam, 1012 JS, XK",
        ),
    ],
)
def test_read_back(address: PostalAddress, spoken: str) -> None:
    assert read_back(address) == spoken


def test_read_back_of_a_validated_address() -> None:
    address = validated_address(
        street="500 Howard St",
        unit="Apt 4B",
        city="San Francisco",
        region="California",
        postal_code="nine four one zero seven",
        country="United States",
    )
    assert read_back(address) == "500 Howard St, Apt 4B, San Francisco, CA 94107, United States"


@pytest.mark.parametrize(
    ("code", "name"),
    [("US", "United States"), ("us", "United States"), ("GB", "United Kingdom"), ("XK", "XK")],
)
def test_country_name(code: str, name: str) -> None:
    assert country_name(code) == name
