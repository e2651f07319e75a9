"""Models that break the rules on purpose: the policy must hold in code regardless."""

from __future__ import annotations

import pytest

from customer_service.settings import Settings
from customer_service.specialists.address_update import opening_question as address_question
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.identity import VERIFICATION_LOCKED
from customer_service.specialists.order_lookup import INVALID_ORDER_NUMBER, not_found_message
from customer_service.specialists.order_lookup import OPENING_QUESTION as ORDER_QUESTION
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, check_identity, tool_outputs
from support.demo_addresses import MARKET_ST_ARGUMENTS
from support.scripted_llm import IDENTITY_TOOLS, Call, Parallel, Say, ScriptedLLM, Turn
from support.scripted_llm import relay_tool_output as relay


async def test_other_customers_order_before_verification_leaks_nothing(
    settings: Settings,
) -> None:
    # The model jumps straight to Priya's order for an unverified caller.
    model = ScriptedLLM(
        [Call("lookup_order", {"order_id": "200201"}), check_identity(JORDAN), relay]
    )
    async with call_session(model, settings=settings) as session:
        first = await session.run(user_input="Tell me about order 200201")
        first.expect.next_event().is_function_call(name="lookup_order")
        first.expect.next_event().is_agent_handoff()
        first.expect.next_event().is_message(role="assistant")
        first.expect.no_more_events()
        # Identity runs first: nothing about any order has reached the model yet.
        assert model.turns[-1].offers(IDENTITY_TOOLS) is False
        assert tool_outputs(session, "lookup_order") == []

        await session.run(user_input=JORDAN_SAYS)
        said = " ".join(agent_lines(session))
        assert agent_lines(session)[-1] == not_found_message("200201")
        for secret in ("Priya", "delivered", "350 5th Ave", "10001"):
            assert secret not in said
    for turn in model.turns:
        for item in turn.chat_ctx.items:
            assert "350 5th Ave" not in str(item)


async def test_invented_order_numbers_are_rejected(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order"),
            check_identity(JORDAN),
            Call("lookup", {"order_id": "12345"}),
            relay,
            Call("lookup", {"order_id": "ORD-7"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="check my order")
        await session.run(user_input=JORDAN_SAYS)
        short = await session.run(user_input="it's twelve three four five")
        short.expect.contains_function_call_output(output=INVALID_ORDER_NUMBER, is_error=True)
        made_up = await session.run(user_input="hmm")
        made_up.expect.contains_function_call_output(output=INVALID_ORDER_NUMBER, is_error=True)
        assert session.userdata.disclosed_order_ids == []
        # Malformed numbers are a format problem, not a miss against the account.
        assert session.userdata.order_lookup_failures == 0


async def test_specialist_tools_called_from_the_supervisor_do_not_exist(
    settings: Settings,
) -> None:
    # A model that calls the identity specialist's tool while the supervisor is active
    # cannot verify anyone that way: the supervisor has no such tool.
    model = ScriptedLLM([check_identity(JORDAN), Say("Done."), Call("lookup_order")])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I'm Jordan Lee, 94107, jordan.lee@example.com")
        assert session.userdata.verified_customer is None
        result = await session.run(user_input="Now where is order 100101?")
        result.expect.next_event().is_function_call(name="lookup_order")
        result.expect.next_event().is_agent_handoff()
        assert tool_outputs(session, "lookup_order") == []


async def test_a_model_that_retries_identity_forever_is_stopped_by_the_lock(
    settings: Settings,
) -> None:
    def always_wrong(turn: Turn) -> Call | Say:
        if turn.offers(IDENTITY_TOOLS) and turn.last_tool_output is None:
            return check_identity(JORDAN, full_name="Someone Else")
        if turn.offers(IDENTITY_TOOLS):
            # It ignores the error and checks again without asking the caller.
            return check_identity(JORDAN, full_name="Someone Else")
        if turn.last_tool_output is not None:
            return relay(turn)
        return Call("verify_identity")

    model = ScriptedLLM(then=always_wrong)
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="verify me")
        for _ in range(5):
            await session.run(user_input="Someone Else, 94107, jordan.lee@example.com")
        assert session.userdata.identity.locked
        assert session.userdata.identity.failed_checks == settings.identity_max_attempts
        assert session.userdata.verified_customer is None
        assert VERIFICATION_LOCKED in agent_lines(session)


async def test_two_specialist_starting_tools_in_one_reply_run_in_turn(
    settings: Settings,
) -> None:
    # "Where are orders 100101 and 100102?" from an unverified caller: the model asks
    # for both at once. The caller is asked to verify once, and both are answered.
    both = Parallel(
        (
            Call("lookup_order", {"order_id": "100101"}),
            Call("lookup_order", {"order_id": "100102"}),
        )
    )
    model = ScriptedLLM([both, check_identity(JORDAN), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Where are orders 100101 and 100102?")
        await session.run(user_input=JORDAN_SAYS)
        assert agent_lines(session).count(IDENTITY_QUESTION) == 1
        outputs = [output.output for output in tool_outputs(session, "lookup_order")]
        assert len(outputs) == 2
        assert outputs[0].startswith("Order 1 0 0, 1 0 1")
        assert "1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" in outputs[0]
        assert outputs[1].startswith("Order 1 0 0, 1 0 2")
        assert "is processing" in outputs[1]
        assert session.userdata.guardrails.attempts("verify_identity_task") == 1
    assert not model.overran


async def test_the_same_specialist_tool_twice_in_one_reply_asks_the_caller_once(
    settings: Settings,
) -> None:
    # "Check my order. My order, please check it": the model asks for the lookup twice.
    twice = Parallel((Call("lookup_order"), Call("lookup_order", {"order_id": None})))
    model = ScriptedLLM(
        [
            Call("verify_identity"),
            check_identity(JORDAN),
            relay,
            twice,
            Call("lookup", {"order_id": "100101"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Please verify me")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="Check my order. My order, please check it.")
        assert agent_lines(session)[-1] == ORDER_QUESTION
        await session.run(user_input="100101")
        assert agent_lines(session).count(ORDER_QUESTION) == 1
        first, second = tool_outputs(session, "lookup_order")
        assert (first.output, first.is_error) == (second.output, second.is_error)
        assert first.output.startswith("Order 1 0 0, 1 0 1,")
        assert session.userdata.guardrails.attempts("order_lookup_task") == 1
    assert not model.overran


@pytest.mark.parametrize("written_again", ["100102", "100 102", "100-102", "one zero zero 102"])
async def test_a_duplicate_of_a_saved_change_does_not_ask_for_the_address_again(
    settings: Settings, written_again: str
) -> None:
    # The same order, written two ways in one reply, is one request.
    twice = Parallel(
        (
            Call("update_address", {"order_id": "100102"}),
            Call("update_address", {"order_id": written_again}),
        )
    )
    model = ScriptedLLM(
        [
            Call("verify_identity"),
            check_identity(JORDAN),
            relay,
            twice,
            Call("record_address", MARKET_ST_ARGUMENTS),
            Call("confirm_address"),
            # The confirmation, the question and the answer's confirmation are said by code.
            Call("record_consent", {"granted": False}),
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Please verify me")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="Change the address of order 100102. Order 100102!")
        await session.run(user_input="1 Market St, San Francisco, CA 94105")
        await session.run(user_input="Yes")
        await session.run(user_input="No thanks")
        assert agent_lines(session).count(address_question("100102")) == 1
        first, second = tool_outputs(session, "update_address")
        assert (first.output, first.is_error) == (second.output, second.is_error)
        assert not first.is_error
        assert len(await session.userdata.store.address_changes(order_id="100102")) == 1
        assert session.userdata.guardrails.attempts("address_update_task") == 1
    assert not model.overran
