"""The offline model's product questions: the product found by the caller's words among
the names the task's instructions list, the option values they ask about, and the end."""

from __future__ import annotations

from livekit.agents import llm

from customer_service.specialists.product_questions import (
    INSTRUCTIONS,
    NOT_VERIFIED,
    WHICH_PRODUCT,
)
from support.offline_chat import answer, called, said, specialist_tools, user

PRODUCTS = specialist_tools("product_questions")
CATALOG = '"Stainless steel water bottle", "Cork yoga mat", "Yoga block"'


def instructions(ordered: str = NOT_VERIFIED) -> llm.ChatMessage:
    return llm.ChatMessage(
        role="system", content=[INSTRUCTIONS.format(catalog=CATALOG, ordered=ordered)]
    )


async def test_the_product_and_the_options_asked_about_are_looked_up() -> None:
    response = await answer(PRODUCTS, instructions(), user("Do you have the yoga mat in 6mm?"))
    assert called(response) == (
        "describe_product",
        {"product": "Cork yoga mat", "options": ["6mm"], "ordered": False},
    )
    response = await answer(PRODUCTS, instructions(), user("Is the water bottle in green?"))
    assert called(response)[1]["options"] == ["green"]


async def test_a_name_several_products_share_is_passed_on_for_the_tool_to_ask_which() -> None:
    response = await answer(PRODUCTS, instructions(), user("Tell me about the yoga stuff"))
    assert called(response) == (
        "describe_product",
        {"product": "yoga", "options": [], "ordered": False},
    )


async def test_something_ordered_is_looked_up_among_the_callers_ordered_products() -> None:
    ordered = instructions('The caller ordered: "Yoga block"')
    response = await answer(PRODUCTS, ordered, user("How much was the yoga thing I ordered?"))
    assert called(response) == (
        "describe_product",
        {"product": "Yoga block", "options": [], "ordered": True},
    )


async def test_no_product_named_is_asked_for_and_a_done_caller_ends_it() -> None:
    assert said(await answer(PRODUCTS, instructions(), user("I have a question"))) == (
        WHICH_PRODUCT
    )
    response = await answer(PRODUCTS, instructions(), user("No, that's all"))
    assert called(response) == ("questions_answered", {})
