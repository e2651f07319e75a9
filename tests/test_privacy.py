from __future__ import annotations

from collections.abc import Callable

import pytest

from customer_service.privacy import (
    PersonalField,
    mask_address,
    mask_email,
    mask_free_text,
    mask_name,
    mask_phone,
    mask_tracking_number,
    mask_value,
    personal_field,
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
        # What a colleague needs stays: order numbers, dates, counts, a tracking number's
        # last four characters.
        (
            "order 100101 (UPS 1Z999AA10123456784) placed 2026-11-02, 3 failed checks",
            "order 100101 (UPS *******6784) placed 2026-11-02, 3 failed checks",
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


# The shapes callers and the agent use: each is masked, whoever says it.
@pytest.mark.parametrize(
    ("text", "masked"),
    [
        # Digits across commas, "and", "oh", number words, "double"; the agent's read-out.
        ("call me on 415, 555, 0134", "call me on *******0134"),
        ("four one five, five five five, oh one three four", "*******0134"),
        ("I have 4 1 5, 5 5 5, 0 1 3 4. Is that right?", "I have *******0134. Is that right?"),
        ("four one five, 555, 0 1 three four", "*******0134"),
        ("four fifteen, double five five, oh one three four", "*******0134"),
        ("415 and 555 and 0134", "*******0134"),
        ("plus thirty four, 911, 234, 567", "+34*******4567"),
        ("+34, 911, 234, 567", "+34*******4567"),
        ("card 4111, 1111, 1111, 1111", "card *******1111"),
        ("4 1 5, 5 5 5, and 0 1 3 4", "*******0134"),
        # Twelve digits in groups of three with no "and": one number, not two orders.
        ("6 8 2, 3 0 8, 7 3 6, 9 3 1", "*******6931"),
        # Spelled and spoken emails.
        ("it's j o r d a n dot l e e at example dot com", "it's j***"),
        ("jordan dot lee at example dot com", "j***"),
        ("jordan.lee at example.com", "j***"),
        ("J-O-R-D-A-N dot lee at example dot com", "J***"),
        ("j, o, r, d, a, n, dot, l, e, e, at, example, dot, com", "j***"),
        ("priya underscore n at the sign example dot com", "p***"),
        # Streets in number words.
        ("five hundred howard street", "fiv***"),
        ("one market street suite five", "one***"),
        ("it's twelve oak avenue, please", "it's twe***, please"),
        ("two thousand and five mission st", "two***"),
        # A tracking number, written or read out: its last four at most.
        (
            "tracking number 1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4.",
            "tracking number *******6784.",
        ),
        ("UPS 1Z999AA10123456784", "UPS *******6784"),
        # Names written as names, with their particles.
        ("Ana de la Cruz called", "A. D. L. C. called"),
    ],
)
def test_mask_free_text_masks_every_shape_a_detail_is_said_in(text: str, masked: str) -> None:
    assert mask_free_text(text) == masked


# What a colleague needs stays readable: order numbers as said whole or as the agent reads
# them ("1 0 0, 1 0 1": two groups of three), a list of them parted by "and", dates, counts
# and amounts, and sentences that only look like the start of an address.
@pytest.mark.parametrize(
    "text",
    [
        "order 100101",
        "order 1 0 0, 1 0 1, placed on November second, has shipped",
        "orders 1 0 0, 1 0 1 and 1 0 0, 1 0 2",
        "I couldn't find 1 0 0, 1 0 9 and 2 0 0, 2 0 1 on your account",
        "orders 100101, 100102 and 200201",
        "one double zero, one oh two",
        "Oh, 100101 please",
        "placed 2026-11-02, 3 failed checks",
        "a refund of $1,299.00 for 2 items",
        "You have 2 attempts left.",
        "I need to cancel one order and return two",
        "we are at this point in time",
        "I'll look at that for you",
    ],
)
def test_mask_free_text_keeps_what_a_colleague_needs(text: str) -> None:
    assert mask_free_text(text, names=["Jordan Lee"], details=["94107"]) == text


# The call's own names and details, in any case and however they are said or spelled.
@pytest.mark.parametrize(
    ("text", "names", "details", "masked"),
    [
        ("jordan lee called", ["Jordan Lee"], [], "J. L. called"),
        ("PRIYA NATARAJAN here", ["Priya Natarajan"], [], "P. N. here"),
        ("this is dana de la cruz", ["Dana de la Cruz"], [], "this is D. D. L. C."),
        ("ms de la cruz, or just cruz", ["de la Cruz"], [], "ms D. L. C., or just C."),
        ("maria garcia, María García", ["María García"], [], "M. G., M. G."),
        ("it's j o r d a n, lee", ["Jordan Lee"], [], "it's J. L."),
        ("J-O-R-D-A-N", ["Jordan Lee"], [], "J."),
        ("my zip is 94107", [], ["94107"], "my zip is ***"),
        ("nine four one oh seven", [], ["9 4 1 0 7"], "***"),
        ("ninety four, one oh seven", [], ["94107"], "***"),
        ("CA 94107, United States", [], ["94107"], "CA ***, U. S."),
        # Inside a longer run, a postal code keeps none of its digits.
        ("100101, 94107", [], ["94107"], "***"),
        ("postcode s w 1 a, 1 a a", [], ["SW1A 1AA"], "postcode ***"),
        ("it's jordanlee, all one word", [], ["jordan.lee@example.com"], "it's j***, all one word"),
        ("on gran via 12", [], ["Gran Vía 12"], "on ***"),
    ],
)
def test_mask_free_text_masks_the_calls_names_and_details_in_any_shape(
    text: str, names: list[str], details: list[str], masked: str
) -> None:
    assert mask_free_text(text, names=names, details=details) == masked


@pytest.mark.parametrize(
    ("number", "masked"),
    [("1Z999AA10123456784", "*******6784"), ("682308736931", "*******6931"), ("1Z9", "***")],
)
def test_mask_tracking_number_keeps_its_last_four_at_most(number: str, masked: str) -> None:
    assert mask_tracking_number(number) == masked


@pytest.mark.parametrize(
    ("key", "field"),
    [
        ("full_name", PersonalField.NAME),
        ("name_given", PersonalField.NAME),
        ("phone_or_email", PersonalField.CONTACT),
        ("new_phone", PersonalField.PHONE),
        ("email", PersonalField.EMAIL),
        ("street", PersonalField.ADDRESS),
        ("postal_code", PersonalField.POSTAL_CODE),
        ("tracking_number", PersonalField.TRACKING_NUMBER),
        ("order_id", None),
        ("reason", None),
    ],
)
def test_a_field_is_known_by_its_name(key: str, field: PersonalField | None) -> None:
    assert personal_field(key) is field
