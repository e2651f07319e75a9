"""What a caller's words say about the order they mean ("the first one from November")."""

from __future__ import annotations

import pytest

from customer_service.domain import OrderStatus
from customer_service.order_choice import (
    Choice,
    means_current_order,
    mentions_current_order,
    read_choice,
)
from customer_service.order_numbers import order_number_in


@pytest.mark.parametrize(
    ("said", "choice"),
    [
        ("the first one", Choice(position=1)),
        ("the 2nd", Choice(position=2)),
        ("the last one", Choice(position=-1)),
        ("may I have the first one", Choice(position=1)),  # "may" alone is no month
        ("the one from May 3rd", Choice(day=(5, 3))),
        ("the second of November", Choice(day=(11, 2))),
        ("November 2", Choice(day=(11, 2))),
        ("the first one from November", Choice(position=1, day=(11, None))),
        ("the delivered one", Choice(status=OrderStatus.DELIVERED)),
        ("the one that shipped", Choice(status=OrderStatus.PROCESSED)),
        ("the one with the yoga mat please", Choice(words=("yoga", "mat"))),
        ("um yes that", Choice()),
    ],
)
def test_what_the_words_say_about_an_order(said: str, choice: Choice) -> None:
    assert read_choice(said) == choice


@pytest.mark.parametrize(
    ("said", "current"),
    [
        ("that one", True),
        ("that order", True),
        ("the same one", True),
        ("the one you just said", True),
        ("the one that shipped", False),
        ("that one with the headphones", False),
        ("the first one", False),
    ],
)
def test_the_order_just_discussed(said: str, current: bool) -> None:
    assert means_current_order(said) is current


def test_a_request_naming_the_order_just_discussed() -> None:
    assert mentions_current_order("Change the delivery address for that order")
    assert mentions_current_order("cancel this one")
    assert not mentions_current_order("cancel my order")


@pytest.mark.parametrize(
    ("said", "number"),
    [("that one, 200201", "200201"), ("one zero zero one zero two", "100102"), ("the first", None)],
)
def test_a_number_inside_a_pick(said: str, number: str | None) -> None:
    assert order_number_in(said) == number
