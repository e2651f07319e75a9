"""The goodbye, heard over a phone line: the call ends only after a goodbye the caller
let finish. Words said over it keep the call open and are answered; a cough does not.

The LiveKit server is stood in for at its edge (`support.livekit_server.phone_line`),
so a hang-up shows as the room's deletion; everything else is the real session, the
offline model or a scripted one, and the framework's own turn handling.
"""

from __future__ import annotations

import asyncio

import pytest
from livekit.agents import AgentFalseInterruptionEvent

from customer_service.call.wording import (
    ANYTHING_ELSE,
    ENDING_FOR_SILENCE,
    GOODBYE,
    GREETING,
    HOW_CAN_I_HELP,
    STILL_THERE,
)
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.testing.voice import (
    AgentSays,
    HangUp,
    Utterance,
    VoiceCall,
    voice_call_session,
)
from support.conversation import JORDAN_SAYS, audit_kinds
from support.livekit_server import GIVE_UP_AFTER_S, PHONE_CALLER, ROOM, phone_line
from support.scripted_llm import SUPERVISOR_TOOLS, Call, Say, ScriptedLLM

BYE = "That's all, thanks. Bye!"
ONE_MORE_THING = "Oh wait, one more thing. Where is my order 100101?"
WHAT_ELSE = "Of course. What else can I do for you?"


async def hung_up(call: VoiceCall) -> None:
    """Waits for the session to close; the guard is against a hang, not a measurement."""
    async with asyncio.timeout(GIVE_UP_AFTER_S):
        await call.until(lambda: call.closed)


async def test_words_over_the_goodbye_keep_the_call_open_and_are_answered(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller = [
        Utterance(BYE),
        Utterance(ONE_MORE_THING, after=AgentSays("Thank you")),
        Utterance(JORDAN_SAYS),
    ]
    with phone_line(monkeypatch, PHONE_CALLER) as server:
        async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
            async with asyncio.timeout(GIVE_UP_AFTER_S):  # a guard against a hang
                await call.until(lambda: "Order 1" in call.heard)
            await call.finished()

            assert call.speech(1).heard == GREETING
            goodbye = call.speech(2)
            assert goodbye.interrupted  # cut off by the caller's words
            assert GOODBYE.startswith(goodbye.heard)
            # The words over it were the caller's next turn: their order question was
            # taken up, identity checked, and the order read out.
            assert call.speech(3).heard == IDENTITY_QUESTION
            # The status, said by code, then the closing question.
            status, closing = call.speeches[-2:]
            assert status.heard.startswith("Order 1")
            assert status.played_to_end
            assert closing.heard == ANYTHING_ELSE
            assert ONE_MORE_THING in [m.text_content for m in call.messages("user")]

            assert not call.closed
            assert not call.state.ending
            assert server.deleted_rooms == []
            assert "call_ended_by_agent" not in await audit_kinds(call.session)
            assert call.errors == []


async def test_a_cough_over_the_goodbye_pauses_it_then_it_finishes_and_the_call_ends(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedLLM([Call("end_call")])
    caller = [
        Utterance(BYE),
        Utterance("", after=AgentSays("Thank you"), duration=0.8),  # heard, no words
    ]
    with phone_line(monkeypatch, PHONE_CALLER) as server:
        async with voice_call_session(model, caller, settings=settings) as call:
            false_interruptions: list[AgentFalseInterruptionEvent] = []
            call.session.on("agent_false_interruption", false_interruptions.append)
            server.look = lambda: [speech.played_to_end for speech in call.speeches]
            await call.finished()

            # The noise paused the goodbye and the framework resumed it.
            assert [event.resumed for event in false_interruptions] == [True]
            goodbye = call.speech(2)
            assert goodbye.heard == GOODBYE
            assert goodbye.played_to_end
            await hung_up(call)
            assert server.deleted_rooms == [ROOM]
            assert server.seen_at_request == [[True, True]]  # deleted after it played
            assert await audit_kinds(call.session) == ["call_ended_by_agent"]
            assert len(model.turns) == 1  # a noise is no turn
            assert call.errors == []
    assert not model.overran


async def test_a_goodbye_the_caller_lets_finish_ends_the_call_once(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedLLM([Call("end_call")])
    with phone_line(monkeypatch, PHONE_CALLER) as server:
        async with voice_call_session(model, [Utterance(BYE)], settings=settings) as call:
            server.look = lambda: [speech.played_to_end for speech in call.speeches]
            await call.finished()

            assert call.speech(2).heard == GOODBYE
            await hung_up(call)
            assert server.deleted_rooms == [ROOM]
            assert server.seen_at_request == [[True, True]]
            assert call.state.ending
            assert await audit_kinds(call.session) == ["call_ended_by_agent"]
            assert call.errors == []
    assert not model.overran


async def test_after_words_over_the_goodbye_a_later_goodbye_still_ends_the_call(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedLLM([Call("end_call"), Say(WHAT_ELSE), Call("end_call")])
    caller = [
        Utterance(BYE),
        Utterance("Oh wait, one more thing about my order", after=AgentSays("Thank you")),
        Utterance("Actually, never mind. Bye!", after=AgentSays(WHAT_ELSE)),
    ]
    with phone_line(monkeypatch, PHONE_CALLER) as server:
        async with voice_call_session(model, caller, settings=settings) as call:
            server.look = lambda: [speech.played_to_end for speech in call.speeches]
            await call.finished()

            assert [speech.heard for speech in call.speeches][2:] == [WHAT_ELSE, GOODBYE]
            assert call.speech(2).interrupted
            assert [turn.last_user_text for turn in model.turns][1:] == [
                "Oh wait, one more thing about my order",
                "Actually, never mind. Bye!",
            ]
            assert all(turn.offers(SUPERVISOR_TOOLS) for turn in model.turns)
            # One hang-up, after the goodbye the caller let finish.
            await hung_up(call)
            assert server.deleted_rooms == [ROOM]
            assert server.seen_at_request == [[True, False, True, True]]
            assert await audit_kinds(call.session) == ["call_ended_by_agent"]
            assert call.errors == []
    assert not model.overran


@pytest.mark.parametrize("over_the_goodbye", ["Thanks, bye!", "You too, goodbye."])
async def test_a_goodbye_over_the_goodbye_ends_the_call_without_another(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, over_the_goodbye: str
) -> None:
    # The model takes the words over the goodbye for a goodbye and ends the call again.
    model = ScriptedLLM([Call("end_call"), Call("end_call")])
    caller = [Utterance(BYE), Utterance(over_the_goodbye, after=AgentSays("Thank you"))]
    with phone_line(monkeypatch, PHONE_CALLER) as server:
        async with voice_call_session(model, caller, settings=settings) as call:
            await call.finished()
            await hung_up(call)

            assert call.speech(2).interrupted
            assert GOODBYE.startswith(call.speech(2).heard)
            # One goodbye synthesized (sentence by sentence) and heard; the call and the
            # room ended once.
            assert " ".join(call.tts.texts).count(GOODBYE) == 1
            assert len(call.speeches) == 2
            assert [turn.last_user_text for turn in model.turns] == [BYE, over_the_goodbye]
            assert server.deleted_rooms == [ROOM]
            assert await audit_kinds(call.session) == ["call_ended_by_agent"]
            assert call.errors == []
    assert not model.overran


async def test_a_caller_who_hangs_up_during_the_goodbye_ends_the_call_themselves(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedLLM([Call("end_call")])
    caller = [Utterance(BYE), HangUp(after=AgentSays("Thank you"))]
    with phone_line(monkeypatch, PHONE_CALLER):
        async with voice_call_session(model, caller, settings=settings) as call:
            await call.finished()

            assert call.speech(2).interrupted
            assert call.close_event is not None
            assert call.close_event.error is None
            # Like any hang-up of the caller's: the agent ended nothing.
            assert await audit_kinds(call.session) == []
            assert call.errors == []
    assert not model.overran


async def test_words_over_the_silence_farewell_keep_the_call_open_until_the_next_silences(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedLLM([Say(WHAT_ELSE)])
    caller = [Utterance("Sorry, I'm still here!", after=AgentSays("I haven't heard"))]
    with phone_line(monkeypatch, PHONE_CALLER) as server:
        async with voice_call_session(model, caller, settings=settings, speed=20) as call:
            await call.finished()

            farewell = call.speeches[-2]
            assert ENDING_FOR_SILENCE.startswith(farewell.heard)
            assert farewell.interrupted
            assert call.speeches[-1].heard == WHAT_ELSE
            assert [turn.last_user_text for turn in model.turns] == ["Sorry, I'm still here!"]
            assert not call.closed
            assert not call.state.ending
            assert server.deleted_rooms == []
            assert await audit_kinds(call.session) == []

            # Silent again: asked once more, then a farewell played in full ends the call.
            await hung_up(call)
            assert [speech.heard for speech in call.speeches][-2:] == [
                f"{STILL_THERE} {HOW_CAN_I_HELP}",
                ENDING_FOR_SILENCE,
            ]
            assert call.speeches[-1].played_to_end
            assert server.deleted_rooms == [ROOM]
            assert await audit_kinds(call.session) == ["call_ended_for_silence"]
            assert call.errors == []
    assert not model.overran
