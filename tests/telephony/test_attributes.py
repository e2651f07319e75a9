"""The agent's progress as participant attributes, as the call moves between specialists.

A real session (supervisor, specialists, store) with a scripted LLM; the room is stood in
for by one whose local participant records every `set_attributes` call.
"""

from __future__ import annotations

import logging

import pytest

from customer_service.call.state import CallState
from customer_service.call.wording import ANYTHING_ELSE
from customer_service.settings import Settings
from customer_service.store import Store
from customer_service.telephony.attributes import (
    ORDER_ID,
    SPECIALIST,
    SUPERVISOR,
    VERIFIED,
    ProgressAttributes,
)
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, agent_lines, check_identity
from support.line import AttributeRecordingRoom
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay


async def test_attributes_follow_the_call_between_specialists(settings: Settings) -> None:
    room = AttributeRecordingRoom()
    participant = room.local_participant
    model = ScriptedLLM(
        [
            Call("lookup_order"),
            check_identity(JORDAN),
            Call("lookup", {"order_id": "100101"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        progress = ProgressAttributes(room, call_id=session.userdata.call_id)
        progress.follow(session.userdata)
        await progress.settled()
        assert participant.attributes == {SPECIALIST: SUPERVISOR, VERIFIED: "false"}

        await session.run(user_input="Where is my order?")
        await progress.settled()
        assert participant.attributes == {SPECIALIST: "verify_identity", VERIFIED: "false"}

        await session.run(user_input=JORDAN_SAYS)
        await progress.settled()
        assert participant.attributes == {SPECIALIST: "order_lookup", VERIFIED: "true"}

        await session.run(user_input="100101")
        await progress.settled()
        assert participant.attributes == {
            SPECIALIST: SUPERVISOR,
            VERIFIED: "true",
            ORDER_ID: "100101",
        }
        # The status, said by code, then the closing question.
        assert "1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" in agent_lines(session)[-2]
        assert agent_lines(session)[-1] == ANYTHING_ELSE

    specialists = [call[SPECIALIST] for call in participant.calls if SPECIALIST in call]
    # The supervisor may show between the two specialists: it is working there, briefly.
    assert [name for name in specialists if name != SUPERVISOR] == [
        "verify_identity",
        "order_lookup",
    ]
    assert specialists[0] == specialists[-1] == SUPERVISOR
    # Only what changed is sent, and nothing names the caller.
    assert [call.get(VERIFIED) for call in participant.calls if VERIFIED in call] == [
        "false",
        "true",
    ]
    assert not any("Jordan" in value for call in participant.calls for value in call.values())


async def test_changes_in_one_step_go_out_together(settings: Settings) -> None:
    room = AttributeRecordingRoom()
    async with await Store.open("sqlite+aiosqlite:///:memory:") as store:
        state = CallState(store=store, settings=settings)
        progress = ProgressAttributes(room, call_id=state.call_id)
        progress.follow(state)
        state.enter_specialist("order_lookup_task")
        state.leave_specialist()
        state.enter_specialist("verify_identity_task")
        await progress.settled()
    assert room.local_participant.calls == [{SPECIALIST: "verify_identity", VERIFIED: "false"}]


async def test_a_room_that_is_gone_never_troubles_the_call(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    room = AttributeRecordingRoom(fails=True)
    model = ScriptedLLM([Call("lookup_order"), check_identity(JORDAN)])
    with caplog.at_level(logging.WARNING, logger="customer_service.telephony"):
        async with call_session(model, settings=settings) as session:
            progress = ProgressAttributes(room, call_id=session.userdata.call_id)
            progress.follow(session.userdata)
            await session.run(user_input="Where is my order?")
            await session.run(user_input=JORDAN_SAYS)
            await progress.aclose()
            assert session.userdata.verified_customer is not None
    warnings = [r for r in caplog.records if r.getMessage() == "progress attributes not published"]
    assert len(warnings) == 1


async def test_a_disconnected_room_gets_the_state_once_it_is_back(settings: Settings) -> None:
    room = AttributeRecordingRoom(connected=False)
    async with await Store.open("sqlite+aiosqlite:///:memory:") as store:
        state = CallState(store=store, settings=settings)
        progress = ProgressAttributes(room, call_id=state.call_id)
        progress.follow(state)
        await progress.settled()
        assert room.local_participant.calls == []

        room.connected = True
        state.record_disclosure("100101")
        await progress.settled()
    assert room.local_participant.attributes == {
        SPECIALIST: SUPERVISOR,
        VERIFIED: "false",
        ORDER_ID: "100101",
    }
