"""The order lookup specialist: an order number, or the caller's recent orders."""

from __future__ import annotations

import pytest

from support.offline_chat import ORDER_LOOKUP, ORDER_QUESTION, answer, called, said, user


@pytest.mark.parametrize(
    ("line", "order_id"),
    [
        ("It's one zero zero one zero one", "one zero zero one zero one"),
        ("order 100-101", "100-101"),
        ("100101 please", "100101"),
        ("1 0 0 1 0 2", "1 0 0 1 0 2"),
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
