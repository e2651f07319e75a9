"""Bounds on delegation: a model that will not stop is stopped in code, and a human offered.

Each test configures the bound it is about and, where another guardrail would trip
first on the same script, loosens that one, so the stop observed is the one under test.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from livekit.agents import AgentSession

from customer_service.call.state import CallState, Delegation, DelegationOutcome
from customer_service.call.wording import BOUND_APOLOGY, OFFER_HUMAN
from customer_service.settings import Settings
from customer_service.specialists.address_update import WORDING as ADDRESS_WORDING
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.identity import VERIFICATION_DECLINED, VerifyIdentityTask
from customer_service.specialists.order_lookup import LOOKUP_ABANDONED
from customer_service.store import AuditEvent
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    agent_lines,
    audit_events,
    check_identity,
    tool_outputs,
)
from support.scripted_llm import (
    IDENTITY_TOOLS,
    ORDER_LOOKUP_TOOLS,
    SUPERVISOR_TOOLS,
    Call,
    Decision,
    Say,
    ScriptedLLM,
    Turn,
)
from support.scripted_llm import relay_tool_output as relay

IDENTITY = "verify_identity_task"
ORDER_LOOKUP = "order_lookup_task"
ADDRESS_UPDATE = "address_update_task"
ADDRESS_TOOLS = frozenset({"record_address", "give_up"})


async def refusals(session: AgentSession[CallState]) -> list[AuditEvent]:
    return await audit_events(session, kind="delegation_refused")


async def delegation_outcomes(session: AgentSession[CallState]) -> list[tuple[Any, Any]]:
    events = await audit_events(session, kind="delegation")
    return [(event.detail["specialist"], event.detail["outcome"]) for event in events]


def outputs_of(session: AgentSession[CallState], tool: str) -> list[str]:
    return [item.output for item in tool_outputs(session, tool)]


async def test_a_model_that_retries_a_failing_specialist_forever_is_refused(
    settings: Settings,
) -> None:
    # Identical calls are also stopped by repeat detection; this test is about the
    # delegation bound, so repeats are allowed here (see the next test for both).
    settings = settings.model_copy(update={"repeated_tool_call_limit": 10})

    def retry_forever(turn: Turn) -> Decision:
        if turn.offers(IDENTITY_TOOLS):
            return Call("give_up")
        if turn.must_answer:
            return relay(turn)
        return Call("lookup_order")

    model = ScriptedLLM(then=retry_forever)
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you check my order?")
        await session.run(user_input="I'd rather not say")
        await session.run(user_input="No, I won't give those")
        await session.run(user_input="Hello? Just check my order")

        state = session.userdata
        assert state.guardrails.delegations == [
            Delegation(IDENTITY, DelegationOutcome.FAILED),
            Delegation(IDENTITY, DelegationOutcome.FAILED),
        ]
        assert agent_lines(session).count(IDENTITY_QUESTION) == 2
        outputs = outputs_of(session, "lookup_order")
        refused = len(outputs) - 2
        assert refused >= 2
        assert outputs == [
            VERIFICATION_DECLINED,
            VERIFICATION_DECLINED,
            BOUND_APOLOGY,
            *[OFFER_HUMAN] * (refused - 1),
        ]
        assert agent_lines(session)[-1] == OFFER_HUMAN
        assert state.guardrails.bound_apology_given
        events = await refusals(session)
        assert [(e.detail["specialist"], e.detail["bound"]) for e in events] == [
            (IDENTITY, "repeated_failure")
        ] * refused
        assert await delegation_outcomes(session) == [(IDENTITY, "failed")] * 2
        assert state.verified_customer is None
    assert not model.overran


async def test_retrying_with_the_same_arguments_is_stopped_by_default(
    settings: Settings,
) -> None:
    def retry_forever(turn: Turn) -> Decision:
        if turn.offers(IDENTITY_TOOLS):
            return Call("give_up")
        if turn.must_answer:
            return relay(turn)
        return Call("lookup_order")

    model = ScriptedLLM(then=retry_forever)
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you check my order?")
        await session.run(user_input="I'd rather not say")
        await session.run(user_input="No, I won't give those")

        state = session.userdata
        assert [d.specialist for d in state.guardrails.delegations] == [IDENTITY, IDENTITY]
        outputs = outputs_of(session, "lookup_order")
        assert outputs[:2] == [VERIFICATION_DECLINED] * 2
        assert len(outputs) > 2
        assert all("colleague" in output for output in outputs[2:])
        assert "colleague" in agent_lines(session)[-1]
        assert agent_lines(session).count(IDENTITY_QUESTION) == 2
    assert not model.overran


async def test_attempts_per_specialist_are_bounded(settings: Settings) -> None:
    settings = settings.model_copy(
        update={"specialist_max_attempts": 2, "repeated_tool_call_limit": 10}
    )

    def lookups(turn: Turn) -> Decision:
        if turn.offers(ORDER_LOOKUP_TOOLS):
            return Call("lookup", {"order_id": "100101"})
        if turn.last_tool_output is not None:
            return relay(turn)
        return Call("lookup_order")

    model = ScriptedLLM([Call("lookup_order"), check_identity(JORDAN)], then=lookups)
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you check an order?")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="100101")
        await session.run(user_input="Check an order again, please")
        await session.run(user_input="100101")
        refused = await session.run(user_input="And once more")
        refused.expect.next_event().is_function_call(name="lookup_order")
        refused.expect.next_event().is_function_call_output(output=BOUND_APOLOGY, is_error=True)
        refused.expect.next_event().is_message(role="assistant")
        refused.expect.no_more_events()

        assert session.userdata.guardrails.delegations == [
            Delegation(IDENTITY, DelegationOutcome.COMPLETED),
            Delegation(ORDER_LOOKUP, DelegationOutcome.COMPLETED),
            Delegation(ORDER_LOOKUP, DelegationOutcome.COMPLETED),
        ]
        [event] = await refusals(session)
        assert event.detail == {"specialist": ORDER_LOOKUP, "bound": "attempts_per_specialist"}
        assert agent_lines(session)[-1] == BOUND_APOLOGY


def ping_pong(turn: Turn, variants: Iterator[str]) -> Decision:
    """Gives up in whichever specialist is active, and at once starts the other one."""
    if turn.offers(ADDRESS_TOOLS) or turn.offers(ORDER_LOOKUP_TOOLS):
        return Call("give_up")
    output = turn.last_tool_output
    if output is None:
        return Say("How can I help?")
    if output.name == "update_address" and output.output in (
        ADDRESS_WORDING.nothing_done,
        BOUND_APOLOGY,
    ):
        return Call("lookup_order")
    if output.name == "lookup_order" and output.output in (LOOKUP_ABANDONED, BOUND_APOLOGY):
        # The same order, said differently each time.
        return Call("update_address", {"order_id": next(variants)})
    return relay(turn)


async def run_ping_pong(
    settings: Settings, give_ups: int
) -> tuple[ScriptedLLM, list[str], list[Delegation], list[AuditEvent]]:
    variants = itertools.cycle(["100-102", "1 0 0, 1 0 2", "one zero zero one zero two"])
    model = ScriptedLLM(
        [Call("update_address", {"order_id": "100102"}), check_identity(JORDAN)],
        then=lambda turn: ping_pong(turn, variants),
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I need to change the address for order 100102")
        await session.run(user_input=JORDAN_SAYS)
        for _ in range(give_ups):
            await session.run(user_input="Never mind")
        return (
            model,
            agent_lines(session),
            list(session.userdata.guardrails.delegations),
            await refusals(session),
        )


async def test_ping_pong_stops_when_a_specialist_fails_twice_in_a_row(
    settings: Settings,
) -> None:
    # Loosened so that only the failing-twice rule can stop the ping-pong.
    settings = settings.model_copy(update={"max_tool_steps": 10, "repeated_tool_call_limit": 10})
    model, lines, delegations, refused = await run_ping_pong(settings, give_ups=4)

    failed = DelegationOutcome.FAILED
    assert delegations == [
        Delegation(IDENTITY, DelegationOutcome.COMPLETED),
        Delegation(ADDRESS_UPDATE, failed),
        Delegation(ORDER_LOOKUP, failed),
        Delegation(ADDRESS_UPDATE, failed),
        Delegation(ORDER_LOOKUP, failed),
    ]
    assert [event.detail for event in refused] == [
        {"specialist": ADDRESS_UPDATE, "bound": "repeated_failure"},
        {"specialist": ORDER_LOOKUP, "bound": "repeated_failure"},
    ]
    assert lines[-1] == OFFER_HUMAN
    assert not model.overran


async def test_ping_pong_stops_at_the_delegations_per_call_limit(settings: Settings) -> None:
    settings = settings.model_copy(
        update={"max_delegations_per_call": 4, "max_tool_steps": 10, "repeated_tool_call_limit": 10}
    )
    model, lines, delegations, refused = await run_ping_pong(settings, give_ups=3)

    assert [d.specialist for d in delegations] == [
        IDENTITY,
        ADDRESS_UPDATE,
        ORDER_LOOKUP,
        ADDRESS_UPDATE,
    ]
    assert [event.detail for event in refused] == [
        {"specialist": ORDER_LOOKUP, "bound": "delegations_per_call"},
        {"specialist": ADDRESS_UPDATE, "bound": "delegations_per_call"},
    ]
    assert lines[-1] == OFFER_HUMAN
    assert not model.overran


async def eventually(condition: Callable[[], bool], *, what: str) -> None:
    """Waits for `condition` in short sleeps, a bounded number of times."""
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.025)
    raise AssertionError(f"never happened: {what}")


async def test_a_specialist_that_never_completes_is_timed_out(settings: Settings) -> None:
    settings = settings.model_copy(update={"specialist_time_limit_s": 0.2})

    def stalling(turn: Turn) -> Decision:
        if turn.offers(IDENTITY_TOOLS):
            return Say("Could you repeat that?")
        if turn.last_tool_output is not None:
            return relay(turn)
        return Say("Of course. What else can I do for you?")

    model = ScriptedLLM([Call("verify_identity")], then=stalling)
    async with call_session(model, settings=settings) as session:
        asked = await session.run(user_input="Please verify me")
        asked.expect.contains_agent_handoff()
        # The caller gives no details, so the specialist never completes. No further
        # caller turn: one sent now could land before or after the time limit (0.2 s of
        # a loaded machine's wall time), and the last line would depend on which.
        state = session.userdata

        await eventually(
            lambda: (
                bool(state.guardrails.delegations) and agent_lines(session)[-1] == BOUND_APOLOGY
            ),
            what="the time-out and the offer of a human",
        )
        assert state.guardrails.delegations == [Delegation(IDENTITY, DelegationOutcome.TIMED_OUT)]
        assert outputs_of(session, "verify_identity") == [BOUND_APOLOGY]
        assert await delegation_outcomes(session) == [(IDENTITY, "timed_out")]
        assert state.guardrails.active_specialist is None
        assert state.verified_customer is None

        after = await session.run(user_input="What else can you do?")
        reply = after.expect.next_event().is_message(role="assistant").event().item
        assert reply.text_content == "Of course. What else can I do for you?"
        after.expect.no_more_events()
        assert model.turns[-1].offers(SUPERVISOR_TOOLS)
        assert not model.turns[-1].offers(IDENTITY_TOOLS)
    assert not model.overran


async def test_a_time_out_within_the_asking_reply_ends_the_specialist_not_the_reply(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The specialist's opening outlasts its time limit, so the limit passes while the
    # reply that started it is still running (as on a loaded machine). The reply must
    # end as a time-out does, with the offer of a human, not fail with the framework's
    # cancellation.
    settings = settings.model_copy(update={"specialist_time_limit_s": 0.1})
    opening = VerifyIdentityTask.opening

    async def slow_opening(task: VerifyIdentityTask) -> None:
        await asyncio.sleep(0.3)
        await opening(task)

    monkeypatch.setattr(VerifyIdentityTask, "opening", slow_opening)
    model = ScriptedLLM([Call("verify_identity")], then=relay)
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Please verify me")
        state = session.userdata
        await eventually(
            lambda: agent_lines(session)[-1:] == [BOUND_APOLOGY],
            what="the time-out and the offer of a human",
        )
        assert state.guardrails.delegations == [Delegation(IDENTITY, DelegationOutcome.TIMED_OUT)]
        assert outputs_of(session, "verify_identity") == [BOUND_APOLOGY]
        assert state.guardrails.active_specialist is None
