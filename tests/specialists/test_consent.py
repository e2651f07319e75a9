"""Consent: fixed wording, clear answers only, stored and respected by later calls."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from livekit.agents import AgentSession
from livekit.agents.llm import FunctionTool
from livekit.agents.llm.utils import build_legacy_openai_schema, build_strict_openai_schema

from customer_service.call.state import CallState
from customer_service.call.transcripts import save_transcript
from customer_service.call.wording import HOW_CAN_I_HELP, WELCOME
from customer_service.clock import FixedClock
from customer_service.settings import RecordingConsent, Settings
from customer_service.specialists.consent import (
    CONSENT_WORDING,
    UNCLEAR_CONFIRMATIONS,
    ConsentTopic,
)
from customer_service.supervisor import CustomerServiceAgent
from customer_service.testing import call_session
from support.confirming import Confirming, verified_then
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    agent_lines,
    check_identity,
    tool_outputs,
    verifying_for,
)
from support.own_tests import OfflineChat
from support.scripted_llm import Call, Say, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay
from support.text_updates import ask_for_texts, asking_for_texts

SMS = ConsentTopic.ORDER_UPDATES_SMS
SMS_QUESTION = CONSENT_WORDING[SMS].question
IS_THAT_A_YES = CONSENT_WORDING[SMS].is_that_a_yes
ASK_AGAIN = Say(SMS_QUESTION)


async def test_the_answer_is_stored_as_asked_at_the_calls_clocks_time(
    settings: Settings,
) -> None:
    asked_at = dt.datetime(2027, 1, 5, 8, 21, tzinfo=dt.UTC)
    clock = FixedClock(asked_at)
    model = ScriptedLLM(asking_for_texts(Call("record_consent", {"granted": True})))
    async with call_session(model, settings=settings, clock=clock) as session:
        await session.run(user_input="Can you send me text updates?")
        # Time passes while the caller thinks: the question was asked before.
        clock.advance(dt.timedelta(seconds=30))
        await session.run(user_input=JORDAN_SAYS)
        clock.advance(dt.timedelta(seconds=30))
        await session.run(user_input="Yes please")
        record = await session.userdata.store.latest_consent(topic=SMS, customer_id="C-1001")
    assert record is not None
    assert record.granted
    assert record.asked_at == asked_at + dt.timedelta(seconds=30)


async def test_granted_is_stored_and_not_asked_again_in_a_later_call(
    settings: Settings, demo_database_url: str
) -> None:
    database_url = demo_database_url
    model = ScriptedLLM(asking_for_texts(Call("record_consent", {"granted": True})))
    async with call_session(model, settings=settings, database_url=database_url) as session:
        await ask_for_texts(session, "Yes please")
        assert SMS_QUESTION in agent_lines(session)
        assert agent_lines(session)[-1] == "You'll get text updates about your orders."
        record = await session.userdata.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted
        assert record.wording_version == CONSENT_WORDING[SMS].version
        assert record.call_id == session.userdata.call_id
    assert not model.overran

    # A later call changes an address: the text-update offer that follows a change is
    # not made again, because the answer is on record.
    later = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            Call(
                "record_address",
                {
                    "street": "1 Market Street",
                    "city": "San Francisco",
                    "region": "CA",
                    "postal_code": "94105",
                    "country": "US",
                },
            ),
            Call("confirm_address"),
            relay,
        ]
    )
    async with call_session(later, settings=settings, database_url=database_url) as session:
        await session.run(user_input="Change the address on order 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market Street, San Francisco, CA 94105")
        await session.run(user_input="yes")
        (changed,) = tool_outputs(session, "update_address")
        assert changed.output.startswith("Done. Order 1 0 0, 1 0 2 will now be delivered to")
        assert "text updates" not in changed.output
        assert SMS_QUESTION not in agent_lines(session)
    assert not later.overran


async def test_a_caller_can_change_a_stored_answer(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            *asking_for_texts(Call("record_consent", {"granted": True})),
            Call("request_consent", {"topic": "order_updates_sms"}),
            Call("record_consent", {"granted": False}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await ask_for_texts(session, "Yes please")
        await session.run(user_input="Actually, please stop the texts")
        await session.run(user_input="No")
        assert agent_lines(session)[-1] == "You won't get text updates about your orders."
        record = await session.userdata.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert not record.granted
    assert not model.overran


async def test_declined_is_stored_as_no(settings: Settings) -> None:
    model = ScriptedLLM(asking_for_texts(Call("record_consent", {"granted": False})))
    async with call_session(model, settings=settings) as session:
        await ask_for_texts(session, "No")
        record = await session.userdata.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert not record.granted


async def test_unclear_twice_stores_nothing(settings: Settings) -> None:
    # The model keeps asking; the task's code stops it after the second unclear answer,
    # and an unclear answer is stored as neither a yes nor a no.
    model = ScriptedLLM(asking_for_texts(ASK_AGAIN, ASK_AGAIN))
    async with call_session(model, settings=settings) as session:
        await ask_for_texts(session, "Hmm, what does it cost?", "I'm not sure, maybe")
        asked = [line for line in agent_lines(session) if line == SMS_QUESTION]
        assert len(asked) == 2
        assert agent_lines(session)[-1] == UNCLEAR_CONFIRMATIONS[SMS]
        store = session.userdata.store
        assert await store.latest_consent(topic=SMS, customer_id="C-1001") is None
        assert await store.latest_consent(topic=SMS, call_id=session.userdata.call_id) is None
        [unclear] = await store.audit_events(kind="consent_unclear")
        assert unclear.detail["topic"] == SMS.value
    assert not model.overran


async def test_unclear_then_clear_yes_is_granted(settings: Settings) -> None:
    model = ScriptedLLM(asking_for_texts(ASK_AGAIN, Call("record_consent", {"granted": True})))
    async with call_session(model, settings=settings) as session:
        await ask_for_texts(session, "What?", "Yes")
        record = await session.userdata.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted


@pytest.mark.parametrize(
    "acknowledgement", ["Okay, thanks.", "Great, thanks.", "ok", "Alright", "thank you", "fine"]
)
async def test_an_acknowledgement_is_no_yes_and_is_asked_about_briefly(
    settings: Settings, acknowledgement: str
) -> None:
    # The model is not asked about an acknowledgement: its one record_consent is the yes.
    model = ScriptedLLM(asking_for_texts(Call("record_consent", {"granted": True})))
    async with call_session(model, settings=settings) as session:
        await ask_for_texts(session, acknowledgement)
        assert agent_lines(session)[-2:] == [SMS_QUESTION, IS_THAT_A_YES]
        store = session.userdata.store
        assert await store.latest_consent(topic=SMS, customer_id="C-1001") is None

        await session.run(user_input="Yes")
        record = await store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted
        assert record.wording_version == CONSENT_WORDING[SMS].version
    assert not model.overran


async def test_a_model_that_takes_okay_for_a_yes_stores_nothing(settings: Settings) -> None:
    # The second answer is the last the task hears; the model calls it a yes.
    model = ScriptedLLM(asking_for_texts(ASK_AGAIN, Call("record_consent", {"granted": True})))
    async with call_session(model, settings=settings) as session:
        await ask_for_texts(session, "Hmm, what does it cost?", "okay")
        assert agent_lines(session)[-1] == UNCLEAR_CONFIRMATIONS[SMS]
        store = session.userdata.store
        assert await store.latest_consent(topic=SMS, customer_id="C-1001") is None
        assert await store.latest_consent(topic=SMS, call_id=session.userdata.call_id) is None
    assert not model.overran


async def test_unknown_topic_is_refused_without_asking(settings: Settings) -> None:
    model = ScriptedLLM([Call("request_consent", {"topic": "marketing_calls"}), relay])
    async with call_session(model, settings=settings) as session:
        result = await session.run(user_input="Stop calling me with offers")
        result.expect.contains_function_call_output(is_error=True)
        assert tool_outputs(session, "request_consent")[0].output == (
            "I can only record choices about call recording or text updates."
        )


def recording_settings(settings: Settings, tmp_path: Path) -> Settings:
    return settings.model_copy(
        update={
            "recording_consent": RecordingConsent.ASK,
            "transcript_dir": tmp_path / "transcripts",
        }
    )


async def test_recording_is_asked_first_and_a_no_turns_it_off(
    settings: Settings, tmp_path: Path
) -> None:
    model = ScriptedLLM([Call("record_consent", {"granted": False})])
    configured = recording_settings(settings, tmp_path)
    async with call_session(model, settings=configured) as session:
        question = CONSENT_WORDING[ConsentTopic.CALL_RECORDING].question
        assert agent_lines(session) == [f"{WELCOME} {question}"]
        await session.run(user_input="No, please don't record")
        assert agent_lines(session)[-1] == (
            f"Thank you. This call will not be recorded. {HOW_CAN_I_HELP}"
        )
        state = session.userdata
        assert not state.recording
        record = await state.store.latest_consent(
            topic=ConsentTopic.CALL_RECORDING, call_id=state.call_id
        )
        assert record is not None
        assert not record.granted
        assert save_transcript(state, session.history) is None
    assert not (tmp_path / "transcripts").exists()


async def test_an_acknowledgement_of_the_recording_question_is_no_yes(
    settings: Settings, tmp_path: Path
) -> None:
    model = ScriptedLLM([Call("record_consent", {"granted": False})])
    configured = recording_settings(settings, tmp_path)
    async with call_session(model, settings=configured) as session:
        await session.run(user_input="Okay, thanks")
        recording = CONSENT_WORDING[ConsentTopic.CALL_RECORDING]
        assert agent_lines(session)[-1] == recording.is_that_a_yes
        state = session.userdata
        topic = ConsentTopic.CALL_RECORDING
        assert await state.store.latest_consent(topic=topic, call_id=state.call_id) is None

        await session.run(user_input="No")
        assert agent_lines(session)[-1] == (
            f"Thank you. This call will not be recorded. {HOW_CAN_I_HELP}"
        )
        record = await state.store.latest_consent(topic=topic, call_id=state.call_id)
        assert record is not None
        assert not record.granted
        assert not state.recording
    assert not model.overran


async def test_recording_yes_keeps_the_transcript(settings: Settings, tmp_path: Path) -> None:
    model = ScriptedLLM([Call("record_consent", {"granted": True})])
    configured = recording_settings(settings, tmp_path)
    async with call_session(model, settings=configured) as session:
        await session.run(user_input="Yes, that's fine")
        state = session.userdata
        assert state.recording
        path = save_transcript(state, session.history)
        assert path is not None
        saved = json.loads(path.read_text())
        assert saved["call_id"] == state.call_id
        assert {"role": "user", "text": "Yes, that's fine"} in saved["transcript"]


def test_the_topic_schema_the_model_sees_lists_the_topics() -> None:
    (tool,) = [tool for tool in CustomerServiceAgent().tools if tool.id == "request_consent"]
    assert isinstance(tool, FunctionTool)
    for schema in (build_strict_openai_schema(tool), build_legacy_openai_schema(tool)):
        topic = schema["function"]["parameters"]["properties"]["topic"]
        assert topic["enum"] == ["call_recording", "order_updates_sms"]


async def test_a_third_clear_yes_in_a_call_is_stored_as_a_yes(settings: Settings) -> None:
    # The repeated-call guard counts loops, not answers: the same answer to three
    # questions is three answers.
    yes = Call("record_consent", {"granted": True})
    model = ScriptedLLM(
        [
            *asking_for_texts(yes),
            Call("request_consent", {"topic": "call_recording"}),
            yes,
            relay,
            Call("request_consent", {"topic": "order_updates_sms"}),
            yes,
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await ask_for_texts(session, "Yes please")
        await session.run(user_input="And you may record this call")
        await session.run(user_input="Yes")
        await session.run(user_input="Please keep the texts on, to be sure")
        await session.run(user_input="Yes")
        outputs = tool_outputs(session, "record_consent")
        assert len(outputs) == 3
        assert not any(output.is_error for output in outputs)
        state = session.userdata
        record = await state.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted
        assert agent_lines(session)[-1] == "You'll get text updates about your orders."
    assert not model.overran


async def test_a_no_said_outright_is_stored_without_the_question(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            Call("request_consent", {"topic": "order_updates_sms", "caller_said_no": True}),
            check_identity(JORDAN),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Quit sending me text messages, please")
        await session.run(user_input=JORDAN_SAYS)
        assert SMS_QUESTION not in agent_lines(session)
        assert agent_lines(session)[-1] == "You won't get text updates about your orders."
        record = await session.userdata.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert not record.granted
        assert record.wording_version == CONSENT_WORDING[SMS].version


async def test_a_no_the_caller_did_not_say_is_asked_about(settings: Settings) -> None:
    # The model claims a no the caller's words do not say: the question is asked, and
    # the caller's yes to it is what is stored.
    model = ScriptedLLM(
        [
            Call("request_consent", {"topic": "order_updates_sms", "caller_said_no": True}),
            check_identity(JORDAN),
            Call("record_consent", {"granted": True}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Could you set me up for text updates?")
        await session.run(user_input=JORDAN_SAYS)
        assert agent_lines(session)[-1] == SMS_QUESTION
        await session.run(user_input="Yes")
        record = await session.userdata.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted


# --- what the suites every confirming specialist runs drive (support/confirming.py) ----


async def text_updates_granted(session: AgentSession[CallState]) -> bool:
    record = await session.userdata.store.latest_consent(topic=SMS, customer_id="C-1001")
    return record is not None and record.granted


CONFIRMING = Confirming(
    supervisor_tool="request_consent",
    confirm=Call("record_consent", {"granted": True}),
    **verified_then(
        "Please send me text updates about my orders",
        Call("request_consent", {"topic": "order_updates_sms"}),
    ),
    changed=text_updates_granted,
    nothing_changed=UNCLEAR_CONFIRMATIONS[SMS],
    # The caller says no; the model records a yes.
    other_than_read_back=("No", Call("record_consent", {"granted": True})),
    said_when_done=None,
)


OFFLINE_CHAT = OfflineChat(
    ("Please send me text updates about my orders", JORDAN_SAYS, "yes", "bye")
)
"""A `make chat` that reaches it (tests/offline_llm/test_offline_model.py)."""
