from __future__ import annotations

import phonenumbers
import pytest
from phonenumbers import PhoneNumberFormat, PhoneNumberType

from customer_service.normalize import (
    digits_from_speech,
    emails_match,
    names_match,
    normalize_email,
    normalize_name,
    normalize_phone,
    normalize_postal_code,
    numbers_from_speech,
    phones_match,
    postal_codes_match,
)


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("one zero zero one zero one", "100101"),
        ("100-101", "100101"),
        ("1 0 0 1 0 1", "100101"),
        ("One Zero ZERO one zero one", "100101"),
        ("oh o zero", "000"),
        ("double five", "55"),
        ("triple nine one", "9991"),
        ("four one five double five five", "415555"),
        ("(415) 555.0134, thanks", "4155550134"),
        ("it is order number one hundred", "1"),
        ("double", ""),
        ("double trouble five", "5"),
        ("ninety four one oh seven", "94107"),
        ("four fifteen double five five", "415555"),
        ("nineteen eighty four", "1984"),
        ("twenty", "20"),
        ("twenty oh one", "2001"),
        ("no digits here", ""),
        ("", ""),
        ("١٢٣", ""),
    ],
)
def test_digits_from_speech(text: str, digits: str) -> None:
    assert digits_from_speech(text) == digits


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("yes, 100-102", ["100102"]),
        ("1 0 0, 1 0 2", ["100102"]),
        ("one double zero, one oh two", ["100102"]),
        ("one twenty three Main Street", ["123"]),
        ("ninety four one oh seven, four fifteen", ["94107415"]),
        ("500 Howard St, Apt 4B, CA 94107", ["500", "4", "94107"]),
        ("yes 0", ["0"]),
        ("oh yes", []),
        ("oh, oh, yes please", []),
        ("zero", ["0"]),
        ("no digits here", []),
        ("", []),
    ],
)
def test_numbers_from_speech(text: str, numbers: list[str]) -> None:
    assert numbers_from_speech(text) == numbers


@pytest.mark.parametrize(
    ("text", "region", "e164"),
    [
        ("+1 (415) 555-0134", "US", "+14155550134"),
        ("4155550134", "US", "+14155550134"),
        ("415.555.0134", "US", "+14155550134"),
        ("1 415 555 0134", "US", "+14155550134"),
        ("four one five five five five zero one three four", "US", "+14155550134"),
        ("four one five triple five oh one three four", "US", "+14155550134"),
        ("plus one four one five five five five zero one three four", "US", "+14155550134"),
        ("Plus one 415 555 0134", "ES", "+14155550134"),
        ("+34 911 23 45 67", "US", "+34911234567"),
        ("911234567", "ES", "+34911234567"),
        ("911234567", "es", "+34911234567"),
        ("00 34 911 23 45 67", "ES", "+34911234567"),
    ],
)
def test_normalize_phone(text: str, region: str, e164: str) -> None:
    assert normalize_phone(text, region) == e164


@pytest.mark.parametrize(
    ("text", "region"),
    [
        ("", "US"),
        ("no idea", "US"),
        ("123", "US"),
        ("555 0134", "US"),  # no area code: only dialable locally
        ("911234567", "US"),
        ("4155550134", "XX"),  # unknown region and no country code
        ("4155550134", ""),
        ("+1 415 555 0134 0134 0134 0134", "US"),
    ],
)
def test_normalize_phone_rejects(text: str, region: str) -> None:
    assert normalize_phone(text, region) is None


@pytest.mark.parametrize(
    ("text", "email"),
    [
        ("jordan.lee@example.com", "jordan.lee@example.com"),
        ("  Jordan.Lee@Example.com ", "jordan.lee@example.com"),
        ("jordan dot lee at example dot com", "jordan.lee@example.com"),
        ("Jordan Dot Lee At Example Dot Com.", "jordan.lee@example.com"),
        ("j o r d a n dot l e e at example dot com", "jordan.lee@example.com"),
        ("jordan.lee at example.com", "jordan.lee@example.com"),
        ("priya underscore n at example dot co dot uk", "priya_n@example.co.uk"),
        ("maria dash garcia at example dot es", "maria-garcia@example.es"),
        ("my email is jordan dot lee at example dot com", "jordan.lee@example.com"),
        ("Email: jordan.lee@example.com", "jordan.lee@example.com"),
        ("jordan dot lee at sign example dot com", "jordan.lee@example.com"),
        ("J-O-R-D-A-N dot L-E-E at example dot com", "jordan.lee@example.com"),
        ("jordan at sign dot com", "jordan@sign.com"),
        ("maría.garcía@ejemplo.es", "maría.garcía@ejemplo.es"),
    ],
)
def test_normalize_email(text: str, email: str) -> None:
    assert normalize_email(text) == email


@pytest.mark.parametrize(
    "text",
    [
        "",
        "jordan",
        "jordan.lee.example.com",
        "@example.com",
        "jordan@",
        "jordan@example",
        "jordan@@example.com",
        "jordan@example@example.com",
        "jordan at example at example dot com",
        "jordan lee@example.com",
        "jordan@example..com",
        "jordan@.com",
        "jordan,lee@example.com",
    ],
)
def test_normalize_email_rejects(text: str) -> None:
    assert normalize_email(text) is None


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("  María   GARCÍA ", "maria garcia"),
        ("Jordan Lee", "jordan lee"),
        ("O'Brien-Smith", "o'brien-smith"),
        ("O\u2019Brien", "o'brien"),
        ("Lee, Jordan.", "lee jordan"),
        ("Straße", "strasse"),
        ("Zoë Ångström", "zoe angstrom"),
        ("", ""),
    ],
)
def test_normalize_name(text: str, name: str) -> None:
    assert normalize_name(text) == name


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("9 4 1 0 7", "94107"),
        ("94107", "94107"),
        ("nine four one oh seven", "94107"),
        ("nine four one zero seven", "94107"),
        ("one double oh oh one", "10001"),
        ("ninety four one oh seven", "94107"),
        ("twenty eight oh one three", "28013"),
        ("my zip is 94107", "94107"),
        ("zip code 9 4 1 0 7", "94107"),
        ("the postcode is SW1A 1AA", "SW1A1AA"),
        ("94107-1234", "941071234"),
        ("sw1a 1aa", "SW1A1AA"),
        ("SW1A-1AA", "SW1A1AA"),
        ("s w one a one a a", "SW1A1AA"),
        ("p o one three a b", "PO13AB"),  # letter O kept when the code has letters
        ("28013.", "28013"),
        ("", ""),
    ],
)
def test_normalize_postal_code(text: str, code: str) -> None:
    assert normalize_postal_code(text) == code


@pytest.mark.parametrize(
    ("given", "on_file", "country", "expected"),
    [
        ("94107", "94107", "US", True),
        ("9 4 1 0 7", "94107", "US", True),
        ("nine four one oh seven", "94107", "US", True),
        ("94107-1234", "94107", "US", True),
        ("941071234", "94107", "us", True),
        ("my zip is 94107", "94107", "US", True),
        ("ninety four one oh seven", "94107", "US", True),
        ("ninety four one oh eight", "94107", "US", False),
        ("twenty eight oh one three", "28013", "ES", True),
        ("94108", "94107", "US", False),
        ("9410", "94107", "US", False),
        ("9410712", "94107", "US", False),
        ("", "94107", "US", False),
        ("28013", "28013", "ES", True),
        ("2 8 0 1 3", "28013", "ES", True),
        ("28014", "28013", "ES", False),
        ("280131234", "28013", "ES", False),  # ZIP+4 leniency is US-only
        ("sw1a 1aa", "SW1A 1AA", "GB", True),
        ("sw1a", "SW1A 1AA", "GB", False),
        ("", "", "GB", False),
    ],
)
def test_postal_codes_match(given: str, on_file: str, country: str, expected: bool) -> None:
    assert postal_codes_match(given, on_file, country) is expected


@pytest.mark.parametrize(
    ("given", "on_file", "region", "expected"),
    [
        ("415 555 0134", "+14155550134", "US", True),
        ("+1 (415) 555-0134", "+14155550134", "ES", True),
        ("four one five five five five zero one three four", "+14155550134", "US", True),
        ("four fifteen triple five oh one three four", "+14155550134", "US", True),
        ("four one five fifty five fifty oh one three four", "+14155550134", "US", False),
        ("911 23 45 67", "+34911234567", "ES", True),
        # Said without a country code, read in the country of the number on file.
        ("911 23 45 67", "+34911234567", "US", True),
        ("415 555 0135", "+14155550134", "US", False),
        ("+44 415 555 0134", "+14155550134", "US", False),
        ("555 0134", "+14155550134", "US", False),
        ("", "+14155550134", "US", False),
        ("415 555 0134", "not a phone", "US", False),
    ],
)
def test_phones_match(given: str, on_file: str, region: str, expected: bool) -> None:
    assert phones_match(given, on_file, region) is expected


@pytest.mark.parametrize(
    ("given", "on_file", "expected"),
    [
        ("jordan dot lee at example dot com", "jordan.lee@example.com", True),
        ("JORDAN.LEE@EXAMPLE.COM", "jordan.lee@example.com", True),
        ("j o r d a n dot l e e at example dot com", "jordan.lee@example.com", True),
        ("my email is jordan dot lee at sign example dot com", "jordan.lee@example.com", True),
        ("J-O-R-D-A-N dot lee at example dot com", "jordan.lee@example.com", True),
        ("jordan.lee@example.org", "jordan.lee@example.com", False),
        ("jordanlee@example.com", "jordan.lee@example.com", False),
        ("jordan", "jordan", False),
        ("", "", False),
    ],
)
def test_emails_match(given: str, on_file: str, expected: bool) -> None:
    assert emails_match(given, on_file) is expected


@pytest.mark.parametrize(
    ("given", "on_file", "expected"),
    [
        ("maria garcia", "María García", True),
        ("  MARÍA   garcía ", "María García", True),
        ("Jordan Lee", "Jordan Lee", True),
        ("obrien", "O'Brien", True),
        ("o brien", "O'Brien", True),
        ("j o r d a n l e e", "Jordan Lee", True),
        ("J-O-R-D-A-N L-E-E", "Jordan Lee", True),
        ("Jordanlee", "Jordan Lee", True),
        ("Maria", "María García", False),
        ("Garcia Maria", "María García", False),
        ("Jordan Leigh", "Jordan Lee", False),
        ("", "Jordan Lee", False),
        ("...", "", False),
    ],
)
def test_names_match(given: str, on_file: str, expected: bool) -> None:
    assert names_match(given, on_file) is expected


def test_every_regions_numbers_match_as_dialled_at_home_or_abroad() -> None:
    # `phones_match` compares the last digits before it parses anything: no way of
    # writing a number (trunk prefixes, Argentina's mobile 15, international forms)
    # may lose a match for it, and a different last digit never matches.
    checked = 0
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        for kind in (PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE):
            example = phonenumbers.example_number_for_type(region, kind)
            if example is None:
                continue
            on_file = phonenumbers.format_number(example, PhoneNumberFormat.E164)
            if normalize_phone(on_file, region) != on_file:
                continue  # not a number the store could hold
            for form in (PhoneNumberFormat.NATIONAL, PhoneNumberFormat.INTERNATIONAL):
                written = phonenumbers.format_number(example, form)
                assert phones_match(written, on_file, region), (region, written)
                other = written[:-1] + str((int(written[-1]) + 1) % 10)
                assert not phones_match(other, on_file, region), (region, other)
                checked += 1
    assert checked > 400
