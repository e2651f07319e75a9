"""The order lookup specialist: an order number, or the caller's recent orders."""

from __future__ import annotations

import pytest

from customer_service.offline_llm.specialists.order_lookup import NUMBER_QUESTION
from customer_service.order_choice import one_order_offer, several_fit
from support.offline_chat import (
    ORDER_LOOKUP,
    ORDER_QUESTION,
    agent,
    answer,
    called,
    demo_order,
    said,
    tool_round,
    user,
)


@pytest.mark.parametrize(
    ("line", "order_id"),
    [
        ("It's one zero zero one zero one", "one zero zero one zero one"),
        ("order 100-101", "100-101"),
        ("100101 please", "100101"),
        ("1 0 0 1 0 2", "1 0 0 1 0 2"),
        ("ten oh one oh one", "ten oh one oh one"),
        ("it's one double oh, one oh one", "one double oh, one oh one"),
        ("100, 101", "100, 101"),
    ],
)
async def test_order_lookup_passes_the_callers_words(line: str, order_id: str) -> None:
    assert called(await answer(ORDER_LOOKUP, user(line))) == ("lookup", {"order_id": order_id})


@pytest.mark.parametrize(
    "line",
    [
        "I don't know it",
        "I don't have the number",
        "which orders do I have?",
        "not sure",
        "my recent ones",
        "no",
    ],
)
async def test_order_lookup_lists_recent_orders(line: str) -> None:
    assert called(await answer(ORDER_LOOKUP, user(line))) == ("list_recent_orders", {})


@pytest.mark.parametrize("line", ["never mind", "forget it", "cancel that", "stop"])
async def test_order_lookup_give_up(line: str) -> None:
    assert called(await answer(ORDER_LOOKUP, user(line))) == ("give_up", {})


async def test_order_lookup_asks_for_the_number() -> None:
    assert said(await answer(ORDER_LOOKUP, user("it's twelve three four five"))) == ORDER_QUESTION


LISTED = (
    'Here are your recent orders. First, order 1 0 0, 1 0 2: a "Ceramic pour-over coffee '
    'set", placed on November fourth, processing. Second, order 1 0 0, 1 0 1: "Wireless '
    'noise-cancelling headphones" and one other item, placed on November second, shipped. '
    "Which one do you mean?"
)


@pytest.mark.parametrize(
    "line",
    ["the headphones", "the coffee set one", "the first one", "the shipped one", "November 4th"],
)
async def test_order_lookup_picks_from_the_list_by_what_it_is(line: str) -> None:
    listed = tool_round("list_recent_orders", LISTED)
    assert called(await answer(ORDER_LOOKUP, user("no idea"), listed, user(line))) == (
        "choose_order",
        {"choice": line},
    )


@pytest.mark.parametrize("line", ["that one", "that order", "the delivered one", "the last one"])
async def test_order_lookup_picks_the_order_just_discussed_or_by_place_without_a_list(
    line: str,
) -> None:
    assert called(await answer(ORDER_LOOKUP, user(line))) == ("choose_order", {"choice": line})


async def test_words_no_list_contains_are_not_a_pick() -> None:
    listed = tool_round("list_recent_orders", LISTED)
    # Nothing the caller heard is a yoga mat: the question again, and no miss counted.
    assert said(await answer(ORDER_LOOKUP, user("no idea"), listed, user("hmm, the yoga mat"))) == (
        ORDER_QUESTION
    )


@pytest.mark.parametrize(
    "line", ["the water bottles", "the order with the pillows", "my yoga mat please"]
)
async def test_before_any_list_words_for_an_item_are_a_pick_the_tool_checks(line: str) -> None:
    asked = agent(ORDER_QUESTION)
    assert called(await answer(ORDER_LOOKUP, asked, user(line))) == (
        "choose_order",
        {"choice": line},
    )


@pytest.mark.parametrize("line", ["okay", "ok thanks", "hmm"])
async def test_before_any_list_an_acknowledgement_is_no_pick(line: str) -> None:
    assert said(await answer(ORDER_LOOKUP, agent(ORDER_QUESTION), user(line))) == ORDER_QUESTION


OFFER = one_order_offer(demo_order("300301"))


@pytest.mark.parametrize("line", ["yes", "yes, that's the one", "yeah"])
async def test_a_yes_to_the_one_order_offered_looks_it_up(line: str) -> None:
    assert called(await answer(ORDER_LOOKUP, agent(OFFER), user(line))) == (
        "lookup",
        {"order_id": "300301"},
    )


async def test_a_no_to_the_one_order_offered_asks_for_the_number() -> None:
    assert said(await answer(ORDER_LOOKUP, agent(OFFER), user("no"))) == NUMBER_QUESTION


async def test_a_yes_to_a_line_naming_several_orders_looks_none_up() -> None:
    several = several_fit([demo_order("100102"), demo_order("100101")])
    reply = await answer(ORDER_LOOKUP, agent(several), user("yes"))
    assert not any(call.name == "lookup" for call in reply.tool_calls)
