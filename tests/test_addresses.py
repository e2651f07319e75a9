from __future__ import annotations

import pytest

from customer_service.addresses import (
    AddressField,
    country_name,
    read_back,
    validated_address,
)
from customer_service.addresses.country_rules import country_code, country_rules
from customer_service.addresses.regions import COUNTRY_ALIASES, SPOKEN_COUNTRY_NAMES
from customer_service.domain import Order, PostalAddress
from support.address_fixtures import (
    address_problem,
    assert_problem,
    checked_address,
    postal_code_in,
)
from support.clock import DEMO_ORDERS


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
    for code, name in SPOKEN_COUNTRY_NAMES.items():
        for given in (code, code.lower(), name, name.upper()):
            assert country_code(given) == code, given
    for alias, code in COUNTRY_ALIASES.items():
        assert country_code(alias) == code, alias
    for code in ("US", "GB", "DE", "JP", "BR", "KE", "XK"):
        name = country_rules(code).name
        assert country_code(name) == code == country_code(name.upper()), name


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # Countries the hand-written table never had, from the metadata.
        ("Kenya", "KE"),
        ("Argentina", "AR"),
        ("Iceland", "IS"),
        ("Kosovo", "XK"),
        ("Czech Republic", "CZ"),
        ("Czechia", "CZ"),
        ("Viet Nam", "VN"),
        ("Russia", "RU"),
        ("Russian Federation", "RU"),
    ],
)
def test_countries_from_the_metadata(given: str, expected: str) -> None:
    assert country_code(given) == expected


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
        ({"city": "", "region": "QQ"}, "city", ("missing",)),
        ({"region": "QQ", "postal_code": ""}, "region", ("state",)),
    ],
)
def test_missing_fields_and_their_order(
    changes: dict[str, str], field: AddressField, words: tuple[str, ...]
) -> None:
    assert_problem(address_problem("US", **changes), field, *words)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (None, None),
        ("", None),
        ("   ", None),
        ("N/A", None),
        ("none", None),
        ("x", None),
        ("unknown", None),
        ("Apt 4B", "Apt 4B"),
    ],
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
            # The province is the city's own name, so it is not said twice.
            "Calle de Alcalá 45, 2º izquierda, 28013 Madrid, Spain",
        ),
        (
            PostalAddress(
                street="Carrer de Pau Claris 1",
                city="Sabadell",
                region="B",
                postal_code="08201",
                country="ES",
            ),
            "Carrer de Pau Claris 1, 08201 Sabadell, Barcelona, Spain",
        ),
        (
            PostalAddress(
                street="Unter den Linden 77",
                city="Berlin",
                region="",
                postal_code="10117",
                country="DE",
            ),
            "Unter den Linden 77, 10117 Berlin, Germany",
        ),
        (
            PostalAddress(
                street="55 Rue du Faubourg Saint-Honoré",
                city="Paris",
                region="",
                postal_code="75008",
                country="FR",
            ),
            "55 Rue du Faubourg Saint-Honoré, 75008 Paris, France",
        ),
        (
            PostalAddress(
                street="1 Main St",
                city="Dublin",
                region="Co. Dublin",
                postal_code="D02 X285",
                country="IE",
            ),
            # "Co. Dublin" is the city's own county: not said twice.
            "1 Main St, Dublin, D02 X285, Ireland",
        ),
        (
            PostalAddress(
                street="Dam 1", city="Amsterdam", region="", postal_code="1012 JS", country="QQ"
            ),
            "Dam 1, Amsterdam, 1012 JS, QQ",
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
    [
        ("US", "United States"),
        ("us", "United States"),
        ("GB", "United Kingdom"),
        ("ES", "Spain"),
        ("CZ", "Czechia"),
        ("BA", "Bosnia and Herzegovina"),
        ("XK", "Kosovo"),
        ("QQ", "QQ"),
    ],
)
def test_country_name(code: str, name: str) -> None:
    assert country_name(code) == name


@pytest.mark.parametrize(
    ("fields", "spoken"),
    [
        (
            {
                "street": "Calle de Alcalá 45",
                "city": "Madrid",
                "region": None,
                "postal_code": "28014",
                "country": "Spain",
            },
            "Calle de Alcalá 45, 28014 Madrid, Spain",
        ),
        (
            {
                "street": "Calle de Alcalá 45",
                "city": "Madrid",
                "region": "Madrid",
                "postal_code": "28014",
                "country": "España",
            },
            "Calle de Alcalá 45, 28014 Madrid, Spain",
        ),
        (
            {
                "street": "10 Downing Street",
                "city": "London",
                "region": None,
                "postal_code": "sw1a 2aa",
                "country": "UK",
            },
            "10 Downing Street, London, SW1A 2AA, United Kingdom",
        ),
        (
            {
                "street": "24 Sussex Drive",
                "city": "Ottawa",
                "region": "Ontario",
                "postal_code": "k1m1m4",
                "country": "Canada",
            },
            "24 Sussex Drive, Ottawa, ON K1M 1M4, Canada",
        ),
        (
            {
                "street": "Unter den Linden 77",
                "city": "Berlin",
                "region": "Berlin",
                "postal_code": "10117",
                "country": "Deutschland",
            },
            "Unter den Linden 77, 10117 Berlin, Germany",
        ),
        (
            {
                "street": "55 Rue du Faubourg Saint-Honoré",
                "city": "Paris",
                "region": None,
                "postal_code": "75 008",
                "country": "France",
            },
            "55 Rue du Faubourg Saint-Honoré, 75008 Paris, France",
        ),
        (
            {
                "street": "500 Howard St",
                "city": "San Francisco",
                "region": None,
                "postal_code": "94107",
                "country": "USA",
            },
            "500 Howard St, San Francisco, CA 94107, United States",
        ),
    ],
)
def test_addresses_of_each_country_read_back_in_its_order(
    fields: dict[str, str | None], spoken: str
) -> None:
    address = validated_address(
        street=fields["street"] or "",
        city=fields["city"] or "",
        region=fields["region"],
        postal_code=fields["postal_code"] or "",
        country=fields["country"] or "",
    )
    assert validated_address(**address.model_dump()) == address
    assert read_back(address) == spoken
    assert ";" not in spoken


@pytest.mark.parametrize(
    ("template", "changes", "field", "words"),
    [
        # A New York ZIP code with California.
        (
            "US",
            {"city": "San Francisco", "region": "CA", "postal_code": "10001"},
            "postal_code",
            ("The ZIP code 10001 isn't one for California", "check the ZIP code or the state"),
        ),
        ("ES", {"region": "California"}, "region", ("California", "Spain", "check the country")),
        ("GB", {"region": "CA"}, "region", ("The region CA", "check the country")),
        ("DE", {"postal_code": "00000"}, "postal_code", ("00000 looks like a placeholder",)),
        ("US", {"postal_code": "00000"}, "postal_code", ("00000 looks like a placeholder",)),
        ("US", {"postal_code": "99999"}, "postal_code", ("99999 looks like a placeholder",)),
        ("US", {"city": "N/A"}, "city", ("The city N/A looks like a placeholder",)),
        ("US", {"street": "x"}, "street", ("The street x looks like a placeholder",)),
    ],
)
def test_reported_addresses_are_refused(
    template: str, changes: dict[str, str], field: AddressField, words: tuple[str, ...]
) -> None:
    assert_problem(address_problem(template, **changes), field, *words)


def test_every_state_accepts_its_own_postal_code_and_refuses_another() -> None:
    for country, other_region in (("US", "NY"), ("ES", "M")):
        other = postal_code_in(country, other_region)
        for region in country_rules(country).regions:
            own = postal_code_in(country, region)
            assert checked_address(country, region=region, postal_code=own).region == region
            if region != other_region and not country_rules(country).regions[
                region
            ].postal_prefix.match(other):  # type: ignore[union-attr]
                problem = address_problem(country, region=region, postal_code=other)
                assert problem.field == "postal_code", (region, other)
