"""Exchanging delivered items in `make chat`, end to end: the real supervisor, specialists
and store, driven by the offline model through `converse` (as `make chat` runs it)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from customer_service.call.wording import GREETING
from customer_service.domain import ExchangeRequest, OrderStatus
from customer_service.offline_llm.routing import ANYTHING_ELSE
from customer_service.specialists.exchange import WORDING, not_exchangeable_message
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.item_change import not_changeable_message
from support.offline_chat import GOODBYE, PRIYA, chat, stored_order
from support.swaps import MAT_4MM, MAT_6MM, PAYPAL

QUESTION = (
    "Order 2 0 0, 2 0 1 contains a Cork yoga mat and two Yoga blocks. Which items would you "
    "like to exchange, and for which version? An order can be exchanged only once, so please "
    "tell me every item you'd like to exchange now."
)
MAT_READ_BACK = (
    "You'd like to exchange a Cork yoga mat with thickness 4 mm for one with thickness 6 mm "
    "in order 2 0 0, 2 0 1. The new items cost 10 dollars more, paid with your PayPal "
    "account. That is settled once your items are back with us. Shall I request this "
    "exchange? Please say yes or no."
)
MAT_REQUESTED = (
    "Done. An exchange is requested for order 2 0 0, 2 0 1. You'll get instructions for "
    "sending the items back, and your new items are sent once they arrive. The difference of "
    "10 dollars is paid with your PayPal account then."
)


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    """The store of the test's calls, on the test's backend."""
    return demo_database_url


async def test_the_mat_for_the_6_mm_one_paid_by_paypal(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to exchange something from order 200201",
            PRIYA,
            "the yoga mat, for the 6 mm one",
            "PayPal",
            "yes",
            "bye",
        )
    ).agent
    assert said == [
        GREETING,
        IDENTITY_QUESTION,
        QUESTION,
        # Each method named, not "which of your payment methods".
        "Should the price difference go through your PayPal account, or your gift card, which "
        "has 40 dollars on it?",
        MAT_READ_BACK,
        f"{MAT_REQUESTED} {ANYTHING_ELSE}",
        GOODBYE,
    ]
    order = await stored_order(database_url, "200201")
    assert order.status is OrderStatus.EXCHANGE_REQUESTED
    assert order.exchange == ExchangeRequest(
        item_ids=(MAT_4MM,),
        new_item_ids=(MAT_6MM,),
        method_id=PAYPAL,
        price_difference=Decimal("10.00"),
    )


async def test_the_item_first_then_its_version_then_a_correction(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I want to exchange order 200201",
            PRIYA,
            "the blocks",
            "the foam ones, refund to my paypal",
            "no, the mat instead, the thicker one",
            "yes",
        )
    ).agent
    assert said[3] == (
        "Which version would you like instead? It comes with material cork and material foam."
    )
    assert said[4].startswith(
        "You'd like to exchange two Yoga blocks with material cork for ones with material foam"
    )
    assert said[5] == MAT_READ_BACK
    order = await stored_order(database_url, "200201")
    assert order.exchange is not None
    assert order.exchange.item_ids == (MAT_4MM,)


async def test_a_no_to_the_read_back_exchanges_nothing(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to swap the mat in order 200201",
            PRIYA,
            "the 6 mm one with paypal",
            "no",
        )
    ).agent
    assert said[-2:] == [MAT_READ_BACK, WORDING.nothing_done]
    order = await stored_order(database_url, "200201")
    assert (order.status, order.exchange) == (OrderStatus.DELIVERED, None)


async def test_a_pending_order_is_offered_an_item_change_and_a_delivered_one_an_exchange(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to exchange the bottles in order 200202",
            PRIYA,
            "ok, change the items then",
            "never mind",
            "I'd like to change the items of order 200201",
            "bye",
        )
    ).agent
    assert said[2] == not_exchangeable_message("200202", OrderStatus.PENDING)
    assert said[3].startswith("Order 2 0 0, 2 0 2 contains three Stainless steel water bottles.")
    assert said[5] == not_changeable_message("200201", OrderStatus.DELIVERED)
    order = await stored_order(database_url, "200202")
    assert order.status is OrderStatus.PENDING
