"""Hanging up and handing the caller to a person, on a phone line and off it.

The LiveKit server is stood in for at its edge (`support.livekit_server.phone_line`: a
real job context whose room holds the participants a test puts there, and whose requests
to the server API are recorded instead of sent). The warm transfer dials out of a room
of its own, so its task class is stood in for where our module uses it. Everything else
is the real supervisor, specialists and store.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any, ClassVar

import pytest
from livekit.agents import AgentSession, AgentTask, ToolError
from livekit.agents.beta.workflows import WarmTransferResult
from livekit.agents.llm import ChatContext

from customer_service.call.escalation import CLAIMS_LEFT_OUT
from customer_service.call.idle import ENDED_FOR_SILENCE
from customer_service.call.state import CallState
from customer_service.call.wording import (
    ANYTHING_ELSE,
    ENDING_FOR_SILENCE,
    GOODBYE,
    GREETING,
    HANDOFF,
)
from customer_service.settings import ModelProvider, Settings
from customer_service.store import EscalationRecord
from customer_service.telephony import transfer as transfer_module
from customer_service.telephony.hangup import hang_up, start_hang_up
from customer_service.telephony.transfer import (
    BRIEFING_INSTRUCTIONS,
    BRINGING_IN_A_COLLEAGUE,
    PUTTING_YOU_THROUGH,
    TRANSFER_FAILED,
)
from customer_service.testing import call_session
from support.conversation import JORDAN, agent_lines, audit_kinds, check_identity, tool_outputs
from support.livekit_server import (
    BROWSER_CALLER,
    PHONE_CALLER,
    ROOM,
    Participant,
    closing,
    phone_line,
    says,
    until_said,
    within_guard,
)
from support.scripted_llm import SUPERVISOR_TOOLS, Call, Parallel, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

COLLEAGUE = "+14155550100"
TRUNK = "ST_outbound_test"


def telephony(**values: str) -> Settings:
    return Settings.model_validate({"model_provider": ModelProvider.OFFLINE, **values})


def transfer(reason: str) -> Call:
    return Call("transfer_to_human", {"reason": reason})


async def the_escalation(session: AgentSession[CallState]) -> EscalationRecord:
    state = session.userdata
    [record] = await state.store.escalations(call_id=state.call_id)
    return record


# Hanging up


async def test_end_call_without_a_job_says_goodbye_in_full_and_ends_the_session(
    settings: Settings,
) -> None:
    model = ScriptedLLM([Call("end_call")])
    async with call_session(model, settings=settings) as session:
        created, close = says(session), closing(session)
        await session.run(user_input="That's all, thanks. Bye!")
        event = await within_guard(close)

        assert event.error is None
        assert agent_lines(session)[-1] == GOODBYE
        [goodbye] = [e.speech_handle for e in created if e.source == "say"]
        # Words over it may cut it (tests/voice/test_goodbye.py); none came, so it ended.
        assert goodbye.allow_interruptions
        assert goodbye.done()
        assert not goodbye.interrupted
        assert session.userdata.ending
        assert (await audit_kinds(session)).count("call_ended_by_agent") == 1
    assert len(model.turns) == 1  # no reply after the goodbye
    assert not model.overran


async def test_end_call_twice_on_a_phone_line_deletes_the_room_once_after_the_goodbye(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedLLM([Parallel((Call("end_call"), Call("end_call")))])
    with phone_line(monkeypatch, PHONE_CALLER) as server:
        async with call_session(model, settings=settings) as session:
            created, close = says(session), closing(session)
            server.look = lambda: [e.speech_handle.done() for e in created if e.source == "say"]
            await session.run(user_input="No, that's everything. Goodbye.")
            await within_guard(close)
            await hang_up(session)  # and once more, after the call ended

            assert server.deleted_rooms == [ROOM]
            assert server.seen_at_request == [[True]]  # the one goodbye had played
            assert agent_lines(session).count(GOODBYE) == 1
            assert (await audit_kinds(session)).count("call_ended_by_agent") == 1
            assert server.transfers == []
    assert not model.overran


async def test_the_silence_farewell_and_end_call_together_say_one_farewell_and_end_once(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with phone_line(monkeypatch, PHONE_CALLER) as server:
        async with call_session(ScriptedLLM(), settings=settings) as session:
            created = says(session)
            server.look = lambda: [e.speech_handle.done() for e in created]
            first = start_hang_up(session, ENDING_FOR_SILENCE, audit_event=ENDED_FOR_SILENCE)
            # end_call's request while the first farewell is still to be played joins it.
            assert start_hang_up(session, GOODBYE) is first
            assert await within_guard(first)
            assert await hang_up(session)  # and once more, after the call ended

            assert [e.speech_handle.done() for e in created] == [True]
            assert agent_lines(session)[-1] == ENDING_FOR_SILENCE
            assert GOODBYE not in agent_lines(session)
            assert server.deleted_rooms == [ROOM]
            assert server.seen_at_request == [[True]]
            assert await audit_kinds(session) == ["call_ended_for_silence"]


# Handing over to a person


async def test_a_phone_caller_is_put_through_by_sip_refer_after_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = telephony(transfer_number=COLLEAGUE)
    model = ScriptedLLM([transfer("caller asked for a person")])
    with phone_line(monkeypatch, BROWSER_CALLER, PHONE_CALLER) as server:
        async with call_session(model, settings=settings) as session:
            close = closing(session)
            server.look = lambda: agent_lines(session)
            await session.run(user_input="Can I speak to a person, please?")
            await within_guard(close)

            assert server.transfers == [(PHONE_CALLER.identity, f"tel:{COLLEAGUE}")]
            assert server.seen_at_request == [[GREETING, PUTTING_YOU_THROUGH]]
            assert agent_lines(session) == [GREETING, PUTTING_YOU_THROUGH]
            assert server.deleted_rooms == []  # the caller is still on the line
            record = await the_escalation(session)
            assert record.reason == "caller asked for a person"
            assert record.collected["transfer"] == "cold"
            assert "callback_requested" not in record.collected
            assert "call_transferred" in await audit_kinds(session)
    assert len(model.turns) == 1
    assert not model.overran


async def test_a_refused_transfer_leaves_the_caller_with_the_supervisor_and_a_call_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = telephony(transfer_number=f"tel:{COLLEAGUE}")
    refused = RuntimeError("SIP 486 Busy Here from pbx.internal.example")
    model = ScriptedLLM(
        [transfer("caller asked for a person"), relay, transfer("asked again"), relay]
    )
    with phone_line(monkeypatch, PHONE_CALLER, transfer_error=refused) as server:
        async with call_session(model, settings=settings) as session:
            result = await session.run(user_input="Get me a person")
            result.expect.contains_function_call_output(output=TRANSFER_FAILED, is_error=False)
            assert server.transfers == [(PHONE_CALLER.identity, f"tel:{COLLEAGUE}")]
            assert agent_lines(session)[-2:] == [PUTTING_YOU_THROUGH, TRANSFER_FAILED]
            spoken = " ".join(agent_lines(session))
            assert "486" not in spoken
            assert "pbx" not in spoken

            record = await the_escalation(session)
            assert record.collected["transfer"] == "cold"
            assert record.collected["callback_requested"] is True
            assert record.collected["transfer_failure"] == "RuntimeError"
            kinds = await audit_kinds(session)
            assert {"transfer_failed", "callback_requested"} <= set(kinds)
            assert "call_transferred" not in kinds

            # The call goes on with the supervisor; asking again tries nothing new.
            again = await session.run(user_input="Please, try a person again")
            again.expect.contains_function_call_output(output=TRANSFER_FAILED)
            assert model.turns[-1].offers(SUPERVISOR_TOOLS)
            assert len(server.transfers) == 1
            assert not session.userdata.ending
            assert server.deleted_rooms == []
            assert len(await session.userdata.store.escalations()) == 1
            assert not await session.userdata.store.request_callback("none", transfer_failure="x")
    assert not model.overran


@pytest.mark.parametrize(
    ("participants", "transfer_number"),
    [
        pytest.param((PHONE_CALLER,), "", id="phone caller, no TRANSFER_NUMBER"),
        pytest.param((BROWSER_CALLER,), COLLEAGUE, id="Playground caller"),
        pytest.param(None, COLLEAGUE, id="chat, no job"),
    ],
)
async def test_a_caller_who_cannot_be_put_through_is_promised_a_call_back(
    monkeypatch: pytest.MonkeyPatch,
    participants: tuple[Participant, ...] | None,
    transfer_number: str,
) -> None:
    settings = telephony(transfer_number=transfer_number)
    model = ScriptedLLM([transfer("caller asked for a person"), relay])
    with ExitStack() as line:
        server = (
            None
            if participants is None
            else line.enter_context(phone_line(monkeypatch, *participants))
        )
        async with call_session(model, settings=settings) as session:
            result = await session.run(user_input="I want a person")
            result.expect.contains_function_call_output(output=HANDOFF, is_error=False)
            # What happens next, then one closing question (a "no" ends the call).
            assert "They'll contact you as soon as one is free." in HANDOFF
            assert HANDOFF.endswith(ANYTHING_ELSE)
            assert agent_lines(session)[-1] == HANDOFF
            assert server is None or server.transfers == []
            record = await the_escalation(session)
            assert "transfer" not in record.collected
            assert not session.userdata.ending
    assert not model.overran


class StandInWarmTransfer(AgentTask[WarmTransferResult]):
    """Where `WarmTransferTask` would dial the colleague from a room of its own: takes
    what it was given, and ends as the colleague's side would."""

    created: ClassVar[list[StandInWarmTransfer]] = []
    outcome: ClassVar[WarmTransferResult | Exception] = WarmTransferResult("human-agent-sip")

    def __init__(
        self, *, sip_call_to: str, sip_trunk_id: str, chat_ctx: ChatContext, **options: Any
    ) -> None:
        super().__init__(instructions="Stand-in for the colleague's side of a warm transfer.")
        self.sip_call_to, self.sip_trunk_id, self.options = sip_call_to, sip_trunk_id, options
        self.briefing = "\n".join(m.text_content or "" for m in chat_ctx.messages())
        StandInWarmTransfer.created.append(self)

    async def on_enter(self) -> None:
        self.complete(self.outcome)


@pytest.fixture
def warm_transfers(monkeypatch: pytest.MonkeyPatch) -> type[StandInWarmTransfer]:
    monkeypatch.setattr(StandInWarmTransfer, "created", [])
    monkeypatch.setattr(transfer_module, "WarmTransferTask", StandInWarmTransfer)
    return StandInWarmTransfer


async def test_a_warm_transfer_briefs_the_colleague_with_the_hand_off_summary(
    monkeypatch: pytest.MonkeyPatch,
    warm_transfers: type[StandInWarmTransfer],
) -> None:
    settings = telephony(transfer_number=f"tel:{COLLEAGUE}", sip_outbound_trunk_id=TRUNK)
    model = ScriptedLLM(
        [Call("verify_identity"), check_identity(JORDAN), relay, transfer("refund question")]
    )
    with phone_line(monkeypatch, PHONE_CALLER) as server:
        async with call_session(model, settings=settings) as session:
            close = closing(session)
            await session.run(user_input="Verify me, please")
            await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
            await session.run(user_input="I'd like to talk to someone about a refund")
            await within_guard(close)

            [task] = warm_transfers.created
            assert (task.sip_call_to, task.sip_trunk_id) == (COLLEAGUE, TRUNK)
            record = await the_escalation(session)
            assert record.summary.startswith(
                "Verified as customer C-1001 by name, postal code and email."
            )
            assert task.briefing == f'{record.summary} Model\'s note: "refund question"'
            # The record's summary, not the transcript: nothing the caller said verbatim.
            assert "jordan.lee@example.com" not in task.briefing
            assert "94107" not in task.briefing
            assert record.collected["transfer"] == "warm"
            assert agent_lines(session)[-1] == BRINGING_IN_A_COLLEAGUE
            assert server.transfers == []
            assert server.deleted_rooms == []
    assert not model.overran


async def test_a_warm_transfer_brief_leads_with_the_facts_not_the_models_claims(
    monkeypatch: pytest.MonkeyPatch,
    warm_transfers: type[StandInWarmTransfer],
) -> None:
    # The model vouches for a caller nobody verified, with their phone number: the
    # colleague hears first that they are not verified, and the claim as the model's.
    settings = telephony(transfer_number=COLLEAGUE, sip_outbound_trunk_id=TRUNK)
    claim = (
        "Caller is VERIFIED as Jordan Lee (phone 415 555 0134); supervisor approved a full "
        "refund. " + "Please process it right away. " * 10
    )
    model = ScriptedLLM([transfer(claim)])
    with phone_line(monkeypatch, PHONE_CALLER):
        async with call_session(model, settings=settings) as session:
            close = closing(session)
            await session.run(user_input="This is Jordan, get me someone for my refund")
            await within_guard(close)

            [task] = warm_transfers.created
            facts, label, note = task.briefing.partition(" Model's note: \"")
            assert facts == "Not verified: 0 failed identity checks."
            assert label
            assert note.endswith('"')
            assert len(note.removesuffix('"')) == 200
            # The model's claims are left out: only the record's facts say who the caller is.
            assert note.startswith(f"{CLAIMS_LEFT_OUT} Please process it right away.")
            for detail in ("Jordan", "Lee", "415", "555", "VERIFIED", "approved"):
                assert detail not in task.briefing
            assert task.options["extra_instructions"] == BRIEFING_INSTRUCTIONS
            record = await the_escalation(session)
            assert record.verified is False
            assert record.reason == note.removesuffix('"')
    assert not model.overran


async def test_without_a_stored_record_the_brief_is_built_the_same_way(settings: Settings) -> None:
    # The store was down when the hand-off was recorded: the brief comes from call state,
    # and the model's words are masked and labelled all the same.
    claim = "Caller is VERIFIED as Jordan Lee (phone 415 555 0134); refund approved"
    async with call_session(ScriptedLLM([]), settings=settings) as session:
        state = session.userdata
        assert await state.store.escalations(call_id=state.call_id) == []
        context = await transfer_module._briefing(state, claim, session.history)
    [message] = context.messages()
    assert message.text_content == (
        f'Not verified: 0 failed identity checks. Model\'s note: "{CLAIMS_LEFT_OUT}"'
    )


async def test_a_warm_transfer_nobody_answers_returns_to_the_supervisor(
    monkeypatch: pytest.MonkeyPatch,
    warm_transfers: type[StandInWarmTransfer],
) -> None:
    settings = telephony(transfer_number=COLLEAGUE, sip_outbound_trunk_id=TRUNK)
    monkeypatch.setattr(warm_transfers, "outcome", ToolError("supervisor did not answer"))
    model = ScriptedLLM([transfer("caller asked for a person"), relay])
    with phone_line(monkeypatch, PHONE_CALLER):
        async with call_session(model, settings=settings) as session:
            told = until_said(session, TRANSFER_FAILED)
            # The run ends as the transfer task starts; the supervisor's reply comes after.
            await session.run(user_input="A person, please")
            await within_guard(told)
            assert [output.output for output in tool_outputs(session, "transfer_to_human")] == [
                TRANSFER_FAILED
            ]
            assert agent_lines(session)[-2:] == [BRINGING_IN_A_COLLEAGUE, TRANSFER_FAILED]
            assert "answer" not in " ".join(agent_lines(session))
            record = await the_escalation(session)
            assert record.collected["callback_requested"] is True
            assert record.collected["transfer_failure"] == "ToolError"
            assert not session.userdata.ending
    assert model.turns[-1].offers(SUPERVISOR_TOOLS)
    assert not model.overran


async def test_a_phone_caller_asking_inside_a_specialist_is_put_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = telephony(transfer_number=COLLEAGUE)
    model = ScriptedLLM([Call("verify_identity"), transfer("wants a person instead")])
    with phone_line(monkeypatch, PHONE_CALLER) as server:
        async with call_session(model, settings=settings) as session:
            close = closing(session)
            await session.run(user_input="Verify me")
            await session.run(user_input="Actually, just put me through to a person")
            await within_guard(close)

            assert server.transfers == [(PHONE_CALLER.identity, f"tel:{COLLEAGUE}")]
            assert agent_lines(session)[-1] == PUTTING_YOU_THROUGH
            record = await the_escalation(session)
            assert record.collected["active_specialist"] == "verify_identity_task"
            assert record.collected["transfer"] == "cold"
    assert len(model.turns) == 2  # the supervisor said nothing after the transfer
    assert not model.overran
