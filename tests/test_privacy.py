from __future__ import annotations

from collections.abc import Callable

import pytest

from customer_service.privacy import (
    mask_address,
    mask_email,
    mask_free_text,
    mask_name,
    mask_phone,
    mask_value,
)


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


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (
            "Caller is VERIFIED as Jordan Lee (phone 415 555 0134); supervisor approved",
            "Caller is VERIFIED as J. L. (phone *******0134); supervisor approved",
        ),
        ("write to jordan.lee@example.com today", "write to j***@example.com today"),
        ("said jordan dot lee at example dot com", "said j***"),
        ("from +34 911 23 45 67", "from +34*******4567"),
        ("number four one five five five five zero one three four", "number *******0134"),
        ("send it to 500 Howard St, Apt 4B please", "send it to 500*** please"),
        ("1 Market Street, Suite 5, San Francisco", "1 M***, S. F."),
        ("now at Calle de Alcalá 45, Madrid", "now at Cal***, Madrid"),
        ("María García and O'Brien-Smith Jones", "M. G. and O. J."),
        # What a colleague needs stays: order and tracking numbers, dates, counts.
        (
            "order 100101 (UPS 1Z999AA10123456784) placed 2026-11-02, 3 failed checks",
            "order 100101 (UPS 1Z999AA10123456784) placed 2026-11-02, 3 failed checks",
        ),
        ("", ""),
    ],
)
def test_mask_free_text(text: str, masked: str) -> None:
    assert mask_free_text(text) == masked


def test_mask_free_text_masks_names_it_is_given_whatever_their_case() -> None:
    assert mask_free_text("jordan lee called; lee wants jordan's refund", names=["Jordan Lee"]) == (
        "J. L. called; L. wants J.'s refund"
    )
