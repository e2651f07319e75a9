"""Orders by what they are, and the caller with one order, in `make chat` (issue 25):
the real supervisor, specialists and store, driven by the offline model through
`converse` (as `make chat` runs it)."""

from __future__ import annotations

import pytest

from customer_service.call.wording import GREETING
from customer_service.domain import OrderStatus
from customer_service.offline_llm.specialists.order_lookup import NUMBER_QUESTION
from customer_service.order_choice import SEVERAL_FIT_UNLISTED, one_order_offer
from customer_service.specialists.cancellation import opening_question
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.order_lookup import OPENING_QUESTION as ORDER_QUESTION
from customer_service.specialists.order_lookup import OrderLookupResult
from customer_service.store import Store
from support.offline_chat import JORDAN, PRIYA, chat, demo_order, stored_order

MARIA = "María García, 28013, maria.garcia@example.es"
"""María's identity details, as a caller types them (one order, 300301, processing)."""
STATUS_OF_200202 = "Order 2 0 0, 2 0 2, placed on"


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    """The store of the test's calls, on the test's backend."""
    return demo_database_url


async def disclosed(database_url: str) -> list[str | None]:
    async with await Store.open(database_url) as store:
        events = await store.audit_events(kind="order_disclosed")
    return [event.order_id for event in events]


async def test_an_item_said_when_asked_for_the_number_picks_the_order(database_url: str) -> None:
    said = (
        await chat(database_url, "I'd like to check an order", PRIYA, "the water bottles")
    ).agent
    assert said[:3] == [GREETING, IDENTITY_QUESTION, ORDER_QUESTION]
    # No list read first, and the number is not asked for again.
    assert said[3].startswith(STATUS_OF_200202)
    assert said.count(ORDER_QUESTION) == 1
    assert await disclosed(database_url) == ["200202"]


async def test_an_item_said_with_the_request_needs_no_question(database_url: str) -> None:
    said = (await chat(database_url, "Where are my water bottles?", PRIYA)).agent
    assert said[:2] == [GREETING, IDENTITY_QUESTION]
    assert said[2].startswith(STATUS_OF_200202)


async def test_cancel_the_order_with_an_item(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            f"{JORDAN}. Cancel the order with the coffee set",
            "I don't need it any more",
            "yes",
        )
    ).agent
    # No list and no number asked for: the order's own question first.
    assert said[1] == opening_question(OrderLookupResult.from_order(demo_order("100102")))
    assert said[2].startswith("I'll cancel order 1 0 0, 1 0 2")
    assert (await stored_order(database_url, "100102")).status is OrderStatus.CANCELLED
    assert (await stored_order(database_url, "100101")).status is OrderStatus.PROCESSED


async def test_an_item_several_orders_hold_asks_which_then_the_list_picks(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url,
            f"{JORDAN}. Where is my order with the cable or the coffee set?",
            "list them please",
            "the headphones",
        )
    ).agent
    assert said[1] == SEVERAL_FIT_UNLISTED
    assert said[2].startswith("Here are your recent orders.")
    assert said[3].startswith("Order 1 0 0, 1 0 1, placed on")


async def test_the_one_order_is_offered_and_a_yes_cancels_it(database_url: str) -> None:
    said = (
        await chat(
            database_url, "I want to cancel an order", MARIA, "yes", "It was a mistake", "yes"
        )
    ).agent
    assert said[2] == one_order_offer(demo_order("300301"))
    assert said[3] == opening_question(OrderLookupResult.from_order(demo_order("300301")))
    assert said[4].startswith("I'll cancel order 3 0 0, 3 0 1")
    assert ORDER_QUESTION not in said
    assert (await stored_order(database_url, "300301")).status is OrderStatus.CANCELLED
    # The offer's disclosure, then the read-back's.
    assert (await disclosed(database_url))[:1] == ["300301"]


async def test_a_no_to_the_offer_asks_for_the_number(database_url: str) -> None:
    said = (await chat(database_url, "I'd like to check an order", MARIA, "no", "300301")).agent
    assert said[2] == one_order_offer(demo_order("300301"))
    assert said[3] == NUMBER_QUESTION
    assert said[4].startswith("Order 3 0 0, 3 0 1, placed on")
