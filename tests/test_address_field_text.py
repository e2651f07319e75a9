"""The text of each field: length limits, control and unsafe characters, what is kept
literally, and that a refused value is not read back."""

from __future__ import annotations

import pytest

from customer_service.addresses import AddressField
from support.address_fixtures import VALID, address_problem, assert_problem, checked_address

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
    problem = address_problem("US", **{field: given})
    assert_problem(problem, field, f"{_LABELS[field]} is too long")
    # Nothing of the input is read back: no run of it longer than a few characters.
    assert given[:12] not in problem.message


@pytest.mark.parametrize(
    ("field", "limit"),
    [("street", 100), ("unit", 30), ("city", 60), ("region", 60)],
)
def test_length_limits(field: AddressField, limit: int) -> None:
    longest = "Ab" * (limit // 2)
    assert getattr(checked_address("RO", **{field: longest}), field) == longest
    problem = address_problem("RO", **{field: longest + "c"})
    label = "The province" if field == "region" else _LABELS[field]
    assert_problem(problem, field, f"{label} is too long", f"at most {limit} characters")
    assert longest[:31] not in problem.message


@pytest.mark.parametrize("field", _FIELDS)
@pytest.mark.parametrize("control", ["\x00", "\u202e", "\u200b", "\x1b[31m", "\x7f", "\ud800"])
def test_control_and_format_characters_are_refused(field: AddressField, control: str) -> None:
    given = f"{VALID['US'].get(field) or 'Apt 4B'}{control}"
    problem = address_problem("US", **{field: given})
    assert_problem(problem, field, _LABELS[field], "control or formatting character")
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
    problem = address_problem("US", **{field: given})
    assert_problem(problem, field, *words, "letters, numbers, spaces and ordinary punctuation")


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
    assert getattr(checked_address(country, **{field: given}), field) == expected


@pytest.mark.parametrize(
    ("field", "given", "words"),
    [
        ("street", "12345", ("The street 12345 doesn't look right", "street name")),
        ("street", "#12", ("The street #12",)),
        ("city", "San Francisco 94107", ("The city San Francisco 94107", "without numbers")),
        ("unit", "#", ("The apartment or unit # doesn't look right", "Apt 4B")),
    ],
)
def test_fields_that_are_not_what_they_say(
    field: AddressField, given: str, words: tuple[str, ...]
) -> None:
    assert_problem(address_problem("US", **{field: given}), field, *words)


def test_long_values_are_not_read_back_in_messages() -> None:
    given = "Q" * 31
    problem = address_problem("US", region=given)
    assert_problem(problem, "region", "The state isn't one I recognise")
    assert "Q" * 20 not in problem.message


@pytest.mark.parametrize(
    ("field", "given"),
    [
        ("street", "x"),
        ("street", "X"),
        ("street", "N/A"),
        ("street", "unknown"),
        ("street", "-"),
        ("city", "N/A"),
        ("city", "n/a"),
        ("city", "none"),
        ("city", "x"),
        ("city", "---"),
        ("city", "Unknown"),
        ("city", "TBD"),
    ],
)
def test_placeholders_are_refused(field: AddressField, given: str) -> None:
    problem = address_problem("US", **{field: given})
    assert_problem(
        problem, field, f"{_LABELS[field]} {given} looks like a placeholder", "Please give"
    )
