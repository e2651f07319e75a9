"""Exchanges and item changes as the offline model plays them: the supervisor's routing,
which chooses the tool by the caller's words (the agent checks the order's state), and
the specialists, which record what the caller's words choose and confirm only a yes."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from customer_service.call.item_swaps import SwapChoices
from customer_service.domain import OrderStatus, PaymentMethod
from customer_service.offline_llm.routing import DECLINED_OFFER, new_request
from customer_service.offline_llm.swap_replies import METHOD_QUESTION
from customer_service.specialists import exchange, item_change
from customer_service.specialists.exchange import not_exchangeable_message
from customer_service.store.demo_catalog import DEMO_PAYMENT_METHODS, DEMO_PRODUCTS
from support.offline_chat import (
    FULL_SUPERVISOR,
    TaskChat,
    agent,
    answer,
    called,
    demo_order_view,
    said,
    specialist_tools,
    tool_round,
    user,
)
from support.swaps import (
    BOTTLE_BLUE,
    BOTTLE_GREEN,
    GIFT_CARD,
    MAT_4MM,
    MAT_6MM,
    PAYPAL,
)


def choices(order_id: str, methods: tuple[PaymentMethod, ...]) -> SwapChoices:
    order = demo_order_view(order_id)
    products = {product.product_id: product for product in DEMO_PRODUCTS}
    return SwapChoices(order=order, products=products, methods=methods, paid_with=GIFT_CARD)


PRIYAS = DEMO_PAYMENT_METHODS["C-1002"]
ASKED = "Which items would you like to change, and to which version?"
"""The task's question, as far as the rules below read it."""
EXCHANGE = TaskChat(
    specialist_tools("exchange"), exchange.RULES.instructions(choices("200201", PRIYAS)), ASKED
)
ITEM_CHANGE = TaskChat(
    specialist_tools("item_change"),
    item_change.RULES.instructions(choices("200202", PRIYAS)),
    ASKED,
)


# --- the supervisor ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "call"),
    [
        ("I'd like to exchange order 200201", ("exchange_items", {"order_id": "200201"})),
        (
            "Can I swap the mat in order 200201 for a thicker one?",
            ("exchange_items", {"order_id": "200201"}),
        ),
        # The words choose; the agent refuses a pending order and says what it can do.
        (
            "I'd like to exchange the bottles in order 200202",
            ("exchange_items", {"order_id": "200202"}),
        ),
        ("I want to change the items of order 200202", ("change_items", {"order_id": "200202"})),
        (
            "change the colour of the bottles in my order 200202",
            ("change_items", {"order_id": "200202"}),
        ),
        ("I need a different size", ("change_items", {})),
    ],
)
async def test_the_callers_words_choose_exchange_or_item_change(
    line: str, call: tuple[str, dict[str, Any]]
) -> None:
    assert called(await answer(FULL_SUPERVISOR, user(line))) == call


async def test_after_hearing_what_can_be_done_instead_the_order_is_not_asked_again() -> None:
    refused = tool_round(
        "exchange_items",
        not_exchangeable_message("200202", OrderStatus.PENDING),
        is_error=True,
        order_id="200202",
    )
    reply = await answer(
        FULL_SUPERVISOR,
        user("I'd like to exchange order 200202"),
        refused,
        agent(not_exchangeable_message("200202", "pending")),  # type: ignore[arg-type]
        user("ok, change the items then"),
    )
    assert called(reply) == ("change_items", {"order_id": "200202"})


@pytest.mark.parametrize(
    ("answered", "asked"),
    [("yes please", ("change_items", {"order_id": "200202"})), ("no", None)],
)
async def test_a_yes_or_no_to_the_offer_of_an_item_change_is_taken_for_the_order_offered(
    answered: str, asked: tuple[str, dict[str, str]] | None
) -> None:
    offer = not_exchangeable_message("200202", OrderStatus.PENDING)
    reply = await answer(
        FULL_SUPERVISOR,
        user("can I swap the bottles on my order"),
        tool_round("exchange_items", offer, is_error=True),
        agent(offer),
        user(answered),
    )
    if asked is None:
        assert said(reply) == DECLINED_OFFER
    else:
        assert called(reply) == asked


def test_inside_another_specialist_a_swap_naming_an_order_is_a_new_request() -> None:
    assert new_request("actually, exchange order 200201 instead") == "exchange_items"
    assert new_request("and change the items of order 200202") == "change_items"
    assert new_request("change the address for order 100102") != "change_items"


# --- the specialists ---------------------------------------------------------------------


async def test_a_method_is_asked_for_when_the_difference_needs_one() -> None:
    reply = await EXCHANGE.answer(user("the mat, 6 mm please"))
    # Each of the caller's methods named: "which of your payment methods" names none.
    assert said(reply) == (
        "Should the price difference go through your PayPal account, or your gift card, which "
        "has 40 dollars on it?"
    )
    named = await EXCHANGE.answer(
        user("the mat, 6 mm please"), agent(METHOD_QUESTION), user("my PayPal")
    )
    assert called(named) == (
        "record_exchange",
        {"item_ids": [MAT_4MM], "new_item_ids": [MAT_6MM], "payment_method_id": PAYPAL},
    )


async def test_with_no_difference_the_method_that_paid_is_proposed() -> None:
    reply = await ITEM_CHANGE.answer(user("green ones please"))
    assert called(reply) == (
        "record_item_change",
        {
            "item_ids": [BOTTLE_BLUE] * 3,
            "new_item_ids": [BOTTLE_GREEN] * 3,
            "payment_method_id": GIFT_CARD,
        },
    )


async def test_the_only_method_is_proposed_and_read_back() -> None:
    visa = DEMO_PAYMENT_METHODS["C-1001"]
    instructions = exchange.RULES.instructions(choices("200201", visa))
    only_visa = dataclasses.replace(EXCHANGE, instructions=instructions)
    reply = await only_visa.answer(user("the mat for a 6 mm one"))
    assert called(reply)[1]["payment_method_id"] == visa[0].method_id


@pytest.mark.parametrize(
    ("line", "tool"),
    [("yes", "confirm_item_change"), ("no", "give_up"), ("never mind", "give_up")],
)
async def test_the_read_back_is_answered_in_the_callers_words(line: str, tool: str) -> None:
    recorded = tool_round(
        "record_item_change",
        "",
        item_ids=[BOTTLE_BLUE] * 3,
        new_item_ids=[BOTTLE_GREEN] * 3,
        payment_method_id=GIFT_CARD,
    )
    reply = await ITEM_CHANGE.answer(user("green ones"), recorded, agent("Shall I?"), user(line))
    assert called(reply) == (tool, {})
