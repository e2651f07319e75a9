"""Addresses that pass every character check and still name no place: placeholders,
references to another address, keyboard mash, a ZIP+4 ending in 0000. Each is refused
with a sentence that says what to give instead; real addresses in every shape pass."""

from __future__ import annotations

import pytest

from customer_service.addresses import AddressField
from support.address_fixtures import address_problem, assert_problem, checked_address

STREET_WANTED = "Please give the house number and street name"
CITY_WANTED = "Please give the name of the city or town"


@pytest.mark.parametrize(
    ("field", "given", "says"),
    [
        ("street", "123 Fake Street", "looks like a placeholder"),
        ("street", "1 Test St", "looks like a placeholder"),
        ("street", "42 Example Avenue", "looks like a placeholder"),
        ("street", "5 Dummy Rd", "looks like a placeholder"),
        ("street", "same as before", "I need the address itself"),
        ("street", "Same as above", "I need the address itself"),
        ("street", "the usual one", "I need the address itself"),
        ("street", "my previous address", "I need the address itself"),
        ("street", "aaaa", "doesn't look like a real street name"),
        ("street", "12 zzzz Street", "doesn't look like a real street name"),
        ("street", "asdf", "doesn't look like a real street name"),
        ("street", "10 Qwerty Lane", "doesn't look like a real street name"),
        ("street", "1 A", "doesn't look like a real street name"),
        ("street", "12 B", "doesn't look like a real street name"),
        ("city", "asdf", "doesn't look like a real place name"),
        ("city", "Qwerty", "doesn't look like a real place name"),
        ("city", "aaaa", "doesn't look like a real place name"),
        ("city", "Zzz", "doesn't look like a real place name"),
        ("city", "same as before", "doesn't look like a real place name"),
        ("city", "Test City", "looks like a placeholder"),
        ("city", "Faketown Fake", "looks like a placeholder"),
    ],
)
def test_a_street_or_city_that_names_no_place_is_refused(
    field: AddressField, given: str, says: str
) -> None:
    problem = address_problem(**{field: given})
    assert_problem(problem, field, says, STREET_WANTED if field == "street" else CITY_WANTED)


@pytest.mark.parametrize("zip_plus_4", ["94107-0000", "941070000", "94107 0000"])
def test_a_zip_plus_4_ending_in_0000_is_refused(zip_plus_4: str) -> None:
    problem = address_problem(postal_code=zip_plus_4)
    assert_problem(
        problem, "postal_code", "never all zeros", "five-digit ZIP code, like 94107", "ZIP+4"
    )


@pytest.mark.parametrize(
    ("template", "field", "given"),
    [
        ("US", "street", "500 Howard St"),
        ("US", "street", "1 Market Street"),
        ("US", "street", "123 Main Street"),
        ("US", "street", "Avenue A"),
        ("US", "street", "500 5th Ave"),
        ("US", "street", "10 Testwood Lane"),
        ("US", "street", "Fakenham Road"),
        ("US", "street", "1 Old Mill Road"),
        ("US", "street", "1 Same Street Way"),
        ("US", "street", "3 Henry III Street"),
        ("US", "street", "77 Sample Road"),
        ("US", "street", "1600 Pennsylvania Avenue NW"),
        ("US", "street", "PO Box 123"),
        ("US", "street", "Aa Street 4"),
        ("US", "city", "San Francisco"),
        ("US", "city", "Oologah"),
        ("US", "city", "Lake Oswego"),
        ("US", "postal_code", "94107-1234"),
        ("US", "postal_code", "94107-0001"),
        ("GB", "city", "Ii"),
        ("DE", "street", "Unter den Linden 77"),
        ("FR", "street", "55 Rue du Faubourg Saint-Honoré"),
        ("ES", "street", "Calle de Alcalá 45"),
        ("NL", "street", "Dam 1"),
        ("RO", "street", "Strada Lipscani 1"),
    ],
)
def test_real_addresses_pass(template: str, field: str, given: str) -> None:
    address = checked_address(template, **{field: given})
    assert address.model_dump()[field] == given
