"""Postal codes: each country's pattern from Google's address metadata, spoken digits,
placeholders, and what a wrong one is told."""

from __future__ import annotations

import pytest

from support.address_fixtures import address_problem, assert_problem, checked_address


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
        ("CA", "K2P 2N2", "K2P 2N2"),
        ("CA", "k2p2n2", "K2P 2N2"),
        ("CA", "m5v 3l9", "M5V 3L9"),
        ("CA", "H2X1Y4", "H2X 1Y4"),
        ("CA", "V6B-1A1", "V6B 1A1"),
        ("CA", "X0A 0H0", "X0A 0H0"),
        ("CA", "Y1A 6E6", "Y1A 6E6"),
        ("CA", "K two P two N two", "K2P 2N2"),
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
        ("NL", "1012AB", "1012 AB"),
        ("NL", "one zero one two AB", "1012 AB"),
    ],
)
def test_valid_postal_codes(country: str, given: str, expected: str) -> None:
    # Without a region, so that it is found from the postal code and never contradicts it.
    assert checked_address(country, region=None, postal_code=given).postal_code == expected


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
    address = checked_address("NL", country=country, postal_code=given)
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
        ("ES", "2801", ("postal code 2801", "Spanish", "five digits")),
        # The Netherlands have no hint of our own: the metadata's examples are said.
        ("NL", "1", ("postal code 1 doesn't look right", "in the Netherlands look like 1234 AB")),
        ("NL", "12345678901", ("postal code 12345678901", "1234 AB")),
        ("NL", "ABCD", ("postal code ABCD", "1234 AB")),
        ("JP", "1000", ("postal code 1000", "in Japan look like 154-0023")),
    ],
)
def test_invalid_postal_codes(country: str, given: str, words: tuple[str, ...]) -> None:
    template = "NL" if country == "JP" else country
    problem = address_problem(template, country=country, postal_code=given)
    assert_problem(problem, "postal_code", *words)


@pytest.mark.parametrize(
    ("country", "given", "label"),
    [
        ("US", "00000", "The ZIP code 00000"),
        ("US", "00000-0000", "The ZIP code 00000-0000"),
        ("US", "zero zero zero zero zero", "The ZIP code zero zero zero zero zero"),
        ("US", "99999", "The ZIP code 99999"),
        ("US", "N/A", "The ZIP code N/A"),
        ("DE", "00000", "The postal code 00000"),
        ("FR", "00 000", "The postal code 00 000"),
        ("ES", "00000", "The postal code 00000"),
        ("CA", "none", "The postal code none"),
        ("GB", "unknown", "The postal code unknown"),
    ],
)
def test_placeholder_postal_codes(country: str, given: str, label: str) -> None:
    problem = address_problem(country, postal_code=given)
    assert_problem(problem, "postal_code", f"{label} looks like a placeholder", "Please check")


@pytest.mark.parametrize(
    ("country", "postal_code", "expected"),
    [("DE", "99999", "99999"), ("US", "99501", "99501")],
)
def test_only_the_us_reserves_99999(country: str, postal_code: str, expected: str) -> None:
    address = checked_address(country, region=None, postal_code=postal_code)
    assert address.postal_code == expected


@pytest.mark.parametrize(
    ("country", "given", "words"),
    [
        ("US", "9" * 13, ("The ZIP code is too long", "five digits")),
        ("NL", "1" * 13, ("The postal code is too long", "1234 AB")),
        ("GB", "SW1A 1AA " * 10, ("The postal code is too long", "SW1A 1AA")),
    ],
)
def test_postal_code_too_long(country: str, given: str, words: tuple[str, ...]) -> None:
    problem = address_problem(country, postal_code=given)
    assert_problem(problem, "postal_code", *words)
    assert given[:13] not in problem.message
