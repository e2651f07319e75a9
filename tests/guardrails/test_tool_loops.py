"""Tool loops: the same call over and over, and too many tool steps in one turn.

What the framework does at its tool-step cap (livekit-agents 1.8.9,
`AgentActivity._pipeline_reply_task`): once the reply chain of one turn has run
`max_tool_steps + 1` rounds of tool calls, it logs "maximum number of function calls
steps reached" and asks the model once more with `tool_choice="none"`; tool calls the
model still sends in that request are dropped unexecuted ("received a tool call with
tool_choice set to 'none', ignoring"), and the model's text answers the caller.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from livekit.agents import RunResult, llm

from customer_service.call.wording import REPEATED_CALL
from customer_service.domain import OrderStatus
from customer_service.settings import Settings
from customer_service.specialists.order_lookup import INVALID_ORDER_NUMBER
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, check_identity, tool_outputs
from support.scripted_llm import (
    ORDER_LOOKUP_TOOLS,
    SUPERVISOR_TOOLS,
    Call,
    Decision,
    Say,
    ScriptedLLM,
    Step,
    Turn,
)
from support.scripted_llm import relay_tool_output as relay
from support.store_records import save_orders, stored_order

VERIFIED = 'Thank you, "Jordan Lee", you are verified.'
STOPPED_CHAINING = "Sorry, let me just answer you."
LIST_THEN_RELAY: list[Step] = [Call("list_recent_orders"), relay]
ADDRESSES = [
    {
        "street": street,
        "city": "San Francisco",
        "region": "CA",
        "postal_code": "94105",
        "country": "US",
    }
    for street in ("1 Market St", "2 Market St", "3 Market St")
]


def calls_in(result: RunResult[Any], name: str) -> list[llm.FunctionCall]:
    return [
        event.item
        for event in result.events
        if event.type == "function_call" and event.item.name == name
    ]


def output_of(result: RunResult[Any], name: str) -> str:
    [output] = [
        event.item.output
        for event in result.events
        if event.type == "function_call_output" and event.item.name == name
    ]
    return output


# The same tool with the same arguments, three times in a call


async def test_the_same_supervisor_call_a_third_time_is_stopped(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            Call("verify_identity"),
            check_identity(JORDAN),
            relay,
            Call("verify_identity"),
            relay,
            Call("verify_identity"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Verify me please")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="Am I verified?")
        third = await session.run(user_input="Am I verified? Check again")
        third.expect.next_event().is_function_call(name="verify_identity")
        third.expect.next_event().is_function_call_output(output=REPEATED_CALL, is_error=True)
        third.expect.next_event().is_message(role="assistant")
        third.expect.no_more_events()

        outputs = [item.output for item in tool_outputs(session, "verify_identity")]
        assert outputs == [VERIFIED, VERIFIED, REPEATED_CALL]
        assert agent_lines(session)[-1] == REPEATED_CALL
        assert len(session.userdata.guardrails.delegations) == 1
    assert not model.overran


async def test_the_same_specialist_call_a_third_time_is_stopped(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order"),
            check_identity(JORDAN),
            *LIST_THEN_RELAY * 3,
            Call("lookup", {"order_id": "100102"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you check an order?")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="I don't know the number")
        await session.run(user_input="Sorry, list them again?")
        third = await session.run(user_input="One more time?")
        third.expect.next_event().is_function_call(name="list_recent_orders")
        third.expect.next_event().is_function_call_output(output=REPEATED_CALL, is_error=True)
        assert agent_lines(session)[-1] == REPEATED_CALL
        assert session.userdata.guardrails.active_specialist == "order_lookup_task"

        # Only that path is stopped: the lookup itself still completes.
        picked = await session.run(user_input="It's 100102")
        picked.expect.contains_function_call_output(is_error=False)
        assert agent_lines(session)[-2].startswith("Order 1 0 0, 1 0 2,")
        assert session.userdata.disclosed_order_ids == ["100102"]
    assert model.turns[-2].offers(ORDER_LOOKUP_TOOLS)
    assert not model.overran


async def test_different_arguments_are_not_a_repeated_call(settings: Settings) -> None:
    # Three questions about two orders: no call is made three times with the same
    # arguments, so nothing may be stopped as a repeat.
    model = ScriptedLLM(
        [
            Call("lookup_order", {"order_id": "100101"}),
            check_identity(JORDAN),
            relay,
            Call("lookup_order", {"order_id": "100102"}),
            relay,
            Call("lookup_order", {"order_id": "100101"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Where is order 100101?")
        first = await session.run(user_input=JORDAN_SAYS)
        second = await session.run(user_input="And order 100102?")
        third = await session.run(user_input="Sorry, what was the tracking number of 100101?")
        outputs = [output_of(result, "lookup_order") for result in (first, second, third)]
        assert REPEATED_CALL not in outputs
        assert [output[:19] for output in outputs] == [
            "Order 1 0 0, 1 0 1,",
            "Order 1 0 0, 1 0 2,",
            "Order 1 0 0, 1 0 1,",
        ]
        assert session.userdata.disclosed_order_ids == ["100101", "100102"]
    assert not model.overran


async def test_a_caller_correcting_the_address_twice_is_not_a_repeated_call(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("update_address", {"order_id": "100102"}),
            check_identity(JORDAN),
            *[Call("record_address", address) for address in ADDRESSES],
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Please change the address of order 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market St, San Francisco, CA 94105")
        await session.run(user_input="No, 2 Market St")
        corrected = await session.run(user_input="Sorry, it's 3 Market St")
        corrected.expect.next_event().is_function_call(name="record_address")
        corrected.expect.next_event().is_function_call_output(is_error=False)
        assert agent_lines(session)[-1] == (
            "I have 3 Market St, San Francisco, CA 94105, United States. Is that right?"
        )
    assert not model.overran


# Tool steps per turn


def chaining_model(tool: str, argument: str, steps: list[Step]) -> ScriptedLLM:
    """After `steps`, a model that answers every request with one more tool call (new
    arguments each time), and answers in words only when the framework forbids tools."""
    counter = itertools.count(1)

    def decide(turn: Turn) -> Decision:
        if turn.must_answer:
            return Say(STOPPED_CHAINING)
        return Call(tool, {argument: f"{next(counter)}"})

    return ScriptedLLM(steps, then=decide)


@pytest.mark.parametrize("max_tool_steps", [1, 3])
async def test_supervisor_tool_steps_per_turn_are_capped(
    settings: Settings, max_tool_steps: int
) -> None:
    settings = settings.model_copy(
        update={"max_tool_steps": max_tool_steps, "repeated_tool_call_limit": 10}
    )
    model = chaining_model("request_consent", "topic", [])
    async with call_session(model, settings=settings) as session:
        result = await session.run(user_input="Hi")
        executed = calls_in(result, "request_consent")
        last = result.expect[-1].is_message(role="assistant").event().item
        assert last.text_content == STOPPED_CHAINING
    # The greeting is not an LLM call: every request belongs to this turn.
    assert model.turns[-1].must_answer
    assert not any(turn.must_answer for turn in model.turns[:-1])
    assert all(turn.offers(SUPERVISOR_TOOLS) for turn in model.turns)
    assert len(executed) == settings.max_tool_steps


async def test_specialist_tool_steps_per_turn_are_capped(settings: Settings) -> None:
    settings = settings.model_copy(update={"max_tool_steps": 2})
    model = chaining_model("lookup", "order_id", [Call("lookup_order"), check_identity(JORDAN)])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you check an order?")
        await session.run(user_input=JORDAN_SAYS)
        first_request = len(model.turns)
        result = await session.run(user_input="Hmm, let me think")
        executed = calls_in(result, "lookup")
        outputs = [item.output for item in tool_outputs(session, "lookup")]
        assert outputs == [INVALID_ORDER_NUMBER] * len(executed)
        assert agent_lines(session)[-1] == STOPPED_CHAINING
        assert session.userdata.guardrails.active_specialist == "order_lookup_task"
    this_turn = model.turns[first_request:]
    assert this_turn[-1].must_answer
    assert not any(turn.must_answer for turn in this_turn[:-1])
    assert all(turn.offers(ORDER_LOOKUP_TOOLS) for turn in model.turns[first_request:])
    assert len(executed) == settings.max_tool_steps


async def test_the_same_answer_in_another_orders_specialist_is_not_a_repeated_call(
    settings: Settings,
) -> None:
    # Two orders cancelled for the same reason: the second specialist's record has the
    # first's arguments, but it is another run, so no loop, even at the lowest limit.
    settings = settings.model_copy(update={"repeated_tool_call_limit": 2})
    reason = Call("record_cancellation_reason", {"reason": "no longer needed"})
    model = ScriptedLLM(
        [
            Call("cancel_order", {"order_id": "100102"}),
            check_identity(JORDAN),
            reason,
            Call("confirm_cancellation"),
            relay,
            Call("cancel_order", {"order_id": "100103"}),
            reason,
            Call("confirm_cancellation"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        store = session.userdata.store
        second = (await stored_order(store, "100102")).model_copy(update={"order_id": "100103"})
        await save_orders(store, second)
        await session.run(user_input="Please cancel order 100102")
        await session.run(user_input=JORDAN_SAYS)
        for order_id in ("100102", "100103"):
            if order_id == "100103":
                await session.run(user_input="And cancel order 100103 too")
            await session.run(user_input="I don't need it any more")
            await session.run(user_input="Yes")
        outputs = [output.output for output in tool_outputs(session, "record_cancellation_reason")]
        assert REPEATED_CALL not in outputs
        for order_id in ("100102", "100103"):
            assert (await stored_order(store, order_id)).status is OrderStatus.CANCELLED
    assert not model.overran
