"""Regions: each country's list from Google's address metadata, by code, name or alias;
checked against the postal code, found from it when not said, left out where a
country's addresses have none."""

from __future__ import annotations

import pytest

from customer_service.addresses.country_rules import country_rules
from customer_service.addresses.regions import REGION_ALIASES
from support.address_fixtures import (
    address_problem,
    assert_problem,
    checked_address,
    postal_code_in,
)


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
    postal_code = postal_code_in("US", expected)
    assert checked_address("US", region=given, postal_code=postal_code).region == expected


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
    postal_code = postal_code_in("CA", expected)
    assert checked_address("CA", region=given, postal_code=postal_code).region == expected


@pytest.mark.parametrize("country", ["US", "CA", "ES"])
def test_every_region_name_code_and_alias(country: str) -> None:
    regions = country_rules(country).regions
    assert len(regions) == {"US": 62, "CA": 13, "ES": 52}[country]
    for code, region in regions.items():
        for given in (code, code.lower(), region.name, region.name.upper(), region.name.lower()):
            # Each region with a postal code of its own, so the two agree.
            assert (
                checked_address(
                    country, region=given, postal_code=postal_code_in(country, code)
                ).region
                == code
            ), given
    for alias, code in REGION_ALIASES.get(country, {}).items():
        assert code in regions
        assert (
            checked_address(country, region=alias, postal_code=postal_code_in(country, code)).region
            == code
        ), alias


@pytest.mark.parametrize(
    ("country", "given", "words"),
    [
        ("US", "QQ", ("The state QQ isn't one I recognise", "California or CA")),
        ("US", "Ontario", ("The state Ontario", "California or CA")),
        ("CA", "California", ("The province California", "Ontario or ON")),
        ("CA", "CA", ("The province CA", "Ontario or ON")),
        # A Spanish address with an American state: the country or the region is wrong.
        ("ES", "California", ("The province California", "in Spain", "check the country")),
        # A British (German) address has no region; a US state or Canadian province there
        # means the country is wrong.
        ("GB", "CA", ("The region CA", "US state or Canadian province", "check the country")),
        ("GB", "California", ("The region California", "check the country")),
        ("DE", "Ontario", ("The region Ontario", "check the country")),
    ],
)
def test_invalid_regions(country: str, given: str | None, words: tuple[str, ...]) -> None:
    assert_problem(address_problem(country, region=given), "region", *words)


@pytest.mark.parametrize(
    ("country", "given", "postal_code", "expected"),
    [
        ("US", None, "94107", "CA"),
        ("US", "", "10001", "NY"),
        ("US", "   ", "94107", "CA"),
        ("US", "N/A", "94107", "CA"),
        ("CA", None, "K1M 1M4", "ON"),
        ("CA", None, "H2X 1Y4", "QC"),
        ("ES", None, "28014", "M"),
        ("ES", None, "08201", "B"),
    ],
)
def test_region_found_from_the_postal_code(
    country: str, given: str | None, postal_code: str, expected: str
) -> None:
    assert checked_address(country, region=given, postal_code=postal_code).region == expected


@pytest.mark.parametrize(
    ("country", "postal_code", "words"),
    [
        # 73301 is a ZIP code in both Texas and Oklahoma's ranges.
        ("US", "73301", ("The state is missing", "California or CA")),
        # K1A is Ottawa's federal code, in both Ontario's and Quebec's ranges.
        ("CA", "K1A 0B1", ("The province is missing", "Ontario or ON")),
    ],
)
def test_region_missing_when_the_postal_code_does_not_say(
    country: str, postal_code: str, words: tuple[str, ...]
) -> None:
    assert_problem(address_problem(country, region=None, postal_code=postal_code), "region", *words)


@pytest.mark.parametrize(
    ("country", "region", "postal_code", "words"),
    [
        (
            "US",
            "CA",
            "10001",
            ("The ZIP code 10001 isn't one for California", "check the ZIP code or the state"),
        ),
        ("US", "California", "10001", ("isn't one for California",)),
        ("US", "NY", "94107", ("The ZIP code 94107 isn't one for New York",)),
        (
            "CA",
            "ON",
            "H2X 1Y4",
            ("The postal code H2X 1Y4 isn't one for Ontario", "or the province"),
        ),
        ("ES", "M", "08001", ("The postal code 08001 isn't one for Madrid", "or the province")),
        (
            "ES",
            None,
            "53001",
            ("The postal code 53001 isn't one in Spain", "check the postal code"),
        ),
    ],
)
def test_postal_code_of_another_region(
    country: str, region: str | None, postal_code: str, words: tuple[str, ...]
) -> None:
    problem = address_problem(country, region=region, postal_code=postal_code)
    assert_problem(problem, "postal_code", *words)


@pytest.mark.parametrize(
    ("country", "given", "expected"),
    [
        ("GB", None, ""),
        ("GB", "", ""),
        ("GB", "  ", ""),
        ("GB", "none", ""),
        # Not part of a British, French or German address, so neither written nor read back.
        ("GB", "Greater  London", ""),
        ("FR", "Île-de-France", ""),
        ("DE", "Bayern", ""),
        ("ES", "M", "M"),
        ("ES", "Madrid", "M"),
        ("ES", "madrid", "M"),
    ],
)
def test_regions_outside_north_america(country: str, given: str | None, expected: str) -> None:
    assert checked_address(country, region=given).region == expected


@pytest.mark.parametrize(
    ("country", "given", "postal_code", "expected"),
    [
        # The word that says what kind of region it is may be said or left out.
        ("IE", "County Dublin", "D02 X285", "Co. Dublin"),
        ("IE", "Dublin", "D02 X285", "Co. Dublin"),
        ("US", "Washington State", "98101", "WA"),
        ("CN", "Beijing", "100000", "北京市"),
        # Where the metadata lists regions but an address needs none, another is kept.
        ("IE", "Leinster", "D02 X285", "Leinster"),
    ],
)
def test_region_names_as_said(country: str, given: str, postal_code: str, expected: str) -> None:
    address = checked_address("NL", country=country, region=given, postal_code=postal_code)
    assert address.region == expected


def test_a_required_region_without_a_list_must_be_said() -> None:
    problem = address_problem("NL", country="AS", region=None, postal_code="96799")
    assert_problem(problem, "region", "The state is missing", "American Samoa")
    address = checked_address("NL", country="AS", region="Tutuila", postal_code="96799")
    assert address.region == "Tutuila"
