"""The account's default address and product questions in `make chat`, end to end: the
real supervisor, specialists and store, driven by the offline model through `converse`
(as `make chat` runs it); and the supervisor's routing of each request beside its
neighbours'."""

from __future__ import annotations

from typing import Any

import pytest

from customer_service.domain import Customer
from customer_service.offline_llm.routing import ANYTHING_ELSE
from customer_service.specialists.default_address import (
    NEW_POSTAL_CODE,
    opening_question,
    read_back_question,
)
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.product_questions import ANSWERED, WHICH_PRODUCT
from customer_service.store import Store
from support.demo_addresses import JORDAN_ADDRESS, MARKET_STREET_SUITE_5
from support.offline_chat import (
    FULL_SUPERVISOR,
    GOODBYE,
    GREETING,
    JORDAN,
    answer,
    called,
    chat,
    stored_order,
    user,
)

MARKET_STREET = "1 Market Street, Suite 5, San Francisco, CA 94105"
ADDRESS_CHANGES = {"change_default_address", "update_address"}


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    """The store of the test's calls, on the test's backend."""
    return demo_database_url


async def jordan(database_url: str) -> Customer:
    async with await Store.open(database_url) as store:
        found = await store.get_customer("C-1001")
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("line", "tool", "arguments"),
    [
        ("I moved, please update my address on file", "change_default_address", {}),
        ("Change the address on my account", "change_default_address", {}),
        ("I need to change my default address", "change_default_address", {}),
        ("Change the address of order 100102", "update_address", {"order_id": "100102"}),
        (
            "Please send order 100102 to a different address",
            "update_address",
            {"order_id": "100102"},
        ),
        ("Update my email address on file", None, {}),
        ("What colours does the water bottle come in?", "answer_product_questions", {}),
        ("Do you have the yoga mat in 6mm?", "answer_product_questions", {}),
        (
            "How much are the headphones I ordered?",
            "answer_product_questions",
            {"about_their_orders": True},
        ),
        ("Where is order 100101?", "lookup_order", {"order_id": "100101"}),
    ],
)
async def test_each_request_reaches_its_own_specialist(
    line: str, tool: str | None, arguments: dict[str, Any]
) -> None:
    response = await answer(FULL_SUPERVISOR, user(line))
    if tool is None:
        # An email address is no postal address: whatever takes it, never an address
        # change (a specialist registered for contact details may).
        assert {call.name for call in response.tool_calls}.isdisjoint(ADDRESS_CHANGES)
        return
    assert called(response) == (tool, arguments)


async def test_the_accounts_address_changes_and_the_orders_keep_theirs(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I moved, please update my address on file",
            JORDAN,
            MARKET_STREET,
            "yes",
            "bye",
        )
    ).agent
    assert said == [
        GREETING,
        IDENTITY_QUESTION,
        opening_question(),
        read_back_question(MARKET_STREET_SUITE_5),
        "Done. The default address on your account is now 1 Market Street, Suite 5, San "
        f"Francisco, CA 94105, United States. {NEW_POSTAL_CODE} {ANYTHING_ELSE}",
        GOODBYE,
    ]
    assert (await jordan(database_url)).address == MARKET_STREET_SUITE_5
    order = await stored_order(database_url, "100102")
    assert order.shipping_address == JORDAN_ADDRESS


async def test_a_no_to_the_read_back_changes_nothing(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "Change the address on my account",
            JORDAN,
            MARKET_STREET,
            "no",
            "never mind",
            "bye",
        )
    ).agent
    assert read_back_question(MARKET_STREET_SUITE_5) in said
    assert (await jordan(database_url)).address == JORDAN_ADDRESS


async def test_product_questions_from_the_demo_catalog(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "What colours does the water bottle come in?",
            "And in green?",
            "Do you have the yoga mat in 6mm?",
            "How much is the coffee set?",
            "What about the yoga stuff?",
            "No, that's all",
            "bye",
        )
    ).agent
    assert said == [
        GREETING,
        "Stainless steel water bottle comes in capacity 500 ml or 750 ml and color blue or "
        "green. Of its four variants, all but 750 ml, green are available, from 24 dollars to "
        "28 dollars.",
        "Stainless steel water bottle: 500 ml, green: available, 24 dollars. 750 ml, green: not "
        "available right now (28 dollars).",
        "Cork yoga mat: 6 mm: available, 78 dollars.",
        "Ceramic pour-over coffee set comes in color white or black. Both variants are "
        "available, from 48 dollars to 52 dollars.",
        "Which one do you mean: Cork yoga mat or Yoga block?",
        # "No, that's all": the goodbye, not "anything else?" again.
        ANSWERED,
        GOODBYE,
    ]
    assert WHICH_PRODUCT not in said


async def test_a_product_the_caller_ordered_is_described_once_they_are_verified(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url,
            "How much are the headphones I ordered?",
            JORDAN,
            "That's all, thanks",
            "bye",
        )
    ).agent
    assert said[1] == IDENTITY_QUESTION
    assert said[2] == (
        "In order 1 0 0, 1 0 1 you have the one in black. Wireless noise-cancelling headphones "
        "come in color black, silver or blue. Of its three variants, all but blue are "
        "available, at 199 dollars and 99 cents."
    )
