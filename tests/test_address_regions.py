"""Regions: US states and Canadian provinces by code, name or alias; free text elsewhere."""

from __future__ import annotations

import pytest

from customer_service.addresses.regions import (
    CA_PROVINCE_ALIASES,
    CA_PROVINCE_NAMES,
    US_STATE_ALIASES,
    US_STATE_NAMES,
)
from support.address_fixtures import address_problem, assert_problem, checked_address


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
    assert checked_address("US", region=given).region == expected


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
    assert checked_address("CA", region=given).region == expected


@pytest.mark.parametrize(
    ("country", "names", "aliases"),
    [("US", US_STATE_NAMES, US_STATE_ALIASES), ("CA", CA_PROVINCE_NAMES, CA_PROVINCE_ALIASES)],
)
def test_every_region_name_code_and_alias(
    country: str, names: dict[str, str], aliases: dict[str, str]
) -> None:
    for code, name in names.items():
        for given in (code, code.lower(), name, name.upper(), name.lower()):
            assert checked_address(country, region=given).region == code, given
    for alias, code in aliases.items():
        assert code in names
        assert checked_address(country, region=alias).region == code, alias


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
    assert_problem(address_problem(country, region=given), "region", *words)


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
    assert checked_address(country, region=given).region == expected
