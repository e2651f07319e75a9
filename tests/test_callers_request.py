"""The caller's request reaches a return, cancellation or item swap only when the code
finds in it what the task would ask (`call/callers_request.py`): then the task opens on
it (one model reply over the request); otherwise with its fixed question, spoken by code
and never the model's. A yes said before any read-back confirms nothing."""

from __future__ import annotations

from livekit.agents import llm

from customer_service.call.callers_request import (
    giving_cancel_reason,
    naming_a_new_version,
    naming_items_or_reason,
    request_lines,
)
from customer_service.call.fixed_sentences import is_fixed
from customer_service.domain import OrderItem, OrderStatus
from customer_service.settings import Settings
from customer_service.specialists.cancellation import REASON_QUESTION
from customer_service.specialists.exchange import not_exchangeable_message
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.store.demo_catalog import DEMO_PRODUCTS, demo_variant
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    PRIYA,
    agent_lines,
    order_now,
    verifying_for,
)
from support.scripted_llm import Call, Decision, Rule, ScriptedLLM, Turn
from support.scripted_llm import relay_tool_output as relay
from support.swaps import BOTTLE_BLUE, BOTTLE_GREEN, PAYPAL, PENDING, PRIYA_SAYS, record

CANCEL_TOOLS = frozenset({"record_cancellation_reason"})
NO_LONGER_NEEDED = Call("record_cancellation_reason", {"reason": "no longer needed"})
CANCEL_QUESTION = "Order 1 0 0, 1 0 2 contains a Ceramic pour-over coffee set. " + REASON_QUESTION
CANCEL_READ_BACK_START = "I'll cancel order 1 0 0, 1 0 2, with a Ceramic pour-over coffee set"


def request(*lines: str) -> llm.ChatContext:
    history = llm.ChatContext.empty()
    for line in lines:
        history.add_message(role="user", content=line)
    return history


def caller_said(turn: Turn) -> list[str]:
    return [
        item.text_content or ""
        for item in turn.chat_ctx.items
        if isinstance(item, llm.ChatMessage) and item.role == "user"
    ]


def opening_on(asked: str, answer: Decision, tools: frozenset[str]) -> Rule:
    """The task's opening reply: the model sees the caller's request, and only it (not
    their identity answers, not the agent's lines), and answers with `answer`."""

    def opening(turn: Turn) -> Decision:
        assert turn.offers(tools)
        assert caller_said(turn) == [asked]
        assert not any(
            isinstance(item, llm.ChatMessage) and item.role == "assistant"
            for item in turn.chat_ctx.items
        )
        return answer

    return opening


async def test_a_cancellation_asked_with_its_reason_opens_on_the_request(
    settings: Settings,
) -> None:
    asked = "Please cancel order 100102, I don't need it any more"
    model = ScriptedLLM(
        [
            *verifying_for("cancel_order", "100102", JORDAN),
            opening_on(asked, NO_LONGER_NEEDED, CANCEL_TOOLS),
            # A model taking the request's words as the yes: refused, nothing cancelled.
            Call("confirm_cancellation"),
            relay,
            Call("confirm_cancellation"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input=asked)
        assert agent_lines(session)[-1] == IDENTITY_QUESTION
        await session.run(user_input=JORDAN_SAYS)
        # The read-back follows the identity answer: the reason is not asked again.
        said = agent_lines(session)
        assert CANCEL_QUESTION not in said
        assert said[-1].startswith(CANCEL_READ_BACK_START)
        assert (await order_now(session, "100102")).status is OrderStatus.PENDING

        await session.run(user_input="Yes, please")
        assert (await order_now(session, "100102")).status is OrderStatus.CANCELLED
    assert not model.overran


async def test_a_cancellation_asked_without_a_reason_opens_with_the_fixed_question(
    settings: Settings,
) -> None:
    asked = "I'd like to cancel order 100102"

    def answered(turn: Turn) -> Decision:
        # The first the task's model hears is the caller's answer to the fixed question.
        assert turn.offers(CANCEL_TOOLS)
        assert caller_said(turn) == ["I don't need it any more"]
        return NO_LONGER_NEEDED

    model = ScriptedLLM([*verifying_for("cancel_order", "100102", JORDAN), answered])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input=asked)
        await session.run(user_input=JORDAN_SAYS)
        assert agent_lines(session)[-1] == CANCEL_QUESTION
        # Spoken by code: its question is a fixed sentence, played from the phrase cache.
        assert is_fixed(REASON_QUESTION)
        await session.run(user_input="I don't need it any more")
        assert agent_lines(session)[-1].startswith(CANCEL_READ_BACK_START)
    assert not model.overran


async def test_an_item_change_asked_with_the_version_opens_on_the_request(
    settings: Settings,
) -> None:
    asked = f"Can I change one of the water bottles in order {PENDING} to the green one"
    one_green = record("record_item_change", [BOTTLE_BLUE], [BOTTLE_GREEN], PAYPAL)
    model = ScriptedLLM(
        [
            *verifying_for("change_items", PENDING, PRIYA),
            opening_on(asked, one_green, frozenset({"record_item_change"})),
            Call("confirm_item_change"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input=asked)
        await session.run(user_input=PRIYA_SAYS)
        assert agent_lines(session)[-1].startswith(
            "You'd like to change a Stainless steel water bottle with color blue for one "
            "with color green"
        )
        await session.run(user_input="yes")
        order = await order_now(session, PENDING)
        assert BOTTLE_GREEN in [item.item_id for item in order.items]
    assert not model.overran


def test_a_cancellation_request_gives_a_reason_only_in_words_that_say_why() -> None:
    assert giving_cancel_reason(request("cancel it, I ordered it by mistake")) is not None
    assert giving_cancel_reason(request("cancel my order W8664580, I don't need it")) is not None
    assert giving_cancel_reason(request("please cancel order 100102")) is None


def test_a_return_request_holds_details_when_it_names_an_item_or_a_reason() -> None:
    boots = (OrderItem(name="Hiking Boots"),)
    assert naming_items_or_reason(request("I need to send back my boots"), boots) is not None
    assert naming_items_or_reason(request("I want to return it, it's broken"), boots) is not None
    assert naming_items_or_reason(request("I wanna return something"), boots) is None


def test_a_swap_request_holds_details_when_it_describes_another_version() -> None:
    bottle = demo_variant(BOTTLE_BLUE)
    product = next(p for p in DEMO_PRODUCTS if p.product_id == bottle.product_id)
    items = (
        OrderItem(
            name="Stainless steel water bottle",
            quantity=3,
            product_id=bottle.product_id,
            item_id=BOTTLE_BLUE,
            options=bottle.options,
            price=bottle.price,
        ),
    )
    products = {product.product_id: product}

    def holds(line: str) -> bool:
        return naming_a_new_version(request(line), items, products) is not None

    assert holds("switch them to the 750 one")
    assert holds("the green one, same size")
    assert not holds("I'd like to change my water bottles")
    assert not holds("the same one again")


def test_the_request_is_what_the_caller_said_since_the_last_request_completed() -> None:
    history = llm.ChatContext.empty()
    history.add_message(role="user", content="where is order 100102")
    history.insert(llm.FunctionCall(call_id="1", name="lookup_order", arguments="{}"))
    history.insert(
        llm.FunctionCallOutput(call_id="1", name="lookup_order", output="", is_error=False)
    )
    history.add_message(role="assistant", content="It is on its way.")
    history.add_message(role="user", content="great, and the other one")
    history.add_message(role="user", content="cancel it, I ordered it by mistake")
    said = request_lines(history).items
    assert [item.text_content for item in said] == [
        "great, and the other one",
        "cancel it, I ordered it by mistake",
    ]
    assert all(isinstance(item, llm.ChatMessage) and item.role == "user" for item in said)


async def test_a_yes_to_the_item_change_offered_for_a_pending_order_opens_it_on_the_request(
    settings: Settings,
) -> None:
    """An exchange asked for a pending order is refused with the offer of an item change;
    the caller's yes asks for it, and the version they asked for at first reaches it
    (their identity answers, said inside the exchange's verification, do not)."""
    asked = f"Can I swap the water bottles in order {PENDING} for a green one"
    one_green = record("record_item_change", [BOTTLE_BLUE], [BOTTLE_GREEN], PAYPAL)
    seen: list[list[str]] = []

    def opening(turn: Turn) -> Decision:
        assert turn.offers(frozenset({"record_item_change"}))
        seen.append(caller_said(turn))
        return one_green

    model = ScriptedLLM(
        [
            *verifying_for("exchange_items", PENDING, PRIYA),
            relay,
            Call("change_items", {"order_id": PENDING}),
            opening,
            Call("confirm_item_change"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input=asked)
        await session.run(user_input=PRIYA_SAYS)
        assert agent_lines(session)[-1] == not_exchangeable_message(PENDING, OrderStatus.PENDING)
        await session.run(user_input="yes please")
        assert agent_lines(session)[-1].startswith("You'd like to change a Stainless steel")
        await session.run(user_input="yes")
        order = await order_now(session, PENDING)
        assert BOTTLE_GREEN in [item.item_id for item in order.items]
    assert seen == [[asked, "yes please"]]
    assert not model.overran


def test_words_said_inside_a_tool_are_no_part_of_the_request() -> None:
    history = llm.ChatContext.empty()
    history.add_message(role="user", content="return order 200201, it's broken")
    history.insert(llm.FunctionCall(call_id="1", name="request_return", arguments="{}"))
    history.add_message(role="user", content="Priya Natarajan, 10001")
    history.insert(
        llm.FunctionCallOutput(call_id="1", name="request_return", output="", is_error=True)
    )
    history.add_message(role="user", content="ok, the other one then")
    said = [item.text_content for item in request_lines(history).items]
    assert said == ["return order 200201, it's broken", "ok, the other one then"]
