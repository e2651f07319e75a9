"""Changing how an order is paid: the supervisor's routing to `change_payment_method`, and
the payment change specialist, which records the method the caller names (or the only
other one on a yes) and confirms only a clear yes to its read-back."""

from __future__ import annotations

from typing import Any

import pytest

from customer_service.call.payment_methods import methods_listing
from customer_service.offline_llm.specialist_replies import CLEAR_YES_NO
from customer_service.specialists.payment_change import (
    PAYMENT_CHANGE_INSTRUCTIONS,
    opening_question,
)
from customer_service.store.demo_catalog import DEMO_PAYMENT_METHODS
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

ORDER = demo_order_view("200202")
METHODS = DEMO_PAYMENT_METHODS["C-1002"]
INSTRUCTIONS = PAYMENT_CHANGE_INSTRUCTIONS.format(
    order="200202", paid_with="gift_card_9000202", methods=methods_listing(METHODS)
)
QUESTION = opening_question(ORDER, ORDER.payments[0], METHODS)
PAYMENT_CHANGE = TaskChat(specialist_tools("payment_change"), INSTRUCTIONS, QUESTION)
TO_PAYPAL = ("record_payment_change", {"payment_method_id": "paypal_9000201"})


@pytest.mark.parametrize(
    ("line", "arguments"),
    [
        ("I'd like to pay for order 200202 with PayPal instead", {"order_id": "200202"}),
        ("Can I change the payment method on my order?", {}),
        ("please charge it to my other card", {}),
        ("I want to change how I pay for order 200202", {"order_id": "200202"}),
    ],
)
async def test_paying_another_way_goes_to_change_payment_method(
    line: str, arguments: dict[str, str]
) -> None:
    assert called(await answer(FULL_SUPERVISOR, user(line))) == (
        "change_payment_method",
        arguments,
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("PayPal please", TO_PAYPAL),
        ("yes", TO_PAYPAL),
        ("the gift card", ("record_payment_change", {"payment_method_id": "gift_card_9000202"})),
        ("no, leave it", ("give_up", {})),
    ],
)
async def test_the_method_named_or_the_only_other_on_a_yes_is_recorded(
    line: str, expected: tuple[str, dict[str, Any]]
) -> None:
    assert called(await PAYMENT_CHANGE.answer(user(line))) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("yes", ("confirm_payment_change", {})),
        ("Yes, PayPal", ("confirm_payment_change", {})),
        ("no", ("give_up", {})),
    ],
)
async def test_the_read_back_is_confirmed_only_by_a_yes(
    line: str, expected: tuple[str, dict[str, Any]]
) -> None:
    history = PAYMENT_CHANGE.history(
        user("PayPal"),
        tool_round("record_payment_change", "", payment_method_id="paypal_9000201"),
        agent("The 72 dollars for order 2 0 0, 2 0 2 will be charged to ... Please say yes or no."),
        user(line),
    )
    assert called(await answer(PAYMENT_CHANGE.tools, *history)) == expected


async def test_an_unclear_answer_to_the_read_back_asks_for_a_clear_one() -> None:
    history = PAYMENT_CHANGE.history(
        user("PayPal"),
        tool_round("record_payment_change", "", payment_method_id="paypal_9000201"),
        agent("... Shall I make this change? Please say yes or no."),
        user("hmm, maybe"),
    )
    assert said(await answer(PAYMENT_CHANGE.tools, *history)) == CLEAR_YES_NO
