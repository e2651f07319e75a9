"""Faults in the middle of a call: the store failing, the caller hanging up or interrupting.

Whatever happens, nothing is half-written and the call (or its close) goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import pytest
from livekit.agents import CloseEvent

from customer_service.addresses import read_back
from customer_service.call.state import CallState, Delegation, DelegationOutcome
from customer_service.call.wording import STORE_APOLOGY
from customer_service.settings import Settings
from customer_service.specialists.consent import ConsentTopic
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.store import Store
from customer_service.testing import call_session
from support.clock import DEMO_ORDERS
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, audit_kinds, check_identity
from support.demo_addresses import MARKET_ST_ARGUMENTS
from support.faults import fail_everything, fail_writes
from support.scripted_llm import Call, ScriptedLLM, Step
from support.scripted_llm import relay_tool_output as relay

NEW_ADDRESS = MARKET_ST_ARGUMENTS
READ_BACK = "I have 1 Market St, San Francisco, CA 94105, United States. Is that right?"
ORIGINAL_ADDRESS = next(o for o in DEMO_ORDERS if o.order_id == "100102").shipping_address
SCHEDULER_PASSES = 20
"""Event-loop passes that let a close begin (no time passes in them)."""
CLOSE_WITHIN_S = 10.0
"""A generous bound on closing the session: a hang must fail the test, not stall it."""


def our_warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        record
        for record in caplog.records
        if record.name.startswith("customer_service") and record.levelno >= logging.WARNING
    ]


async def test_store_writes_failing_at_the_address_confirmation(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            Call("update_address", {"order_id": "100102"}),
            check_identity(JORDAN),
            Call("record_address", NEW_ADDRESS),
            Call("confirm_address"),
            relay,
            Call("lookup_order", {"order_id": "100102"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        state = session.userdata
        await session.run(user_input="Please change the delivery address of order 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market St, San Francisco, CA 94105")
        assert agent_lines(session)[-1] == READ_BACK

        undo = fail_writes(state.store)
        try:
            confirmed = await session.run(user_input="Yes, that's right")
        finally:
            undo()
        confirmed.expect.contains_function_call_output(output=STORE_APOLOGY, is_error=True)
        assert agent_lines(session)[-1] == STORE_APOLOGY

        order = await state.store.get_order("100102")
        assert order is not None
        assert order.shipping_address == ORIGINAL_ADDRESS
        assert await state.store.address_changes(order_id="100102") == []
        assert "address_changed" not in await audit_kinds(session)
        assert state.verified_customer is not None

        # The call goes on: the next request works and reads the unchanged address.
        after = await session.run(user_input="OK. Where is order 100102 going now?")
        after.expect.next_event().is_function_call(name="lookup_order")
        output = after.expect.next_event().is_function_call_output(is_error=False)
        assert read_back(ORIGINAL_ADDRESS) in output.event().item.output
    assert not model.overran


async def test_store_down_during_the_identity_check(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order", {"order_id": "100101"}),
            check_identity(JORDAN),
            relay,
            check_identity(JORDAN),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        state = session.userdata
        await session.run(user_input="Where is my order 100101?")
        undo = fail_everything(state.store)
        try:
            down = await session.run(user_input=JORDAN_SAYS)
        finally:
            undo()
        down.expect.next_event().is_function_call(name="check_identity")
        down.expect.next_event().is_function_call_output(output=STORE_APOLOGY, is_error=True)
        down.expect.next_event().is_message(role="assistant")
        down.expect.no_more_events()
        assert agent_lines(session)[-1] == STORE_APOLOGY
        assert state.verified_customer is None
        # An outage is not the caller's failed attempt.
        assert state.identity.failed_checks == 0
        assert state.guardrails.active_specialist == "verify_identity_task"

        again = await session.run(user_input=JORDAN_SAYS)
        again.expect.contains_function_call_output(is_error=False)
        assert state.verified_customer is not None
        assert "1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" in agent_lines(session)[-2]
    assert not model.overran


HANG_UPS: dict[str, tuple[list[Step], list[str], str, list[str]]] = {
    # case: (script, caller lines, specialist hung up in, audit kinds stored before)
    "identity": (
        [Call("lookup_order", {"order_id": "100101"})],
        ["Where is my order 100101?"],
        "verify_identity_task",
        [],
    ),
    "order lookup": (
        [Call("lookup_order"), check_identity(JORDAN)],
        ["Can you check an order?", JORDAN_SAYS],
        "order_lookup_task",
        ["identity_verified", "delegation"],
    ),
    "address update after the read-back": (
        [
            Call("update_address", {"order_id": "100102"}),
            check_identity(JORDAN),
            Call("record_address", NEW_ADDRESS),
        ],
        ["Change the address of order 100102", JORDAN_SAYS, "1 Market St, San Francisco"],
        "address_update_task",
        ["identity_verified", "delegation"],
    ),
    "consent": (
        [Call("request_consent", {"topic": "call_recording"})],
        ["I want to set my call recording choice"],
        "consent_task",
        [],
    ),
}


@pytest.mark.parametrize("case", HANG_UPS.values(), ids=HANG_UPS.keys())
async def test_hang_up_during_a_specialist(
    settings: Settings,
    demo_database_url: str,
    caplog: pytest.LogCaptureFixture,
    case: tuple[list[Step], list[str], str, list[str]],
) -> None:
    script, lines, specialist, stored_before = case
    model = ScriptedLLM(script)
    database_url = demo_database_url
    closed: list[CloseEvent] = []
    async with asyncio.timeout(CLOSE_WITHIN_S):
        async with call_session(model, settings=settings, database_url=database_url) as session:
            session.on("close", closed.append)
            for line in lines:
                await session.run(user_input=line)
            state: CallState = session.userdata
            assert state.guardrails.active_specialist == specialist
        # Leaving the block closes the session, as the caller hanging up does.

    assert len(closed) == 1
    assert state.guardrails.delegations[-1] == Delegation(specialist, DelegationOutcome.CANCELLED)
    assert state.guardrails.active_specialist is None
    assert our_warnings(caplog) == []
    assert not model.overran
    store = await Store.open(database_url)
    try:
        events = await store.audit_events(call_id=state.call_id)
        assert [event.kind for event in events] == stored_before
        assert "cancelled" not in [event.detail.get("outcome") for event in events]
        assert await store.address_changes(call_id=state.call_id) == []
        for topic in ConsentTopic:
            assert await store.latest_consent(topic=topic, call_id=state.call_id) is None
        assert await store.escalations(call_id=state.call_id) == []
        order = await store.get_order("100102")
        assert order is not None
        assert order.shipping_address == ORIGINAL_ADDRESS
    finally:
        await store.close()


async def test_interrupting_the_identity_question_does_not_stall_the_task(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [Call("lookup_order", {"order_id": "100101"}), check_identity(JORDAN), relay]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Where is my order 100101?")
        assert agent_lines(session)[-1] == IDENTITY_QUESTION
        await asyncio.wait_for(session.interrupt(), CLOSE_WITHIN_S)

        answered = await asyncio.wait_for(session.run(user_input=JORDAN_SAYS), CLOSE_WITHIN_S)
        answered.expect.contains_function_call_output(is_error=False)
        assert "1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" in agent_lines(session)[-2]
        assert session.userdata.guardrails.delegations == [
            Delegation("verify_identity_task", DelegationOutcome.COMPLETED)
        ]
    assert not model.overran


async def test_hang_up_before_a_created_specialist_runs_records_no_failed_run(
    settings: Settings, demo_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The caller hangs up while the supervisor is between creating the address
    specialist and starting it: the specialist never runs, and no run is recorded."""
    model = ScriptedLLM(
        [
            Call("lookup_order", {"order_id": "100101"}),
            check_identity(JORDAN),
            relay,
            Call("update_address", {"order_id": "100102"}),
        ]
    )
    database_url = demo_database_url
    async with asyncio.timeout(CLOSE_WITHIN_S):
        async with call_session(model, settings=settings, database_url=database_url) as session:
            state: CallState = session.userdata
            await session.run(user_input="Where is my order 100101?")
            await session.run(user_input=JORDAN_SAYS)

            get_order = state.store.get_order
            closing: list[asyncio.Future[None]] = []

            async def get_order_as_the_caller_hangs_up(order_id: str) -> Any:
                # The order read right before the specialist starts: the caller hangs up
                # during it, and the close gets under way before the read returns.
                order = await get_order(order_id)
                closing.append(asyncio.ensure_future(session.aclose()))
                for _ in range(SCHEDULER_PASSES):
                    await asyncio.sleep(0)
                return order

            state.store.get_order = get_order_as_the_caller_hangs_up  # type: ignore[method-assign]
            with contextlib.suppress(RuntimeError):
                await session.run(user_input="And change the address of order 100102")
            await closing[0]

    assert [d.specialist for d in state.guardrails.delegations] == ["verify_identity_task"]
    assert state.guardrails.active_specialist is None
    assert our_warnings(caplog) == []
    store = await Store.open(database_url)
    try:
        events = await store.audit_events(call_id=state.call_id)
        outcomes = [event.detail.get("outcome") for event in events if event.kind == "delegation"]
        assert outcomes == ["completed"]
        assert await store.address_changes(call_id=state.call_id) == []
    finally:
        await store.close()
