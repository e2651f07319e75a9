"""The caller's line from the room, and the calling number as an identity hint.

The hint may stand in for the phone factor only after the caller's own words confirm it;
it never replaces the name and postal code, is never read out (the model never even
sees it), and a refusal leaves the usual phone-or-email question.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from types import SimpleNamespace

import pytest
from livekit import rtc
from livekit.agents.testing import fake_job_context
from livekit.agents.voice.run_result import RunResult

from customer_service import server
from customer_service.call.state import CallerLine
from customer_service.settings import Settings, get_settings
from customer_service.specialists.identity import (
    OPENING_QUESTION,
    OPENING_QUESTION_ON_A_PHONE,
    mismatch_message,
)
from customer_service.store import Store
from customer_service.telephony.caller_id import (
    CALLING_NUMBER_ASKINGS,
    CALLING_NUMBER_NOT_CONFIRMED,
    CALLING_NUMBER_QUESTION,
    line_of,
)
from customer_service.testing import call_session, sqlite_url
from customer_service.testing.voice import Utterance, voice_call_session
from support.clock import TEST_NOW
from support.conversation import JORDAN, agent_lines, audit_kinds, check_identity
from support.line import JORDAN_PHONE, JORDAN_PHONE_DIGITS, PHONE_LINE, WORK_PHONE_LINE
from support.scripted_llm import IDENTITY_TOOLS, Call, Say, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

JORDAN_ID = "C-1001"
BY_CALLING_NUMBER = Call("use_calling_number", {"full_name": "Jordan Lee", "postal_code": "94107"})


def participant(kind: rtc.ParticipantKind.ValueType, **attributes: str) -> rtc.Participant:
    """A remote participant as the room reports it: its kind and attributes."""
    stand_in: rtc.Participant = SimpleNamespace(  # type: ignore[assignment]
        kind=kind, attributes=attributes, identity="caller"
    )
    return stand_in


# The line, from the participant who joined


def test_a_sip_participant_is_a_phone_line_with_its_number() -> None:
    sip = participant(rtc.ParticipantKind.PARTICIPANT_KIND_SIP, **{"sip.phoneNumber": JORDAN_PHONE})
    assert line_of(sip) == CallerLine(is_phone=True, caller_number=JORDAN_PHONE)


def test_a_sip_participant_without_a_number_is_still_a_phone_line() -> None:
    assert line_of(participant(rtc.ParticipantKind.PARTICIPANT_KIND_SIP)) == CallerLine(
        is_phone=True
    )


def test_anyone_else_is_not_a_phone_call() -> None:
    browser = participant(rtc.ParticipantKind.PARTICIPANT_KIND_STANDARD, **{"sip.phoneNumber": "1"})
    assert line_of(browser) == CallerLine()


async def test_the_entrypoint_learns_the_line_once_the_caller_joins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MODEL_PROVIDER", "offline")
    monkeypatch.setenv("DATABASE_URL", sqlite_url(tmp_path / "store.sqlite3"))
    monkeypatch.setenv("AUTO_MIGRATE", "true")  # a new database, not the embedded default
    get_settings.cache_clear()
    caller = participant(
        rtc.ParticipantKind.PARTICIPANT_KIND_SIP, **{"sip.phoneNumber": JORDAN_PHONE}
    )

    async def caller_joins() -> rtc.Participant:
        return caller

    try:
        with fake_job_context(job_id="job-sip") as ctx:
            ctx.proc.userdata[server.VAD_KEY] = None
            # The server's answer to "who joined": the room's edge, stood in for.
            monkeypatch.setattr(ctx, "wait_for_participant", caller_joins)
            await server.entrypoint(ctx)
            session = ctx._primary_agent_session
            assert session is not None
            try:
                assert session.userdata.line == PHONE_LINE
            finally:
                await session.aclose()
    finally:
        get_settings.cache_clear()


# The calling number as an identity hint


def leaked(model: ScriptedLLM, lines: list[str]) -> bool:
    """Whether the calling number reached the caller or the model in any form."""
    seen = [*lines, *(str(turn.chat_ctx.to_dict()) for turn in model.turns)]
    return any(JORDAN_PHONE_DIGITS in text.replace(" ", "") for text in seen)


async def test_a_confirmed_calling_number_verifies_without_the_number_ever_spoken(
    settings: Settings,
) -> None:
    model = ScriptedLLM([Call("verify_identity"), BY_CALLING_NUMBER, relay])
    async with call_session(model, settings=settings) as session:
        session.userdata.learn_line(PHONE_LINE)
        await session.run(user_input="I need help with my account")
        questions = agent_lines(session)[-2:]
        assert questions == [OPENING_QUESTION_ON_A_PHONE, CALLING_NUMBER_QUESTION]
        assert not any("Jordan" in question for question in questions)

        result: RunResult[None] = await session.run(user_input="Jordan Lee, 94107, and yes I am")
        result.expect.next_event().is_function_call(name="use_calling_number")
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == JORDAN_ID
        assert "identity_verified" in await audit_kinds(session)
        assert leaked(model, agent_lines(session)) is False
    assert "use_calling_number" in model.turns[1].tool_names


async def test_a_refusal_asks_for_the_phone_or_email_and_counts_nothing(
    settings: Settings,
) -> None:
    # The model uses the number anyway: the caller's own "no" decides, in code.
    model = ScriptedLLM(
        [Call("verify_identity"), BY_CALLING_NUMBER, relay, check_identity(JORDAN), relay]
    )
    async with call_session(model, settings=settings) as session:
        session.userdata.learn_line(PHONE_LINE)
        await session.run(user_input="I need help with my account")
        refused: RunResult[None] = await session.run(
            user_input="Jordan Lee, 94107. No, this is my work phone"
        )
        refused.expect.next_event().is_function_call(name="use_calling_number")
        refused.expect.next_event().is_function_call_output(is_error=True)
        assert agent_lines(session)[-1] == CALLING_NUMBER_NOT_CONFIRMED
        assert session.userdata.identity.failed_checks == 0
        assert session.userdata.verified_customer is None
        assert "identity_failed" not in await audit_kinds(session)

        await session.run(user_input="jordan.lee@example.com")
        assert session.userdata.verified_customer is not None
        assert leaked(model, agent_lines(session)) is False


async def test_a_yes_that_was_a_no_before_is_no_confirmation(settings: Settings) -> None:
    ask = Say("What's the phone number or email address on the account?")
    model = ScriptedLLM([Call("verify_identity"), ask, BY_CALLING_NUMBER, relay])
    async with call_session(model, settings=settings) as session:
        session.userdata.learn_line(PHONE_LINE)
        await session.run(user_input="I need help with my account")
        await session.run(user_input="No, I'm not")
        await session.run(user_input="Jordan Lee, 94107, yes")
        assert agent_lines(session)[-1] == CALLING_NUMBER_NOT_CONFIRMED
        assert session.userdata.verified_customer is None


async def test_a_yes_to_another_question_is_no_confirmation(settings: Settings) -> None:
    # The caller's yes answers the model's own question about the postal code: the
    # calling-number question is put again, on its own, and only its answer counts.
    confirm_postal_code = Say("Your postal code is 94107?")
    model = ScriptedLLM(
        [
            Call("verify_identity"),
            confirm_postal_code,
            BY_CALLING_NUMBER,
            BY_CALLING_NUMBER,
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        session.userdata.learn_line(PHONE_LINE)
        await session.run(user_input="I need help with my account")
        await session.run(user_input="It's Jordan Lee, nine four one oh seven")
        result: RunResult[None] = await session.run(user_input="Yes")
        result.expect.next_event().is_function_call(name="use_calling_number")
        assert agent_lines(session)[-1] == CALLING_NUMBER_QUESTION
        assert session.userdata.verified_customer is None
        assert session.userdata.identity.failed_checks == 0

        await session.run(user_input="Yes, I am")
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == JORDAN_ID
        assert leaked(model, agent_lines(session)) is False
    assert not model.overran


async def test_details_without_an_answer_get_the_question_on_its_own(settings: Settings) -> None:
    model = ScriptedLLM([Call("verify_identity"), BY_CALLING_NUMBER, BY_CALLING_NUMBER, relay])
    async with call_session(model, settings=settings) as session:
        session.userdata.learn_line(PHONE_LINE)
        await session.run(user_input="I need help with my account")
        await session.run(user_input="Jordan Lee, 94107")
        assert agent_lines(session)[-1] == CALLING_NUMBER_QUESTION
        assert session.userdata.verified_customer is None

        await session.run(user_input="No, I'm on my work phone")
        assert agent_lines(session)[-1] == CALLING_NUMBER_NOT_CONFIRMED
        assert session.userdata.identity.failed_checks == 0
    assert not model.overran


async def test_an_unclear_answer_gets_the_question_once_more_then_the_usual_one(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [Call("verify_identity"), *[BY_CALLING_NUMBER] * CALLING_NUMBER_ASKINGS, relay]
    )
    async with call_session(model, settings=settings) as session:
        session.userdata.learn_line(PHONE_LINE)
        await session.run(user_input="I need help with my account")
        await session.run(user_input="Jordan Lee, 94107, what number?")
        assert agent_lines(session)[-1] == CALLING_NUMBER_QUESTION
        await session.run(user_input="Hmm, which one do you have?")
        assert agent_lines(session)[-1] == CALLING_NUMBER_NOT_CONFIRMED
        assert session.userdata.verified_customer is None
        assert session.userdata.identity.failed_checks == 0
    assert not model.overran


@pytest.mark.parametrize("acknowledgement", ["okay", "okay, thanks", "great, thank you"])
async def test_an_acknowledgement_is_no_confirmation(
    settings: Settings, acknowledgement: str
) -> None:
    # "Okay" acknowledges the question; it does not say the number is the account's.
    model = ScriptedLLM([Call("verify_identity"), BY_CALLING_NUMBER, BY_CALLING_NUMBER, relay])
    async with call_session(model, settings=settings) as session:
        session.userdata.learn_line(PHONE_LINE)
        await session.run(user_input="I need help with my account")
        await session.run(user_input="Jordan Lee, 94107")
        assert agent_lines(session)[-1] == CALLING_NUMBER_QUESTION
        await session.run(user_input=acknowledgement.capitalize())
        assert agent_lines(session)[-1] == CALLING_NUMBER_NOT_CONFIRMED
        assert session.userdata.verified_customer is None
        assert session.userdata.identity.failed_checks == 0
    assert not model.overran


async def test_a_confirmed_number_with_wrong_details_counts_like_any_failed_check(
    settings: Settings, demo_database_url: str
) -> None:
    database_url = demo_database_url
    wrong_postal_code = Call(
        "use_calling_number", {"full_name": "Jordan Lee", "postal_code": "94108"}
    )
    model = ScriptedLLM([Call("verify_identity"), wrong_postal_code, relay])
    async with call_session(model, settings=settings, database_url=database_url) as session:
        session.userdata.learn_line(PHONE_LINE)
        await session.run(user_input="I need help with my account")
        await session.run(user_input="Jordan Lee, 94108, yes")
        assert agent_lines(session)[-1] == mismatch_message(settings.identity_max_attempts - 1)
        assert session.userdata.identity.failed_checks == 1
    async with await Store.open(database_url) as store:
        since = TEST_NOW - dt.timedelta(hours=1)
        assert await store.identity_failures_since(JORDAN_ID, since) == 1


async def test_a_number_on_no_account_verifies_nobody(settings: Settings) -> None:
    model = ScriptedLLM([Call("verify_identity"), BY_CALLING_NUMBER, relay])
    async with call_session(model, settings=settings) as session:
        session.userdata.learn_line(WORK_PHONE_LINE)
        await session.run(user_input="I need help with my account")
        await session.run(user_input="Jordan Lee, 94107, yes")
        assert agent_lines(session)[-1] == mismatch_message(settings.identity_max_attempts - 1)
        assert session.userdata.verified_customer is None


@pytest.mark.parametrize(
    "line", [CallerLine(), CallerLine(is_phone=True)], ids=["not a phone", "no number"]
)
async def test_without_a_calling_number_the_hint_is_never_offered(
    settings: Settings, line: CallerLine
) -> None:
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), relay])
    async with call_session(model, settings=settings) as session:
        session.userdata.learn_line(line)
        await session.run(user_input="I need help with my account")
        assert agent_lines(session)[-1] == OPENING_QUESTION
        # Surname first: the model reads the details (all three in one line, code checks).
        await session.run(user_input="Lee, Jordan, 94107, jordan.lee@example.com")
        assert session.userdata.verified_customer is not None
    # Every specialist's own way out, and no calling-number tool without a number.
    assert model.turns[1].tool_names == IDENTITY_TOOLS | {
        "transfer_to_human",
        "caller_wants_something_else",
    }


# On a voice line: what played, and what the caller said after it


async def test_on_a_voice_line_a_yes_to_another_question_is_no_confirmation(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("verify_identity"),
            Say("Your postal code is 94107?"),
            BY_CALLING_NUMBER,
            BY_CALLING_NUMBER,
            relay,
        ]
    )
    caller = [
        Utterance("I need help with my account"),
        Utterance("It's Jordan Lee, nine four one oh seven"),
        Utterance("Yes"),
        Utterance("Yes, I am"),
    ]
    async with voice_call_session(model, caller, settings=settings) as call:
        call.state.learn_line(PHONE_LINE)
        await call.finished()
        said = [message.text_content or "" for message in call.messages("assistant")]
        assert said[1:5] == [
            OPENING_QUESTION_ON_A_PHONE,
            CALLING_NUMBER_QUESTION,
            "Your postal code is 94107?",
            CALLING_NUMBER_QUESTION,
        ]
        customer = call.state.verified_customer
        assert customer is not None
        assert customer.customer_id == JORDAN_ID
        assert call.state.identity.failed_checks == 0
        assert call.errors == []
    assert not model.overran


async def test_on_a_voice_line_a_yes_after_the_question_confirms_at_once(
    settings: Settings,
) -> None:
    model = ScriptedLLM([Call("verify_identity"), BY_CALLING_NUMBER, relay])
    caller = [
        Utterance("I need help with my account"),
        Utterance("Jordan Lee, 94107, and yes I am"),
    ]
    async with voice_call_session(model, caller, settings=settings) as call:
        call.state.learn_line(PHONE_LINE)
        await call.finished()
        customer = call.state.verified_customer
        assert customer is not None
        assert customer.customer_id == JORDAN_ID
        assert call.errors == []
    assert not model.overran
