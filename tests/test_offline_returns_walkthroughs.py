"""Returning items in `make chat`, end to end: the real supervisor, specialists and store,
driven by the offline model through `converse` (as `make chat` runs it)."""

from __future__ import annotations

import datetime as dt

import pytest

from customer_service.call.refunds import refund_question
from customer_service.call.wording import GREETING, spaced_digits
from customer_service.clock import FixedClock
from customer_service.offline_llm.routing import ANYTHING_ELSE
from customer_service.offline_llm.specialists.returns import REASON_QUESTION
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.order_lookup import OrderLookupResult
from customer_service.specialists.returns import WORDING as RETURN_WORDING
from customer_service.specialists.returns import (
    ReturnResult,
    opening_question,
    read_back,
    refund_choices,
)
from customer_service.store import ReturnReason, ReturnRequest, Store
from customer_service.store.demo_catalog import DEMO_PAYMENT_METHODS
from support.offline_chat import GOODBYE, PRIYA, chat, demo_order, stored_order

ORDER = OrderLookupResult.from_order(demo_order("200201"))
PAYPAL, GIFT_CARD = refund_choices(ORDER, DEMO_PAYMENT_METHODS["C-1002"])
QUESTION = opening_question(ORDER)


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    """The store of the test's calls, on the test's backend."""
    return demo_database_url


async def requests(database_url: str) -> list[ReturnRequest]:
    async with await Store.open(database_url) as store:
        return await store.return_requests()


def told(request: ReturnRequest, lead: str = "Your return is requested.") -> str:
    number = spaced_digits(request.return_number)
    return f"{lead} Your return number is {number}. Once more, that's {number}."


async def test_return_every_item_then_ask_again(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to return order 200201",
            PRIYA,
            "all of them, I don't need them any more",
            "onto the gift card please",
            "yes",
            "I'd like to return order 200201",
            "bye",
        )
    ).agent
    [request] = await requests(database_url)
    assert (request.order_id, request.item_indices, request.reason) == (
        "200201",
        (0, 1),
        ReturnReason.NO_LONGER_NEEDED,
    )
    returned = (await stored_order(database_url, "200201")).returned
    assert returned is not None
    assert returned.method_id == GIFT_CARD.method_id
    full = ReturnResult(
        order_id="200201",
        item_indices=(0, 1),
        reason=request.reason,
        refund_method_id=GIFT_CARD.method_id,
    )
    again = told(request, "A return is already requested for order 2 0 0, 2 0 1.")
    assert said == [
        GREETING,
        IDENTITY_QUESTION,
        QUESTION,
        refund_question((PAYPAL, GIFT_CARD)),
        read_back(ORDER, full, GIFT_CARD),
        f"{told(request)} {ANYTHING_ELSE}",
        again,
        GOODBYE,
    ]


async def test_one_item_asked_why_then_declined(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I want to send something back from order 200201",
            PRIYA,
            "just the yoga mat",
            "it's broken, refund it the original way",
            "no",
        )
    ).agent
    mat = ReturnResult(
        order_id="200201",
        item_indices=(0,),
        reason=ReturnReason.DAMAGED,
        refund_method_id=PAYPAL.method_id,
    )
    assert said[2:] == [
        QUESTION,
        REASON_QUESTION,
        read_back(ORDER, mat, PAYPAL),
        RETURN_WORDING.nothing_done,
    ]
    assert await requests(database_url) == []


async def test_one_question_at_a_time_and_a_fault_is_a_fault(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to return order 200201",
            PRIYA,
            "just the yoga mat",
            "it stopped working",
            "onto my gift card",
            "yes",
            "what was my return number again?",
        )
    ).agent
    [request] = await requests(database_url)
    assert request.reason is ReturnReason.DEFECTIVE
    mat = ReturnResult(
        order_id="200201",
        item_indices=(0,),
        reason=ReturnReason.DEFECTIVE,
        refund_method_id=GIFT_CARD.method_id,
    )
    # The items, then why, then where the refund goes: one question each time.
    assert said[2:5] == [QUESTION, REASON_QUESTION, refund_question((PAYPAL, GIFT_CARD))]
    assert QUESTION.count("?") == 1
    assert "because it is faulty" in read_back(ORDER, mat, GIFT_CARD)
    assert said[5] == read_back(ORDER, mat, GIFT_CARD)
    assert said[6] == f"{told(request)} {ANYTHING_ELSE}"
    # Asked again right after, the same number, with no order number asked for.
    assert said[7] == told(request, "A return is already requested for order 2 0 0, 2 0 1.")


async def test_an_order_still_on_its_way_cannot_be_returned(database_url: str) -> None:
    said = (await chat(database_url, "I'd like to return order 200202", PRIYA, "no")).agent
    assert said[2] == (
        "Order 2 0 0, 2 0 2 hasn't been delivered yet, so it can't be returned. Once it "
        "arrives, you'll have thirty days to return it."
    )
    assert await requests(database_url) == []


async def test_after_thirty_days_the_last_day_is_said(database_url: str, clock: FixedClock) -> None:
    # The demo store was seeded on the test's day: order 200201 arrived 17 days before.
    clock.advance(dt.timedelta(days=14))
    said = (await chat(database_url, "I'd like to return order 200201", PRIYA, "no")).agent
    assert said[2].startswith(
        "Order 2 0 0, 2 0 1 could be returned until December ninth, thirty days after it "
        "arrived, so it can't be returned any more."
    )
    assert await requests(database_url) == []
