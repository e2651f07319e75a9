"""Changing the items of a pending order in `make chat`, end to end: the real supervisor,
specialists and store, driven by the offline model through `converse` (as `make chat`
runs it)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from customer_service.call.item_swaps import unavailable_question
from customer_service.call.wording import GREETING
from customer_service.domain import OrderStatus, Transaction, TransactionKind
from customer_service.offline_llm.routing import ANYTHING_ELSE
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.item_change import WORDING
from customer_service.store import Store
from support.offline_chat import GOODBYE, PRIYA, chat, stored_order
from support.swaps import BOTTLE_BLUE, BOTTLE_BLUE_750, BOTTLE_GREEN, GIFT_CARD

QUESTION = (
    "Order 2 0 0, 2 0 2 contains three Stainless steel water bottles. Which items would you "
    "like to change, and to which version? Please tell me every item now: after this change, "
    "the order can't be changed again or cancelled."
)
BIGGER_READ_BACK = (
    "You'd like to change three Stainless steel water bottles with capacity 500 ml for ones "
    "with capacity 750 ml in order 2 0 0, 2 0 2. The new items cost 12 dollars more, paid "
    "with your gift card, which has 40 dollars on it. That is settled as soon as you say "
    "yes. Shall I make this change? Please say yes or no."
)
GREEN_READ_BACK = (
    "You'd like to change three Stainless steel water bottles with color blue for ones with "
    "color green in order 2 0 0, 2 0 2. The price is the same, so nothing is paid or "
    "refunded. Shall I make this change? Please say yes or no."
)
CHANGED = "Done. The items of order 2 0 0, 2 0 2 are changed, and it is still being processed."


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    """The store of the test's calls, on the test's backend."""
    return demo_database_url


async def gift_card(database_url: str) -> Decimal | None:
    async with await Store.open(database_url) as store:
        methods = {m.method_id: m for m in await store.payment_methods("C-1002")}
    return methods[GIFT_CARD].balance


async def test_the_bigger_bottles_paid_from_the_gift_card(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to change the items of order 200202",
            PRIYA,
            "the bigger ones please",
            "the gift card",
            "yes",
            "bye",
        )
    ).agent
    assert said == [
        GREETING,
        IDENTITY_QUESTION,
        QUESTION,
        "Should the price difference go through your PayPal account, or your gift card, which "
        "has 40 dollars on it?",
        BIGGER_READ_BACK,
        f"{CHANGED} The difference of 12 dollars is paid. {ANYTHING_ELSE}",
        GOODBYE,
    ]
    order = await stored_order(database_url, "200202")
    assert order.status is OrderStatus.PENDING_ITEMS_MODIFIED
    assert [(item.item_id, item.quantity) for item in order.items] == [(BOTTLE_BLUE_750, 3)]
    paid = Transaction(kind=TransactionKind.PAYMENT, amount=Decimal("12.00"), method_id=GIFT_CARD)
    assert order.payments[-1] == paid
    assert await gift_card(database_url) == Decimal("28.00")


async def test_the_same_ones_in_green_need_no_method_and_a_sold_out_one_is_said(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url,
            "Can I change the colour of the bottles in order 200202?",
            PRIYA,
            "the 750 ml green ones",
            "the same ones but in green then",
            "yes",
        )
    ).agent
    assert said[3] == unavailable_question(
        "Stainless steel water bottle", {"capacity": "750 ml", "color": "green"}
    )
    assert said[4:] == [GREEN_READ_BACK, f"{CHANGED} {ANYTHING_ELSE}"]
    order = await stored_order(database_url, "200202")
    assert [(item.item_id, item.quantity) for item in order.items] == [(BOTTLE_GREEN, 3)]
    assert await gift_card(database_url) == Decimal("40.00")


async def test_a_correction_after_the_read_back_then_no(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to change the items of order 200202",
            PRIYA,
            "the bigger ones, gift card",
            "no, the green ones",
            "no",
        )
    ).agent
    assert said[3:] == [BIGGER_READ_BACK, GREEN_READ_BACK, WORDING.nothing_done]
    order = await stored_order(database_url, "200202")
    assert order.status is OrderStatus.PENDING
    assert [(item.item_id, item.quantity) for item in order.items] == [(BOTTLE_BLUE, 3)]


async def test_items_change_only_once(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to change the items of order 200202",
            PRIYA,
            "the green ones",
            "yes",
            "I'd like to change the items of order 200202",
        )
    ).agent
    assert said[-1] == (
        "The items of order 2 0 0, 2 0 2 were already changed once, so they can't be changed "
        "again. I can transfer you to a colleague who can help."
    )
