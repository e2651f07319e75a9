"""Changing how an order is paid in `make chat`, end to end: the real supervisor,
specialists and store, driven by the offline model through `converse` (as `make chat`
runs it)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from customer_service.call.wording import GREETING
from customer_service.offline_llm.routing import ANYTHING_ELSE, DECLINED_OFFER
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.order_lookup import OrderLookupResult
from customer_service.specialists.payment_change import (
    ONLY_METHOD,
    WORDING,
    opening_question,
    read_back,
)
from customer_service.store import Store
from customer_service.store.demo_catalog import DEMO_PAYMENT_METHODS
from support.offline_chat import GOODBYE, JORDAN, PRIYA, chat, demo_order, stored_order

ORDER = OrderLookupResult.from_order(demo_order("200202"))
PAID = ORDER.payments[0]
PAYPAL, GIFT_CARD = DEMO_PAYMENT_METHODS["C-1002"]
QUESTION = opening_question(ORDER, PAID, (PAYPAL, GIFT_CARD))
READ_BACK = read_back(ORDER, PAID, PAYPAL, GIFT_CARD)
DONE = (
    "Done. Order 2 0 0, 2 0 2 is now paid with your PayPal account. You get 72 dollars back. "
    "It goes back onto your gift card straight away."
)


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    """The store of the test's calls, on the test's backend."""
    return demo_database_url


async def paid_with(database_url: str) -> list[str]:
    order = await stored_order(database_url, "200202")
    return [payment.method_id for payment in order.payments]


async def gift_card_balance(database_url: str) -> Decimal | None:
    async with await Store.open(database_url) as store:
        methods = await store.payment_methods("C-1002")
    return next(method.balance for method in methods if method.kind is GIFT_CARD.kind)


async def test_pay_with_paypal_instead_of_the_gift_card(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to pay for order 200202 with PayPal instead",
            PRIYA,
            "yes",
            "yes",
            "bye",
        )
    ).agent
    assert said == [
        GREETING,
        IDENTITY_QUESTION,
        QUESTION,
        READ_BACK,
        f"{DONE} {ANYTHING_ELSE}",
        GOODBYE,
    ]
    assert await paid_with(database_url) == [
        GIFT_CARD.method_id,
        PAYPAL.method_id,
        GIFT_CARD.method_id,
    ]
    assert await gift_card_balance(database_url) == Decimal("112.00")


async def test_naming_the_method_and_then_declining_changes_nothing(database_url: str) -> None:
    said = (
        await chat(
            database_url, "change the payment method of order 200202", PRIYA, "my PayPal", "no"
        )
    ).agent
    assert said[2:] == [QUESTION, READ_BACK, WORDING.nothing_done]
    assert await paid_with(database_url) == [GIFT_CARD.method_id]
    assert await gift_card_balance(database_url) == Decimal("40.00")


async def test_the_method_that_pays_already_is_said_so(database_url: str) -> None:
    said = (
        await chat(
            database_url, "change the payment method of order 200202", PRIYA, "the gift card"
        )
    ).agent
    assert said[2:] == [
        QUESTION,
        "Order 2 0 0, 2 0 2 is already paid with your gift card, which has 40 dollars on it. "
        "Which payment method would you like to pay with instead?",
    ]
    assert await paid_with(database_url) == [GIFT_CARD.method_id]


async def test_a_caller_with_one_method_is_told_there_is_no_other(database_url: str) -> None:
    said = (
        await chat(database_url, "I'd like to pay order 100102 with a different card", JORDAN, "no")
    ).agent
    assert said[2:] == [
        ONLY_METHOD.format(order="1 0 0, 1 0 2", method="your Visa card ending in 4 2 4 2"),
        DECLINED_OFFER,
    ]


async def test_a_yes_naming_the_gift_card_to_a_paypal_read_back_changes_nothing(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to pay for order 200202 with PayPal instead",
            PRIYA,
            "yes",
            "yes, the gift card",
        )
    ).agent
    # A correction: the gift card is taken as the choice, which pays already.
    assert said[2:] == [
        QUESTION,
        READ_BACK,
        "Order 2 0 0, 2 0 2 is already paid with your gift card, which has 40 dollars on it. "
        "Which payment method would you like to pay with instead?",
    ]
    assert await paid_with(database_url) == [GIFT_CARD.method_id]
    assert await gift_card_balance(database_url) == Decimal("40.00")
