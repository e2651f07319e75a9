"""`make chat` under IDENTITY_POLICY=email-or-name-zip, end to end: the real supervisor,
identity specialist and store, driven by the offline model through `converse`. The
offline model reads from the check it is offered which details it takes: a caller who
gives only their email, or only their name and zip code, is verified."""

from __future__ import annotations

import pytest

from customer_service.call.identity_policy import OPENING_QUESTION_EMAIL_OR_NAME_ZIP
from customer_service.settings import IdentityPolicy, Settings
from customer_service.specialists.identity import mismatch_message
from support.offline_chat import GOODBYE, chat

VERIFIED = "Thank you, Jordan Lee, you are verified."


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    """The store of the test's calls, on the test's backend."""
    return demo_database_url


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"identity_policy": IdentityPolicy.EMAIL_OR_NAME_ZIP})


@pytest.mark.parametrize(
    "details",
    ["jordan.lee@example.com", "It's jordan dot lee at example dot com", "Jordan Lee, 94107"],
    ids=["email", "email spoken", "name and zip"],
)
async def test_the_email_alone_or_the_name_and_zip_verify(
    database_url: str, settings: Settings, details: str
) -> None:
    said = (
        await chat(
            database_url, "I'd like to verify my account", details, GOODBYE, settings=settings
        )
    ).agent
    assert said[1] == OPENING_QUESTION_EMAIL_OR_NAME_ZIP
    assert said[2].startswith(VERIFIED)


async def test_a_name_then_a_zip_is_asked_for_the_rest_then_verified(
    database_url: str, settings: Settings
) -> None:
    said = (
        await chat(
            database_url, "Where is my order 100101?", "Jordan Lee", "94107", settings=settings
        )
    ).agent
    assert said[1] == OPENING_QUESTION_EMAIL_OR_NAME_ZIP
    assert said[2] == "Thanks. I still need the zip code on the account, or the email address."
    assert said[3].startswith("Order 1 0 0, 1 0 1, placed on ")
    assert "has shipped" in said[3]


async def test_a_wrong_email_then_the_right_one(database_url: str, settings: Settings) -> None:
    said = (
        await chat(
            database_url,
            "Please verify me",
            "jordan@example.com",
            "sorry, it's jordan.lee@example.com",
            settings=settings,
        )
    ).agent
    assert said[2] == mismatch_message(2)
    assert said[3].startswith(VERIFIED)


async def test_a_phone_number_is_not_taken_under_this_rule(
    database_url: str, settings: Settings
) -> None:
    said = (await chat(database_url, "Please verify me", "415 555 0134", settings=settings)).agent
    assert said[2] == (
        "To verify your identity, please tell me the email address on the account, or your "
        "full name and zip code."
    )
