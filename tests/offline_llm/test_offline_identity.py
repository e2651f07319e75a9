"""The identity specialist: gathering name, postal code and phone or email."""

from __future__ import annotations

import pytest

from support.offline_chat import (
    IDENTITY,
    IDENTITY_QUESTION,
    agent,
    answer,
    called,
    said,
    tool_round,
    user,
)


def check(full_name: str, postal_code: str, phone_or_email: str) -> tuple[str, dict[str, str]]:
    return (
        "check_identity",
        {"full_name": full_name, "postal_code": postal_code, "phone_or_email": phone_or_email},
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "Jordan Lee, 94107, jordan.lee@example.com",
            check("Jordan Lee", "94107", "jordan.lee@example.com"),
        ),
        (
            "My name is Priya Natarajan, zip 10001, phone 212 555 0188",
            check("Priya Natarajan", "10001", "212 555 0188"),
        ),
        (
            "This is María García, 28013, maria.garcia@example.es",
            check("María García", "28013", "maria.garcia@example.es"),
        ),
        (
            "María García 28013 maria.garcia@example.es",
            check("María García", "28013", "maria.garcia@example.es"),
        ),
        (
            "jordan lee, nine four one zero seven, jordan dot lee at example dot com",
            check("jordan lee", "nine four one zero seven", "jordan dot lee at example dot com"),
        ),
        (
            "I'm Jordan Lee and my zip is 94107, email jordan.lee@example.com.",
            check("Jordan Lee", "94107", "jordan.lee@example.com"),
        ),
        (
            "sure, it's jordan lee, postcode SW1A 1AA, 020 7946 0018",
            check("jordan lee", "SW1A 1AA", "020 7946 0018"),
        ),
        (
            "My name is Will May and my zip is 94107, will.may@example.com",
            check("Will May", "94107", "will.may@example.com"),
        ),
        (
            "Jordan Lee, K1A 0B1, jordan.lee@example.com",
            check("Jordan Lee", "K1A 0B1", "jordan.lee@example.com"),
        ),
        (
            "Jordan Lee, 94107-1234, jordan.lee@example.com",
            check("Jordan Lee", "94107-1234", "jordan.lee@example.com"),
        ),
    ],
)
async def test_identity_details_in_one_line(
    line: str, expected: tuple[str, dict[str, str]]
) -> None:
    assert called(await answer(IDENTITY, user(line))) == expected


@pytest.mark.parametrize(
    "phone",
    [
        "+1 (415) 555-0134",
        "(415) 555-0134",
        "415.555.0134",
        "415-555-0134",
        "4155550134",
        "+14155550134",
        "plus one four one five five five five zero one three four",
        "four one five double five five zero one three four",
    ],
)
async def test_identity_phone_formats(phone: str) -> None:
    response = await answer(IDENTITY, user(f"Jordan Lee, 94107, {phone}"))
    assert called(response) == check("Jordan Lee", "94107", phone)


async def test_identity_details_across_lines_later_ones_correct() -> None:
    lines = [
        user("It's Jordan Lee"),
        user("zip is 94110"),
        user("sorry, 94107"),
        user("jordan.lee@example.com"),
    ]
    assert called(await answer(IDENTITY, *lines)) == check(
        "Jordan Lee", "94107", "jordan.lee@example.com"
    )


async def test_identity_starts_over_after_each_check() -> None:
    response = await answer(
        IDENTITY,
        user("Jordan Lee, 94110, jordan.lee@example.com"),
        tool_round("check_identity", "Those details don't match.", is_error=True),
        agent("Those details don't match."),
        user("94107"),
    )
    assert said(response) == (
        "Thanks. I still need your full name and the phone number or email on the account."
    )


@pytest.mark.parametrize(
    ("line", "prompt"),
    [
        (
            "Jordan Lee, jordan.lee@example.com",
            "Thanks. I still need the postal code on the account.",
        ),
        ("94107, jordan.lee@example.com", "Thanks. I still need your full name."),
        ("Jordan Lee, 94107", "Thanks. I still need the phone number or email on the account."),
        ("yes, 94107, 415 555 0134", "Thanks. I still need your full name."),
        (
            "Jordan Lee",
            "Thanks. I still need the postal code and the phone number or email on the account.",
        ),
        ("sure", IDENTITY_QUESTION),
        ("Where is my order?", IDENTITY_QUESTION),
        ("My package never arrived", IDENTITY_QUESTION),
    ],
)
async def test_identity_asks_for_exactly_what_is_missing(line: str, prompt: str) -> None:
    assert said(await answer(IDENTITY, user(line))) == prompt


@pytest.mark.parametrize("line", ["I don't know", "never mind", "forget it", "cancel", "I give up"])
async def test_identity_give_up(line: str) -> None:
    assert called(await answer(IDENTITY, user(line))) == ("give_up", {})
