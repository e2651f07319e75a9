"""Product questions, driven through real sessions with a scripted model: the catalog for
anyone, a caller's own orders' items only once they are verified."""

from __future__ import annotations

from decimal import Decimal

from customer_service.call.payment_methods import spoken_amount
from customer_service.domain import Product, Variant
from customer_service.settings import Settings
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.product_questions import (
    ANSWERED,
    NEEDS_VERIFICATION,
    NOT_VERIFIED,
    described,
)
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, check_identity, tool_outputs
from support.own_tests import OfflineChat
from support.scripted_llm import Call, Parallel, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

PRODUCT_TOOLS = frozenset({"describe_product"})
BOTTLE = (
    '"Stainless steel water bottle" comes in "capacity" "500 ml" or "750 ml" and "color" '
    '"blue" or "green". Of its four variants, all but "750 ml, green" are available, from '
    "24 dollars to 28 dollars."
)


def describe(product: str, *options: str, ordered: bool = False) -> Call:
    return Call(
        "describe_product", {"product": product, "options": list(options), "ordered": ordered}
    )


async def test_anyone_hears_what_a_catalog_product_comes_in_without_verifying(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("answer_product_questions"),
            describe("water bottle"),
            relay,
            describe("water bottle", "green"),
            relay,
            describe("yoga mat", "6mm"),
            relay,
            Call("questions_answered"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="What colours does the water bottle come in?")
        await session.run(user_input="And in green?")
        await session.run(user_input="Do you have the yoga mat in 6mm?")
        await session.run(user_input="No, that's all")
        assert [output.output for output in tool_outputs(session, "describe_product")] == [
            BOTTLE,
            '"Stainless steel water bottle": "500 ml, green": available, 24 dollars. '
            '"750 ml, green": not available right now (28 dollars).',
            '"Cork yoga mat": "6 mm": available, 78 dollars.',
        ]
        (done,) = tool_outputs(session, "answer_product_questions")
        assert (done.output, done.is_error) == (ANSWERED, False)
        assert IDENTITY_QUESTION not in agent_lines(session)
        assert session.userdata.verified_customer is None
    assert not model.overran


async def test_an_unverified_caller_gets_no_order_detail_whatever_the_model_calls(
    settings: Settings,
) -> None:
    # Jordan's orders hold the headphones and the coffee set; the caller is not verified,
    # and the model asks about them every way it can, several calls in one reply too.
    model = ScriptedLLM(
        [
            Call("answer_product_questions"),
            Parallel(
                (
                    describe("headphones", ordered=True),
                    describe("the headphones Jordan Lee ordered"),
                    describe("coffee set", "black", ordered=True),
                )
            ),
            relay,
            Call("questions_answered"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="How much are the headphones I ordered?")
        await session.run(user_input="That's all")
        outputs = tool_outputs(session, "describe_product")
        assert [(output.output, output.is_error) for output in outputs if output.is_error] == [
            (NEEDS_VERIFICATION, True)
        ] * 2
        heard = " ".join([*agent_lines(session), *(output.output for output in outputs)])
        for order_detail in ("in order", "1 0 0", "100101", "100102", "you have"):
            assert order_detail not in heard.lower()
        assert session.userdata.disclosed_order_ids == []
        assert session.userdata.verified_customer is None
    product_turns = [turn for turn in model.turns if turn.offers(PRODUCT_TOOLS)]
    assert product_turns
    for turn in product_turns:
        seen = turn.instructions
        assert NOT_VERIFIED in seen
        assert "The caller ordered" not in seen


async def test_a_verified_caller_hears_about_their_own_orders_items_only(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("answer_product_questions", {"about_their_orders": True}),
            check_identity(JORDAN),
            describe("headphones", ordered=True),
            relay,
            # Priya's order holds the water bottles: not among Jordan's.
            describe("water bottle", ordered=True),
            relay,
            Call("questions_answered"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="How much are the headphones I ordered?")
        assert agent_lines(session)[-1] == IDENTITY_QUESTION
        await session.run(user_input=JORDAN_SAYS)
        (first,) = tool_outputs(session, "describe_product")
        assert first.output.startswith('In order 1 0 0, 1 0 1 you have the one in "black". ')
        assert "199 dollars and 99 cents" in first.output
        assert session.userdata.disclosed_order_ids == ["100101"]
        await session.run(user_input="And the water bottle I ordered?")
        first, second = tool_outputs(session, "describe_product")
        assert second.is_error
        assert "among what you ordered" in second.output
        assert "200202" not in second.output
        await session.run(user_input="That's all, thanks")
    assert not model.overran


def test_a_product_with_many_variants_is_summed_up_and_a_narrow_question_answered() -> None:
    sizes, colours = ("S", "M", "L", "XL"), ("red", "blue", "black")
    variants = tuple(
        Variant(
            item_id=f"{index}",
            product_id="1",
            options={"size": size, "color": colour},
            available=index % 3 != 0,
            price=Decimal(20 + index),
        )
        for index, (size, colour) in enumerate((s, c) for s in sizes for c in colours)
    )
    shirt = Product(product_id="1", name="T-Shirt", variants=variants)
    assert described(shirt, []) == (
        '"T-Shirt" comes in "size" "S", "M", "L" or "XL" and "color" "red", "blue" or '
        '"black". Eight of its twelve variants are available, from 21 dollars to 31 dollars.'
    )
    assert described(shirt, ["XL", "Blue"]) == '"T-Shirt": "XL, blue": available, 30 dollars.'
    assert described(shirt, ["green"]).endswith('It doesn\'t come in "green".')


OFFLINE_CHAT = OfflineChat(("What colours does the water bottle come in?", "That's all", "bye"))
"""A `make chat` that reaches it (tests/offline_llm/test_offline_model.py)."""


def test_a_plural_name_agrees_and_prices_are_said_as_every_amount() -> None:
    variants = tuple(
        Variant(
            item_id=f"{index}",
            product_id="2",
            options={"color": colour},
            available=True,
            price=price,
        )
        for index, (colour, price) in enumerate(
            (("black", Decimal("199.99")), ("silver", Decimal("205.00")))
        )
    )
    headphones = Product(product_id="2", name="Wireless headphones", variants=variants)
    said = described(headphones, [])
    assert said.startswith('"Wireless headphones" come in "color"')
    # One way to say money: the read-backs' (`spoken_amount`), never "$199.99".
    assert said.endswith(
        f"from {spoken_amount(Decimal('199.99'))} to {spoken_amount(Decimal('205'))}."
    )
    assert "199 dollars and 99 cents" in said
    assert "$" not in said
