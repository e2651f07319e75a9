"""The identity specialist: gathering name, postal code and phone or email."""

from __future__ import annotations

import pytest
from livekit.agents import llm

from customer_service.offline_llm.identity_details import (
    email_or_name_zip_arguments,
    identity_details,
)
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


# --- speech-shaped details: no punctuation, number words, spelling, corrections ---------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Jordan Lee 94107 415 555 0134", check("Jordan Lee", "94107", "415 555 0134")),
        ("415 555 0134 94107 Jordan Lee", check("Jordan Lee", "94107", "415 555 0134")),
        (
            "jordan lee nine four one oh seven four one five double five five oh one three four",
            check(
                "jordan lee",
                "nine four one oh seven",
                "four one five double five five oh one three four",
            ),
        ),
        (
            "jordan lee ninety four one oh seven four fifteen triple five oh one three four",
            check(
                "jordan lee",
                "ninety four one oh seven",
                "four fifteen triple five oh one three four",
            ),
        ),
        (
            "j o r d a n, l e e, 94107, 4155550134",
            check("Jordan Lee", "94107", "4155550134"),
        ),
        ("j o r d a n l e e 94107 4155550134", check("Jordanlee", "94107", "4155550134")),
        (
            "Jordan Lee 94107 my email is j o r d a n dot l e e at example dot com",
            check("Jordan Lee", "94107", "j o r d a n dot l e e at example dot com"),
        ),
        (
            "Jordan Lee 94110 no wait I mean 94107 415 555 0134",
            check("Jordan Lee", "94107", "415 555 0134"),
        ),
        (
            "Jordan Lee, 94107, 415 555 0134, oh wait, I mean jordan.lee@example.com",
            check("Jordan Lee", "94107", "jordan.lee@example.com"),
        ),
        (
            "Jordon Lee, 94107, 415 555 0134, sorry, it's Jordan with an a",
            check("Jordan Lee", "94107", "415 555 0134"),
        ),
        (
            "my name is Jordan Lee, zip code nine four one zero seven, "
            "phone number four one five, five five five, zero one three four",
            check(
                "Jordan Lee",
                "nine four one zero seven",
                "four one five, five five five, zero one three four",
            ),
        ),
    ],
)
async def test_identity_details_said_as_speech(
    line: str, expected: tuple[str, dict[str, str]]
) -> None:
    assert called(await answer(IDENTITY, user(line))) == expected


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Jordan, j o r d a n, Lee, 94107, 415 555 0134", "Jordan Lee"),
        ("Jordan j o r d a n Lee 94107 415 555 0134", "Jordan Lee"),
        ("Jordon, that's J-O-R-D-A-N, Lee, 94107, 415 555 0134", "Jordan Lee"),
        ("Jordan Lee, l e e, 94107, 415 555 0134", "Jordan Lee"),
        ("my name is Jordan, spelled j o r d a n, Lee, 94107, 415 555 0134", "Jordan Lee"),
    ],
)
async def test_a_spelling_said_between_the_words_of_a_name_is_that_word(
    line: str, name: str
) -> None:
    assert called(await answer(IDENTITY, user(line))) == check(name, "94107", "415 555 0134")


@pytest.mark.parametrize(
    "line",
    [
        "Jordan Lee, 94107, jordan lee at example dot com",
        "Jordan Lee 94107 my email is jordan lee at example dot com",
    ],
)
async def test_an_email_with_a_space_in_its_name_part_is_asked_to_be_spelled(line: str) -> None:
    assert said(await answer(IDENTITY, user(line))) == "Thanks. Could you spell the email address?"


async def test_an_unclear_email_spelled_next_is_checked() -> None:
    response = await answer(
        IDENTITY,
        user("Jordan Lee, 94107, jordan lee at example dot com"),
        agent("Thanks. Could you spell the email address?"),
        user("j o r d a n dot l e e at example dot com"),
    )
    assert called(response) == check(
        "Jordan Lee", "94107", "j o r d a n dot l e e at example dot com"
    )


async def test_an_unclear_email_asks_for_its_spelling_with_what_else_is_missing() -> None:
    response = await answer(IDENTITY, user("it's jordan lee at example dot com"))
    assert said(response) == (
        "Thanks. I still need your full name and the postal code on the account. "
        "Could you also spell the email address?"
    )


async def test_identity_details_piece_by_piece_across_turns() -> None:
    response = await answer(
        IDENTITY,
        user("Jordan Lee"),
        agent("Thanks. I still need the postal code and the phone number or email on the account."),
        user("nine four one oh seven"),
        agent("Thanks. I still need the phone number or email on the account."),
        user("my email is j o r d a n dot l e e at example dot com"),
    )
    assert called(response) == check(
        "Jordan Lee", "nine four one oh seven", "j o r d a n dot l e e at example dot com"
    )


async def test_a_spelled_word_corrects_the_name_given_in_an_earlier_turn() -> None:
    response = await answer(
        IDENTITY,
        user("Jordon Lee, 94107"),
        agent("Thanks. I still need the phone number or email on the account."),
        user("sorry, it's j o r d a n"),
        agent("Thanks. I still need the phone number or email on the account."),
        user("415 555 0134"),
    )
    assert called(response) == check("Jordan Lee", "94107", "415 555 0134")


def failed_check(full_name: str, postal_code: str, phone_or_email: str) -> list[llm.ChatItem]:
    return [
        *tool_round(
            "check_identity",
            "Those details don't match.",
            is_error=True,
            full_name=full_name,
            postal_code=postal_code,
            phone_or_email=phone_or_email,
        ),
        agent("Those details don't match."),
    ]


@pytest.mark.parametrize(
    ("correction", "expected"),
    [
        ("sorry, the postal code is 94107", check("Jordon Lee", "94107", "415 555 0134")),
        (
            "oh wait, I mean nine four one oh seven",
            check("Jordon Lee", "nine four one oh seven", "415 555 0134"),
        ),
        ("it's Jordan with an a", check("Jordan Lee", "94110", "415 555 0134")),
        (
            "try my email, jordan.lee@example.com",
            check("Jordon Lee", "94110", "jordan.lee@example.com"),
        ),
    ],
)
async def test_after_a_failed_check_a_correction_is_checked_with_the_other_details(
    correction: str, expected: tuple[str, dict[str, str]]
) -> None:
    response = await answer(
        IDENTITY,
        user("Jordon Lee, 94110, 415 555 0134"),
        failed_check("Jordon Lee", "94110", "415 555 0134"),
        user(correction),
    )
    assert called(response) == expected


async def test_after_a_failed_check_a_spelled_name_corrects_the_name() -> None:
    response = await answer(
        IDENTITY,
        user("Jordan Leigh 94107 4155550134"),
        failed_check("Jordan Leigh", "94107", "4155550134"),
        user("it's Lee, l e e"),
    )
    assert called(response) == check("Jordan Lee", "94107", "4155550134")


@pytest.mark.parametrize("line", ["what do you mean?", "it's Jordan Lee", "94110"])
async def test_after_a_failed_check_no_new_detail_is_no_new_check(line: str) -> None:
    # A part said again unchanged would fail the same way and cost another attempt.
    response = await answer(
        IDENTITY,
        user("Jordan Lee, 94110, 415 555 0134"),
        failed_check("Jordan Lee", "94110", "415 555 0134"),
        user(line),
    )
    assert said(response) == IDENTITY_QUESTION


async def test_after_a_failed_check_the_same_details_said_whole_are_checked_again() -> None:
    response = await answer(
        IDENTITY,
        user("Jordan Lee, 94110, 415 555 0134"),
        failed_check("Jordan Lee", "94110", "415 555 0134"),
        user("Jordan Lee, 94110, 415 555 0134"),
    )
    assert called(response) == check("Jordan Lee", "94110", "415 555 0134")


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


@pytest.mark.parametrize(
    "request_line",
    [
        "please change my email to jordan.new@example.org",
        "my new email is jordan.new@example.org",
        "can you update my phone number to 415 555 0199?",
    ],
)
def test_a_contact_said_as_the_new_value_of_a_request_is_no_identity_detail(
    request_line: str,
) -> None:
    details = identity_details([request_line, "Jordan Lee, 94107"])
    assert details.phone_or_email is None
    assert email_or_name_zip_arguments(details) == {
        "full_name": "Jordan Lee",
        "postal_code": "94107",
    }
    # Said as the account's, it is one.
    on_file = identity_details(["Jordan Lee, 94107, my email is jordan.new@example.org"])
    assert on_file.phone_or_email == "jordan.new@example.org"
