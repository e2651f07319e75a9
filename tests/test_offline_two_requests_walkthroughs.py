"""Two requests in one line, in `make chat` (issue 25): both are handled, in the order
said, by the real supervisor, specialists and store on the offline model."""

from __future__ import annotations

import pytest

from customer_service.call.wording import ANYTHING_ELSE, GREETING
from customer_service.domain import OrderStatus
from customer_service.specialists.address_update import opening_question
from customer_service.specialists.cancellation import opening_question as why_cancel
from customer_service.specialists.consent import CONSENT_WORDING, ConsentTopic
from customer_service.specialists.order_lookup import OrderLookupResult
from customer_service.store import Store
from support.demo_addresses import MARKET_STREET_SUITE_5
from support.offline_chat import GOODBYE, JORDAN, PRIYA, chat, demo_order, stored_order

SMS = ConsentTopic.ORDER_UPDATES_SMS


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    """The store of the test's calls, on the test's backend."""
    return demo_database_url


async def test_check_an_order_and_change_its_address_too(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            f"{PRIYA}. Check order 200202 and change its address too",
            "1 Market Street, Suite 5, San Francisco, CA 94105",
            "yes",
        )
    ).agent
    assert said[0] == GREETING
    # The status first, as asked, then the address change for the same order.
    assert said[1].startswith("Order 2 0 0, 2 0 2, placed on")
    assert said[2] == opening_question("200202")
    assert (await stored_order(database_url, "200202")).shipping_address == MARKET_STREET_SUITE_5


async def test_cancel_an_order_and_stop_the_texts(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            f"{JORDAN}. Cancel 100102 and stop texting me",
            "I don't need it any more",
            "yes",
            "no",
        )
    ).agent
    assert said[1] == why_cancel(OrderLookupResult.from_order(demo_order("100102")))
    assert said[3].startswith("Done. Order 1 0 0, 1 0 2 is cancelled.")
    # The texts are asked about next, without the caller asking again.
    assert said[4] == CONSENT_WORDING[SMS].question
    assert (await stored_order(database_url, "100102")).status is OrderStatus.CANCELLED
    async with await Store.open(database_url) as store:
        consent = await store.latest_consent(topic=SMS, customer_id="C-1001")
    assert consent is not None
    assert consent.granted is False


async def test_two_orders_checked_in_one_line(database_url: str) -> None:
    said = (
        await chat(database_url, f"{JORDAN}. Where is order 100101 and order 100102?", "no")
    ).agent
    assert said[1].startswith("Order 1 0 0, 1 0 1, placed on")
    assert said[2].startswith("Order 1 0 0, 1 0 2, placed on")
    assert said[3:] == [ANYTHING_ELSE, GOODBYE]
