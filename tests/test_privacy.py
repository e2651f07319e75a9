from __future__ import annotations

from collections.abc import Callable

import pytest

from customer_service.privacy import mask_address, mask_email, mask_name, mask_phone, mask_value


@pytest.mark.parametrize(
    ("phone", "masked"),
    [
        ("+14155550134", "+1*******0134"),
        ("+12125550188", "+1*******0188"),
        ("+34911234567", "+34*******4567"),
        ("+353861234567", "+35*******4567"),  # three-digit country code: two shown
        ("+1 (415) 555-0134", "+1*******0134"),
        ("4155550134", "*******0134"),
        ("12345", "***"),
        ("", "***"),
    ],
)
def test_mask_phone(phone: str, masked: str) -> None:
    assert mask_phone(phone) == masked


@pytest.mark.parametrize(
    ("email", "masked"),
    [
        ("jordan.lee@example.com", "j***@example.com"),
        ("maria.garcia@example.es", "m***@example.es"),
        (" a@b.co ", "a***@b.co"),
        ("not an email", "n***"),
        ("@example.com", "@***"),
    ],
)
def test_mask_email(email: str, masked: str) -> None:
    assert mask_email(email) == masked


@pytest.mark.parametrize(
    ("name", "masked"),
    [
        ("Jordan Lee", "J. L."),
        ("María García", "M. G."),
        ("priya  natarajan", "P. N."),
        ("Cher", "C."),
        ("", ""),
    ],
)
def test_mask_name(name: str, masked: str) -> None:
    assert mask_name(name) == masked


@pytest.mark.parametrize(
    ("address", "masked"),
    [
        ("500 Howard St, Apt 4B", "500***"),
        ("  Calle de Alcalá 45 ", "Cal***"),
        ("Elm", "E***"),
        ("", "***"),
    ],
)
def test_mask_address(address: str, masked: str) -> None:
    assert mask_address(address) == masked


@pytest.mark.parametrize(
    ("value", "masked"),
    [
        ("jordan.lee@example.com", "j***@example.com"),
        ("+14155550134", "+1*******0134"),
        ("(415) 555-0134", "*******0134"),
        ("Jordan Lee", "J***"),
        ("94107", "***"),
        ("", ""),
    ],
)
def test_mask_value(value: str, masked: str) -> None:
    assert mask_value(value) == masked


@pytest.mark.parametrize(
    "value",
    [
        "+14155550134",
        "jordan.lee@example.com",
        "Jordan Lee",
        "500 Howard St",
        "94107",
        "abcde",
        "12345",
        "a@b.c",
    ],
)
@pytest.mark.parametrize("mask", [mask_phone, mask_email, mask_name, mask_address, mask_value])
def test_no_mask_returns_its_input(value: str, mask: Callable[[str], str]) -> None:
    assert mask(value) != value
