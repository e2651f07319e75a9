"""The supervisor's routing of requests said in callers' own words: an opening that names
only something bought, an item change asked as another version of what they ordered, a
change of how they pay. Other phrasings than docs/tau2-caller-phrasings.md, so the rules
are not written against that table alone."""

from __future__ import annotations

import pytest

from support.offline_chat import FULL_SUPERVISOR, answer, called, user


@pytest.mark.parametrize(
    "line",
    [
        "hi, so I ordered a lamp last week",
        "it's about something I purchased",
        "my kettle hasn't come yet",
        "did the rug ship yet",
        "any update on my blender",
        "what's going on with my jacket",
    ],
)
async def test_an_opening_about_something_bought_is_an_order_lookup(line: str) -> None:
    assert called(await answer(FULL_SUPERVISOR, user(line)))[0] == "lookup_order"


@pytest.mark.parametrize(
    "line",
    [
        "could I switch my mug to the bigger one instead",
        "I need the boots I ordered in a size nine",
        "can you make my lamp the white one",
        "please change the rug in my order",
    ],
)
async def test_another_version_of_something_ordered_is_an_item_change(line: str) -> None:
    assert called(await answer(FULL_SUPERVISOR, user(line)))[0] == "change_items"


@pytest.mark.parametrize(
    "line",
    [
        "do you have running shoes in a size nine",
        "I want to change the delivery address on my order",
        "I'd like to change how I'm paying for my order",
    ],
)
async def test_a_product_question_an_address_or_a_payment_is_no_item_change(line: str) -> None:
    assert called(await answer(FULL_SUPERVISOR, user(line)))[0] != "change_items"


async def test_how_they_pay_is_a_payment_change() -> None:
    line = "I want to put my order on my other card"
    assert called(await answer(FULL_SUPERVISOR, user(line)))[0] == "change_payment_method"
