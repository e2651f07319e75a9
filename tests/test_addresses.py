from __future__ import annotations

import pytest

from customer_service.address_data import (
    CA_PROVINCE_ALIASES,
    CA_PROVINCE_NAMES,
    COUNTRY_ALIASES,
    COUNTRY_NAMES,
    US_STATE_ALIASES,
    US_STATE_NAMES,
)
from customer_service.addresses import (
    AddressField,
    AddressProblem,
    country_name,
    read_back,
    validated_address,
)
from customer_service.domain import Order, PostalAddress
from customer_service.store.seed import DEMO_ORDERS

# A valid address for each country, so one test can change a single field.
_VALID: dict[str, dict[str, str | None]] = {
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
    "NL": {
        "street": "Dam 1",
        "city": "Amsterdam",
        "region": None,
        "postal_code": "1012 JS",
        "country": "NL",
    },
}


def _address(template: str = "US", /, **changes: str | None) -> PostalAddress:
    """The valid address of the `template` country with `changes`, validated (twice)."""
    fields = {**_VALID[template], **changes}
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


def _problem(template: str = "US", /, **changes: str | None) -> AddressProblem:
    with pytest.raises(AddressProblem) as caught:
        _address(template, **changes)
    problem = caught.value
    assert str(problem) == problem.message
    assert problem.message[:1].isupper()
    assert problem.message.endswith(".")
    return problem


def _assert_problem(problem: AddressProblem, field: AddressField, *words: str) -> None:
    assert problem.field == field
    for word in words:
        assert word in problem.message


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
    ("country", "given", "expected"),
    [
        ("US", "94107", "94107"),
        ("US", " 94107 ", "94107"),
        ("US", "94107-1234", "94107-1234"),
        ("US", "941071234", "94107-1234"),
        ("US", "94107 1234", "94107-1234"),
        ("US", "nine four one zero seven", "94107"),
        ("US", "nine four one oh seven, one two three four", "94107-1234"),
        ("US", "double nine five oh one", "99501"),
        ("US", "00501", "00501"),
        ("CA", "K1A 0B1", "K1A 0B1"),
        ("CA", "k1a0b1", "K1A 0B1"),
        ("CA", "m5v 3l9", "M5V 3L9"),
        ("CA", "H2X1Y4", "H2X 1Y4"),
        ("CA", "V6B-1A1", "V6B 1A1"),
        ("CA", "X0A 0H0", "X0A 0H0"),
        ("CA", "Y1A 6E6", "Y1A 6E6"),
        ("CA", "K one A zero B one", "K1A 0B1"),
        ("GB", "SW1A 1AA", "SW1A 1AA"),
        ("GB", "sw1a1aa", "SW1A 1AA"),
        ("GB", "M1 1AE", "M1 1AE"),
        ("GB", "m11ae", "M1 1AE"),
        ("GB", "B33 8TH", "B33 8TH"),
        ("GB", "CR2 6XH", "CR2 6XH"),
        ("GB", "DN55 1PT", "DN55 1PT"),
        ("GB", "W1A 0AX", "W1A 0AX"),
        ("GB", "EC1A 1BB", "EC1A 1BB"),
        ("GB", "GIR 0AA", "GIR 0AA"),
        ("GB", "gir0aa", "GIR 0AA"),
        ("GB", "S W one A one A A", "SW1A 1AA"),
        ("DE", "10115", "10115"),
        ("DE", "01067", "01067"),
        ("FR", "75001", "75001"),
        ("FR", "75 001", "75001"),
        ("ES", "28013", "28013"),
        ("ES", "01001", "01001"),
        ("ES", "52001", "52001"),
        ("NL", "1012 ab", "1012 AB"),
        ("NL", "1012AB", "1012AB"),
        ("NL", "one zero one two AB", "1012AB"),
        ("NL", "12", "12"),
        ("NL", "1234567890", "1234567890"),
    ],
)
def test_valid_postal_codes(country: str, given: str, expected: str) -> None:
    assert _address(country, postal_code=given).postal_code == expected


@pytest.mark.parametrize(
    ("country", "given", "expected"),
    [
        ("JP", "100-0001", "100-0001"),
        ("BR", "01310-100", "01310-100"),
        ("IE", "d02 x285", "D02 X285"),
        ("AU", "2000", "2000"),
    ],
)
def test_generic_postal_codes(country: str, given: str, expected: str) -> None:
    address = _address("NL", country=country, postal_code=given)
    assert (address.country, address.postal_code) == (country, expected)


@pytest.mark.parametrize(
    ("country", "given", "words"),
    [
        ("US", "9410", ("The ZIP code 9410 doesn't look right", "five digits", "94107")),
        ("US", "941071", ("ZIP code 941071", "five digits")),
        ("US", "94107-12", ("ZIP code 94107-12", "five digits")),
        ("US", "ABCDE", ("ZIP code ABCDE", "five digits")),
        ("US", "9410A", ("ZIP code 9410A", "five digits")),
        ("CA", "K1A 0B", ("The postal code K1A 0B", "letter, number", "K1A 0B1")),
        ("CA", "12345", ("postal code 12345", "letter, number")),
        ("CA", "K1A 1BB", ("postal code K1A 1BB", "letter, number")),
        ("CA", "K1A 0O1", ("postal code K1A 0O1", "D, F, I, O, Q or U")),
        ("CA", "D1A 1A1", ("postal code D1A 1A1", "D, F, I, O, Q or U")),
        ("CA", "K1D 1A1", ("postal code K1D 1A1", "D, F, I, O, Q or U")),
        ("CA", "K1A 1U1", ("postal code K1A 1U1", "D, F, I, O, Q or U")),
        ("CA", "W1A 1A1", ("postal code W1A 1A1", "start with W or Z")),
        ("CA", "Z1A 1A1", ("postal code Z1A 1A1", "start with W or Z")),
        ("GB", "SW1A 1A", ("The postal code SW1A 1A", "SW1A 1AA")),
        ("GB", "QA1 1AA", ("postal code QA1 1AA", "UK postcodes")),
        ("GB", "SW1A 1CA", ("postal code SW1A 1CA", "UK postcodes")),
        ("GB", "AB1 1AAA", ("postal code AB1 1AAA", "UK postcodes")),
        ("GB", "12345", ("postal code 12345", "UK postcodes")),
        ("DE", "1011", ("postal code 1011", "German", "five digits")),
        ("DE", "101155", ("postal code 101155", "German", "five digits")),
        ("DE", "1011A", ("postal code 1011A", "German", "five digits")),
        ("FR", "7500", ("postal code 7500", "French", "five digits")),
        ("ES", "53001", ("postal code 53001", "Spanish", "01 to 52")),
        ("ES", "00123", ("postal code 00123", "Spanish", "01 to 52")),
        ("ES", "2801", ("postal code 2801", "Spanish", "five digits")),
        ("NL", "1", ("postal code 1 doesn't look right", "2 to 10")),
        ("NL", "12345678901", ("postal code 12345678901", "2 to 10")),
        ("NL", "1012--AB", ("postal code 1012--AB", "single space or hyphen")),
        ("NL", "ABCD", ("postal code ABCD", "at least one number")),
        ("NL", "N/A", ("postal code N/A", "2 to 10")),
    ],
)
def test_invalid_postal_codes(country: str, given: str, words: tuple[str, ...]) -> None:
    _assert_problem(_problem(country, postal_code=given), "postal_code", *words)


@pytest.mark.parametrize(
    ("country", "given", "words"),
    [
        ("US", "9" * 13, ("The ZIP code is too long", "five digits")),
        ("NL", "1" * 13, ("The postal code is too long", "2 to 10")),
        ("GB", "SW1A 1AA " * 10, ("The postal code is too long", "SW1A 1AA")),
    ],
)
def test_postal_code_too_long(country: str, given: str, words: tuple[str, ...]) -> None:
    problem = _problem(country, postal_code=given)
    _assert_problem(problem, "postal_code", *words)
    assert given[:13] not in problem.message


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("california", "CA"),
        ("California", "CA"),
        ("CALIFORNIA", "CA"),
        ("ca", "CA"),
        ("Calif.", "CA"),
        ("New York", "NY"),
        ("new  york", "NY"),
        ("District of Columbia", "DC"),
        ("D.C.", "DC"),
        ("Washington, D.C.", "DC"),
        ("washington", "WA"),
        ("Puerto Rico", "PR"),
        ("pr", "PR"),
        ("Hawai\u02bbi", "HI"),
        ("W. Va.", "WV"),
        ("the U.S. Virgin Islands", "VI"),
    ],
)
def test_us_states(given: str, expected: str) -> None:
    assert _address("US", region=given).region == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("Québec", "QC"),
        ("Quebec", "QC"),
        ("qc", "QC"),
        ("Ontario", "ON"),
        ("British Columbia", "BC"),
        ("Colombie-Britannique", "BC"),
        ("Île-du-Prince-Édouard", "PE"),
        ("PEI", "PE"),
        ("Newfoundland & Labrador", "NL"),
        ("Terre-Neuve-et-Labrador", "NL"),
        ("Nouvelle-Écosse", "NS"),
        ("Yukon", "YT"),
    ],
)
def test_canadian_provinces(given: str, expected: str) -> None:
    assert _address("CA", region=given).region == expected


@pytest.mark.parametrize(
    ("country", "names", "aliases"),
    [("US", US_STATE_NAMES, US_STATE_ALIASES), ("CA", CA_PROVINCE_NAMES, CA_PROVINCE_ALIASES)],
)
def test_every_region_name_code_and_alias(
    country: str, names: dict[str, str], aliases: dict[str, str]
) -> None:
    for code, name in names.items():
        for given in (code, code.lower(), name, name.upper(), name.lower()):
            assert _address(country, region=given).region == code, given
    for alias, code in aliases.items():
        assert code in names
        assert _address(country, region=alias).region == code, alias


@pytest.mark.parametrize(
    ("country", "given", "words"),
    [
        ("US", "XX", ("The state XX isn't one I recognise", "California or CA")),
        ("US", "Ontario", ("The state Ontario", "California or CA")),
        ("US", "", ("The state is missing", "California or CA")),
        ("US", None, ("The state is missing",)),
        ("US", "   ", ("The state is missing",)),
        ("CA", "California", ("The province California", "Ontario or ON")),
        ("CA", "CA", ("The province CA", "Ontario or ON")),
        ("CA", None, ("The province is missing", "Ontario or ON")),
    ],
)
def test_invalid_regions(country: str, given: str | None, words: tuple[str, ...]) -> None:
    _assert_problem(_problem(country, region=given), "region", *words)


@pytest.mark.parametrize(
    ("country", "given", "expected"),
    [
        ("GB", None, ""),
        ("GB", "", ""),
        ("GB", "  ", ""),
        ("GB", "none", ""),
        ("GB", "Greater  London", "Greater London"),
        ("FR", "Île-de-France", "Île-de-France"),
        ("ES", "M", "M"),
        ("DE", "Bayern", "Bayern"),
    ],
)
def test_free_text_regions(country: str, given: str | None, expected: str) -> None:
    assert _address(country, region=given).region == expected


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
    assert _address(expected, country=given).country == expected


def test_every_country_name_code_and_alias() -> None:
    def template(code: str) -> str:
        # Countries without their own rules take the Dutch address as a template.
        return code if code in _VALID else "NL"

    for code, name in COUNTRY_NAMES.items():
        for given in (code, code.lower(), name, name.upper()):
            assert _address(template(code), country=given).country == code, given
    for alias, code in COUNTRY_ALIASES.items():
        assert code in COUNTRY_NAMES
        assert _address(template(code), country=alias).country == code, alias


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
    _assert_problem(_problem(country=given), "country", *words)


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
    _assert_problem(_problem("US", **changes), field, *words)


_LABELS: dict[AddressField, str] = {
    "street": "The street",
    "unit": "The apartment or unit",
    "city": "The city",
    "region": "The state",
    "postal_code": "The ZIP code",
    "country": "The country",
}
_FIELDS: tuple[AddressField, ...] = ("street", "unit", "city", "region", "postal_code", "country")


@pytest.mark.parametrize("field", _FIELDS)
@pytest.mark.parametrize("filler", ["q", "9", "Ab ", "'); DROP TABLE orders; --"])
def test_five_thousand_characters_are_refused_unread(field: AddressField, filler: str) -> None:
    given = (filler * 5_000)[:5_000]
    problem = _problem("US", **{field: given})
    _assert_problem(problem, field, f"{_LABELS[field]} is too long")
    # Nothing of the input is read back: no run of it longer than a few characters.
    assert given[:12] not in problem.message


@pytest.mark.parametrize(
    ("field", "limit"),
    [("street", 100), ("unit", 30), ("city", 60), ("region", 60)],
)
def test_length_limits(field: AddressField, limit: int) -> None:
    longest = "Ab" * (limit // 2)
    assert getattr(_address("GB", **{field: longest}), field) == longest
    problem = _problem("GB", **{field: longest + "c"})
    label = "The region" if field == "region" else _LABELS[field]
    _assert_problem(problem, field, f"{label} is too long", f"at most {limit} characters")
    assert longest[:31] not in problem.message


@pytest.mark.parametrize("field", _FIELDS)
@pytest.mark.parametrize("control", ["\x00", "\u202e", "\u200b", "\x1b[31m", "\x7f", "\ud800"])
def test_control_and_format_characters_are_refused(field: AddressField, control: str) -> None:
    given = f"{_VALID['US'].get(field) or 'Apt 4B'}{control}"
    problem = _problem("US", **{field: given})
    _assert_problem(problem, field, _LABELS[field], "control or formatting character")
    assert control not in problem.message


@pytest.mark.parametrize(
    ("field", "given", "words"),
    [
        ("street", "'); DROP TABLE orders; --", ("The street can't contain a semicolon",)),
        ("street", "500 Howard St\\", ("The street can't contain a backslash",)),
        ("street", "500 `Howard` St", ("a backtick",)),
        ("unit", 'Apt "4B"', ("The apartment or unit can't contain a double quote",)),
        ("city", "<script>alert(1)</script>", ("The city can't contain a less-than sign",)),
        ("region", "CA OR 1=1", ("The state can't contain an equals sign",)),
        ("postal_code", "94107;", ("The ZIP code can't contain a semicolon",)),
        ("country", "US; DROP", ("The country can't contain a semicolon",)),
        ("street", "500 Howard St \u2665", ("a black heart suit symbol",)),
    ],
)
def test_unsafe_characters_are_refused(
    field: AddressField, given: str, words: tuple[str, ...]
) -> None:
    problem = _problem("US", **{field: given})
    _assert_problem(problem, field, *words, "letters, numbers, spaces and ordinary punctuation")


@pytest.mark.parametrize(
    ("country", "field", "given", "expected"),
    [
        ("ES", "street", "Calle de Alcalá 45", "Calle de Alcalá 45"),
        ("ES", "street", "Calle de Alcala\u0301 45", "Calle de Alcalá 45"),
        ("ES", "unit", "2º izquierda", "2º izquierda"),
        ("ES", "street", "C/ Mayor 1, 3ª planta", "C/ Mayor 1, 3ª planta"),
        ("US", "street", "O'Brien St.", "O'Brien St."),
        ("US", "street", "St John\u2019s Rd", "St John\u2019s Rd"),
        ("US", "street", "123 1/2 Main St (rear)", "123 1/2 Main St (rear)"),
        ("US", "street", "12\u201314 Smith & Sons Way", "12-14 Smith & Sons Way"),
        ("US", "street", "500\tHoward\nSt", "500 Howard St"),
        ("US", "unit", "#4B", "#4B"),
        ("US", "city", "Coeur d'Alene", "Coeur d'Alene"),
        ("DE", "city", "München", "München"),
        ("DE", "street", "Straße des 17. Juni 135", "Straße des 17. Juni 135"),
        ("NL", "city", "東京都千代田区", "東京都千代田区"),
        ("NL", "city", "Αθήνα", "Αθήνα"),
        ("NL", "street", "세종대로 175", "세종대로 175"),
    ],
)
def test_text_is_kept_literally(country: str, field: str, given: str, expected: str) -> None:
    assert getattr(_address(country, **{field: given}), field) == expected


@pytest.mark.parametrize(
    ("field", "given", "words"),
    [
        ("street", "12345", ("The street 12345 doesn't look right", "street name")),
        ("street", "#12", ("The street #12",)),
        ("city", "San Francisco 94107", ("The city San Francisco 94107", "without numbers")),
        ("city", "---", ("The city --- doesn't look right",)),
        ("unit", "-", ("The apartment or unit - doesn't look right", "Apt 4B")),
    ],
)
def test_fields_that_are_not_what_they_say(
    field: AddressField, given: str, words: tuple[str, ...]
) -> None:
    _assert_problem(_problem("US", **{field: given}), field, *words)


@pytest.mark.parametrize(
    ("given", "expected"),
    [(None, None), ("", None), ("   ", None), ("N/A", None), ("none", None), ("Apt 4B", "Apt 4B")],
)
def test_unit_is_optional(given: str | None, expected: str | None) -> None:
    assert _address("US", unit=given).unit == expected


def test_long_values_are_not_read_back_in_messages() -> None:
    given = "Q" * 31
    problem = _problem("US", region=given)
    _assert_problem(problem, "region", "The state isn't one I recognise")
    assert "Q" * 20 not in problem.message


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
