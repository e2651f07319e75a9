"""Returning items: the supervisor's routing to `request_return`, and the returns
specialist, which records the items and the reason category the caller said and confirms
only a clear yes to its read-back."""

from __future__ import annotations

from typing import Any

import pytest

from customer_service.offline_llm.specialists.returns import REASON_QUESTION
from customer_service.specialists.returns import (
    instructions_for,
    opening_question,
    refund_choices,
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

ORDER = demo_order_view("200201")
CHOICES = refund_choices(ORDER, DEMO_PAYMENT_METHODS["C-1002"])
QUESTION = opening_question(ORDER)
RETURNS = TaskChat(specialist_tools("returns"), instructions_for(ORDER, CHOICES), QUESTION)
PAYPAL = "paypal_9000201"
GIFT_CARD = "gift_card_9000202"


def recorded(
    numbers: list[int], reason: str, refund_method_id: str | None = None
) -> tuple[str, dict[str, Any]]:
    arguments: dict[str, Any] = {"item_numbers": numbers, "reason": reason}
    if refund_method_id is not None:
        arguments["refund_method_id"] = refund_method_id
    return ("record_return", arguments)


# --- the supervisor ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "arguments"),
    [
        ("I'd like to return order 200201", {"order_id": "200201"}),
        ("Can I send back order two zero zero two zero one?", {"order_id": "200201"}),
        ("I want to return something", {}),
        ("returns", {}),
        ("How do I get a refund for order 200201?", {"order_id": "200201"}),
    ],
)
async def test_returning_goes_to_request_return(line: str, arguments: dict[str, str]) -> None:
    assert called(await answer(FULL_SUPERVISOR, user(line))) == ("request_return", arguments)


async def test_returning_an_order_comes_before_looking_it_up() -> None:
    line = "I want to return order 200201, the one delivered last week"
    assert called(await answer(FULL_SUPERVISOR, user(line))) == (
        "request_return",
        {"order_id": "200201"},
    )


# --- the specialist ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("All of them, I don't need them any more", recorded([1, 2], "no_longer_needed")),
        ("both, they arrived damaged", recorded([1, 2], "damaged")),
        ("just the mat, it's broken", recorded([1], "damaged")),
        ("the yoga blocks, they're the wrong item", recorded([2], "wrong_item")),
        ("the blocks, not as described", recorded([2], "not_as_described")),
    ],
)
async def test_items_and_a_reason_are_recorded_as_numbers_and_a_category(
    line: str, expected: tuple[str, dict[str, Any]]
) -> None:
    assert called(await RETURNS.answer(user(line))) == expected


async def test_items_without_a_reason_ask_why_once_then_take_another_reason() -> None:
    asked = await RETURNS.answer(user("the mat please"))
    assert said(asked) == REASON_QUESTION
    answered = await RETURNS.answer(
        user("the mat please"), agent(REASON_QUESTION), user("long story")
    )
    assert called(answered) == recorded([1], "other")


async def test_no_item_it_can_place_asks_the_question_again() -> None:
    assert said(await RETURNS.answer(user("hmm, let me think"))) == QUESTION


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("yes", ("confirm_return", {})),
        ("Yes, that's right", ("confirm_return", {})),
        ("no", ("give_up", {})),
        ("no, just the mat", recorded([1], "no_longer_needed")),
    ],
)
async def test_the_read_back_is_confirmed_only_by_a_yes(
    line: str, expected: tuple[str, dict[str, Any]]
) -> None:
    history = RETURNS.history(
        user("all of them, I don't need them"),
        tool_round("record_return", "", item_numbers=[1, 2], reason="no_longer_needed"),
        agent("You'd like to return ... Shall I request this return? Please say yes or no."),
        user(line),
    )
    assert called(await answer(RETURNS.tools, *history)) == expected


async def test_a_request_for_a_person_leaves_for_a_transfer() -> None:
    reply = await RETURNS.answer(user("I want to talk to a person"))
    assert called(reply)[0] == "transfer_to_human"


@pytest.mark.parametrize(
    ("line", "refund_method_id"),
    [
        ("all of them, I don't need them, onto my gift card", GIFT_CARD),
        ("all of them, I don't need them, back to PayPal", PAYPAL),
        ("all of them, I don't need them, the original way please", PAYPAL),
        ("all of them, I don't need them", None),
    ],
)
async def test_the_refund_method_the_caller_names_is_recorded(
    line: str, refund_method_id: str | None
) -> None:
    expected = recorded([1, 2], "no_longer_needed", refund_method_id)
    assert called(await RETURNS.answer(user(line))) == expected


async def test_where_the_refund_goes_answered_after_the_tool_asked() -> None:
    where = "Should the refund go to your PayPal account, or to your gift card?"
    history = RETURNS.history(
        user("all of them, I don't need them"),
        tool_round("record_return", where, is_error=True, item_numbers=[1, 2], reason="other"),
        agent(where),
        user("the gift card"),
    )
    assert called(await answer(RETURNS.tools, *history)) == recorded(
        [1, 2], "no_longer_needed", GIFT_CARD
    )
