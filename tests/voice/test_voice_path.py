"""The voice path: the session the server builds, spoken to and heard with timed audio.

Every call here runs through `customer_service.testing.voice`: the caller's lines are
audio frames, the end of a turn and any interruption are the framework's decisions, and
the agent's speech plays at its own pace. Times in the scripts are script seconds; the
tests wait on what the agent does, never on the clock.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import pytest
from livekit import rtc
from livekit.agents import AgentFalseInterruptionEvent, UserStateChangedEvent
from livekit.agents.llm import ChatMessage
from livekit.agents.stt import SpeechEventType
from livekit.agents.voice import SpeechHandle

from customer_service.call import audit
from customer_service.call.state import DelegationOutcome
from customer_service.call.wording import GREETING, HOW_CAN_I_HELP, STILL_THERE
from customer_service.offline_llm import OfflineLLM
from customer_service.pipeline.resilience import speak_failures
from customer_service.settings import Settings
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.store import AuditEvent
from customer_service.supervisor import CustomerServiceAgent
from customer_service.testing.caller_audio import (
    SAMPLE_RATE,
    SPEECH_KEY,
    CallerSpeech,
    FakeMicrophone,
    FakeSpeaker,
)
from customer_service.testing.speech_models import FakeSTT, FakeTTS
from customer_service.testing.voice import (
    AgentEnds,
    AgentSays,
    AgentStarts,
    HangUp,
    Utterance,
    VoiceCall,
    voice_call_session,
)
from support.conversation import JORDAN_SAYS_TO_THE_MODEL
from support.scripted_llm import SUPERVISOR_TOOLS, Call, Say, ScriptedLLM

QUESTION = "Hi, what are your opening hours?"
REPLY = "Our phone line is open every day from eight in the morning to eight at night."
LONG_REPLY = (
    "Our return policy is simple. You can send back any item within thirty days of "
    "delivery, as long as it is unused and in its original packaging, and we refund the "
    "full price to the card you paid with once the parcel reaches our warehouse."
)
TALK_OVER = "Sorry, stop, I only need the return address."


def handle_of(call: VoiceCall, message: ChatMessage) -> SpeechHandle:
    return next(handle for handle in call.speech_handles if message in handle.chat_items)


async def test_the_call_runs_on_the_session_the_server_builds(settings: Settings) -> None:
    async with voice_call_session(ScriptedLLM(), settings=settings) as call:
        session = call.session
        assert session.options.max_tool_steps == settings.session_max_tool_steps
        assert session.conn_options.llm_conn_options.max_retry == 1
        assert speak_failures(session.llm) is session.llm  # already wrapped, as in a room
        assert isinstance(session.current_agent, CustomerServiceAgent)
        # The framework's default turn handling, on the test's clock.
        interruption = session.options.interruption
        assert interruption["min_duration"] * call.speed == pytest.approx(0.5)
        assert interruption["false_interruption_timeout"] == pytest.approx(2.0 / call.speed)


async def test_a_spoken_turn_reaches_the_supervisor_and_its_reply_plays_to_the_end(
    settings: Settings,
) -> None:
    llm = ScriptedLLM([Say(REPLY)])
    async with voice_call_session(llm, [Utterance(QUESTION)], settings=settings) as call:
        await call.finished()

        (turn,) = llm.turns
        assert turn.offers(SUPERVISOR_TOOLS)  # the supervisor answered the turn
        assert turn.last_user_text == QUESTION
        (asked,) = call.messages("user")
        assert "started_speaking_at" in asked.metrics  # heard through the microphone

        assert call.speech(1).heard == GREETING
        assert call.speech(2).played_to_end
        assert call.speech(2).heard == REPLY
        reply = call.messages("assistant")[-1]
        assert reply.text_content == REPLY
        assert not reply.interrupted
        assert not handle_of(call, reply).interrupted
        assert call.errors == []


async def test_talking_over_a_long_reply_interrupts_it(settings: Settings) -> None:
    llm = ScriptedLLM([Say(LONG_REPLY), Say("Of course. What would you like to know?")])
    caller = [
        Utterance("What is your return policy?"),
        Utterance(TALK_OVER, after=AgentStarts(2), delay=3.0),
    ]
    async with voice_call_session(llm, caller, settings=settings) as call:
        await call.finished()

        cut_off = call.speech(2)
        assert cut_off.interrupted
        assert cut_off.played < cut_off.length
        (stored,) = [m for m in call.messages("assistant") if m.interrupted]
        heard = stored.text_content or ""
        # Stored as the words the caller heard before talking over them.
        assert heard
        assert LONG_REPLY.startswith(heard)
        assert len(heard) < len(LONG_REPLY)
        assert handle_of(call, stored).interrupted

        # The words spoken over the reply are the caller's next turn, and are answered.
        assert [turn.last_user_text for turn in llm.turns] == [
            "What is your return policy?",
            TALK_OVER,
        ]
        assert call.speech(3).played_to_end
        assert call.errors == []


async def test_a_cough_over_a_reply_pauses_it_and_it_resumes(settings: Settings) -> None:
    llm = ScriptedLLM([Say(REPLY)])
    caller = [
        Utterance(QUESTION),
        Utterance("", after=AgentStarts(2), delay=1.0, duration=0.3),  # heard, no words
    ]
    async with voice_call_session(llm, caller, settings=settings) as call:
        false_interruptions: list[AgentFalseInterruptionEvent] = []
        call.session.on("agent_false_interruption", false_interruptions.append)
        await call.finished()

        assert [event.resumed for event in false_interruptions] == [True]
        assert call.speech(2).played_to_end
        reply = call.messages("assistant")[-1]
        assert reply.text_content == REPLY
        assert not reply.interrupted
        assert len(llm.turns) == 1  # a noise is no turn
        assert len(call.speeches) == 2


async def test_a_held_up_event_loop_before_the_question_plays_is_no_second_silence(
    settings: Settings,
) -> None:
    # A loaded machine holds the event loop up between the away timer's restart and the
    # question's first audio: the timer runs out before the caller could hear anything.
    llm = ScriptedLLM([Say(REPLY)])
    caller = [Utterance(QUESTION, after=AgentSays(f"{STILL_THERE} {HOW_CAN_I_HELP}"), delay=1.0)]
    async with voice_call_session(llm, caller, settings=settings, speed=20) as call:
        loop = asyncio.get_running_loop()
        held_up = settings.user_away_timeout_s / 20 * 1.5

        def hold_up_the_loop_once(event: UserStateChangedEvent) -> None:
            if event.new_state == "away" and not user_states:
                # After the idle watcher's own restart of the away timer, in this turn.
                loop.call_soon(time.sleep, held_up)
            user_states.append(event)

        user_states: list[UserStateChangedEvent] = []
        call.session.on("user_state_changed", hold_up_the_loop_once)
        await call.finished()
        # Asked once, never told the call is ending, and the call went on.
        assert [m.text_content for m in call.messages("assistant")] == [
            GREETING,
            f"{STILL_THERE} {HOW_CAN_I_HELP}",
            REPLY,
        ]
        assert len(call.speeches) == 3
        assert [turn.last_user_text for turn in llm.turns] == [QUESTION]
        assert not call.closed


async def test_a_greeting_slow_to_start_is_not_taken_for_the_callers_silence(
    settings: Settings,
) -> None:
    # The away timer runs from the session's start: a greeting whose synthesis is slower
    # than the timeout must not be followed at once by "are you still there?".
    llm = ScriptedLLM([Say(REPLY)])
    async with voice_call_session(llm, [Utterance(QUESTION)], settings=settings, speed=20) as call:
        user_states: list[UserStateChangedEvent] = []
        timer_ran_out = asyncio.Event()

        def note(event: UserStateChangedEvent) -> None:
            user_states.append(event)
            if event.new_state == "away":
                timer_ran_out.set()

        async def until_the_timer_ran_out(text: str) -> None:
            await timer_ran_out.wait()

        call.session.on("user_state_changed", note)
        call.tts.hold = until_the_timer_ran_out
        await call.finished()
        assert next(event.new_state for event in user_states) == "away"  # as the test means
        assert [m.text_content for m in call.messages("assistant")] == [GREETING, REPLY]
        assert len(call.speeches) == 2
        assert [turn.last_user_text for turn in llm.turns] == [QUESTION]
        assert not call.closed


async def test_a_silent_caller_is_asked_once_and_the_call_goes_on_when_they_speak(
    settings: Settings,
) -> None:
    llm = ScriptedLLM([Say(REPLY)])
    caller = [Utterance(QUESTION, after=AgentSays(f"{STILL_THERE} {HOW_CAN_I_HELP}"), delay=1.0)]
    async with voice_call_session(llm, caller, settings=settings, speed=20) as call:
        user_states: list[UserStateChangedEvent] = []
        call.session.on("user_state_changed", user_states.append)
        await call.finished()
        # Marked away after USER_AWAY_TIMEOUT_S, asked once, and the call went on.
        states = [event.new_state for event in user_states]
        assert states[states.index("away") + 1] == "listening"
        assert len(call.speeches) == 3  # greeting, the question asked again, the reply
        assert [m.text_content for m in call.messages("assistant")][:2] == [
            GREETING,
            f"{STILL_THERE} {HOW_CAN_I_HELP}",
        ]
        assert [turn.last_user_text for turn in llm.turns] == [QUESTION]
        assert call.messages("assistant")[-1].text_content == REPLY
        assert not call.closed
        assert call.errors == []


async def test_hanging_up_during_a_specialist_question_leaves_nothing_half_written(
    settings: Settings,
) -> None:
    llm = ScriptedLLM([Call("lookup_order", {"order_id": "100101"})])
    caller = [
        Utterance("Where is my order 100101?"),
        HangUp(after=AgentStarts(2), delay=1.0),
    ]
    async with voice_call_session(llm, caller, settings=settings) as call:
        await call.finished()

        assert call.close_event is not None
        assert call.close_event.error is None
        assert call.errors == []
        question = call.speech(2)
        assert question.interrupted
        assert IDENTITY_QUESTION.startswith(question.heard)
        assert len(llm.turns) == 1  # nothing answered after the hang-up

        state = call.state
        outcomes = [delegation.outcome for delegation in state.guardrails.delegations]
        assert outcomes == [DelegationOutcome.CANCELLED]
        assert state.verified_customer is None
        # A run cancelled by the hang-up has no outcome to store, and nothing was decided.
        assert await state.store.audit_events(call_id=state.call_id) == []


async def test_hanging_up_during_a_reply_keeps_exactly_what_was_decided(
    settings: Settings,
) -> None:
    caller = [
        Utterance("Where is my order 100101?"),
        Utterance(JORDAN_SAYS_TO_THE_MODEL),
        # While the order status is read out (known by its words: a filler before it
        # plays or not as the model's timing falls).
        HangUp(after=AgentSays("Order 1"), delay=1.5),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()

        assert call.close_event is not None
        assert call.close_event.error is None
        assert call.errors == []
        status = call.messages("assistant")[-1]
        assert status.interrupted
        assert (status.text_content or "").startswith("Order 1")
        # A filler before it, when one played, was a speech of its own: the status's
        # speech begins with the status.
        assert call.speeches[-1].heard.strip().startswith("Order 1")

        state = call.state
        stored = await state.store.audit_events(call_id=state.call_id)
        assert [event.kind for event in stored] == [
            "identity_verified",
            "delegation",
            "order_disclosed",
        ]
        (delegation,) = state.guardrails.delegations
        assert delegation.outcome is DelegationOutcome.COMPLETED
        assert stored[1].detail["outcome"] == "completed"


async def test_the_fake_stt_also_transcribes_a_whole_recording() -> None:
    microphone = FakeMicrophone(frame_seconds=0.001)
    frames = []
    for line in ("Where is my order?", "It's 100101."):
        frames += [microphone.voiced_frame(CallerSpeech(text=line, seconds=0.01))] * 3
        frames.append(microphone.silent_frame())
    event = await FakeSTT().recognize(frames)
    assert event.type is SpeechEventType.FINAL_TRANSCRIPT
    assert event.alternatives[0].text == "Where is my order? It's 100101."
    silent = await FakeSTT().recognize([await anext(microphone)])
    assert silent.alternatives[0].text == ""


async def test_frames_read_late_hold_the_line_where_it_was_said() -> None:
    # A session that falls behind (a loaded machine) reads the frames it missed in a
    # burst once the caller has finished: they must still carry the line, or its end
    # would reach the VAD early and the turn end before the caller's silence has.
    frame_seconds = 0.01
    microphone = FakeMicrophone(frame_seconds=frame_seconds)
    await anext(microphone)  # the session starts reading: the clock begins
    line = CallerSpeech(text="Where is my order?", seconds=5 * frame_seconds)
    loop = asyncio.get_running_loop()
    began_at = loop.time()
    ended_at = await microphone.speak(line)  # nothing read meanwhile
    assert ended_at == pytest.approx(began_at + line.seconds, abs=frame_seconds)
    assert loop.time() >= ended_at

    burst = [await anext(microphone) for _ in range(10)]
    voiced = [index for index, frame in enumerate(burst) if frame.userdata.get(SPEECH_KEY)]
    assert 4 <= len(voiced) <= 6  # the line's frames, give or take where it began
    assert voiced == list(range(voiced[0], voiced[0] + len(voiced)))  # in one piece
    assert all(burst[index].userdata[SPEECH_KEY] is line for index in voiced)
    assert not any(frame.userdata.get(SPEECH_KEY) for frame in burst[voiced[-1] + 1 :])


async def test_a_line_cut_short_ends_where_it_stopped() -> None:
    # The caller hangs up mid-line: frames read afterwards hold silence, not the rest.
    frame_seconds = 0.01
    microphone = FakeMicrophone(frame_seconds=frame_seconds)
    await anext(microphone)
    line = CallerSpeech(text="Where is my order?", seconds=100 * frame_seconds)
    speaking = asyncio.create_task(microphone.speak(line))
    await asyncio.sleep(3 * frame_seconds)
    speaking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await speaking

    burst = [await anext(microphone) for _ in range(40)]
    voiced = [frame.userdata.get(SPEECH_KEY) is line for frame in burst]
    assert any(voiced)  # what was said before the cut
    assert not any(voiced[-10:])  # and nothing of the rest of the line


async def test_an_earpiece_run_dry_plays_the_late_audio_when_it_comes() -> None:
    # A synthesis slower than playback leaves the earpiece silent mid-speech: what comes
    # late plays after the silence, not in the time the silence took.
    speaker = FakeSpeaker()
    finished: list[float] = []
    speaker.on("playback_finished", lambda event: finished.append(event.playback_position))
    loop = asyncio.get_running_loop()
    first_half = rtc.AudioFrame.create(SAMPLE_RATE, 1, SAMPLE_RATE // 10)  # 0.1 s
    await speaker.capture_frame(first_half)
    began_at = loop.time()
    await asyncio.sleep(0.3)  # nothing more comes for a while
    await speaker.capture_frame(rtc.AudioFrame.create(SAMPLE_RATE, 1, SAMPLE_RATE // 10))
    speaker.flush()
    await speaker.wait_for_playout()

    speech = speaker.speeches[0]
    assert finished == [pytest.approx(0.2)]
    assert speech.played_to_end
    assert speech.played == pytest.approx(0.2)
    assert speech.waited_for_audio >= 0.3 - 0.1  # the gap, less the first frame's play
    # It ended the second frame's length after that frame came, not at once.
    assert speech.ended_at is not None
    assert speech.ended_at - began_at >= 0.3 + 0.1


async def test_an_earpiece_holds_a_speech_before_its_end_until_the_caller_sounds() -> None:
    # A line cued over a speech's last words begins before its end however late the
    # script runs: the speech waits for it, then plays its last seconds from the line.
    changed = asyncio.Event()
    speaker = FakeSpeaker(on_change=changed.set)
    loop = asyncio.get_running_loop()
    mark = (1).to_bytes(2, "little", signed=True)  # the fake voice's first synthesis
    frame = rtc.AudioFrame(mark * (SAMPLE_RATE // 10), SAMPLE_RATE, 1, SAMPLE_RATE // 10)
    speaker.hold_before_end(0.05, lambda speech: speech.syntheses == [1])
    for _ in range(2):  # 0.2 s of speech
        await speaker.capture_frame(frame)
    speaker.flush()
    speech = speaker.speeches[0]
    while not speech.waiting_for_caller:
        changed.clear()
        await changed.wait()
    assert not speech.ended
    await asyncio.sleep(0.1)  # the script runs late
    sounded_at = loop.time()
    speaker.caller_sounds(sounded_at)
    await speaker.wait_for_playout()
    assert speech.played_to_end
    assert speech.ended_at is not None
    assert speech.ended_at - sounded_at >= 0.05  # its last 0.05 s, after the line began
    assert speech.held_for_caller >= 0.1


async def test_a_synthesis_held_halfway_sends_its_first_half_first() -> None:
    voice = FakeTTS(seconds_per_word=0.1)
    whole = sum([audio.frame.duration async for audio in voice.synthesize("one two three four")])
    released = asyncio.Event()
    held: list[str] = []

    async def hold_halfway(text: str) -> None:
        held.append(text)
        await released.wait()

    voice.hold_halfway = hold_halfway
    received, before_release = 0.0, 0.0
    async for audio in voice.synthesize("one two three four"):
        received += audio.frame.duration
        if received >= 0.2 - 0.02 and not released.is_set():  # all but a held-back frame
            before_release = received
            released.set()
    assert held == ["one two three four"]
    assert before_release == pytest.approx(0.18, abs=0.021)
    assert received == pytest.approx(whole)


async def test_a_turns_kept_events_are_written_while_its_reply_plays(
    settings: Settings,
) -> None:
    # Jordan asks about Priya's order: the miss only reports what happened, so nothing
    # waits for its write, and no write of the call's own follows it.
    caller = [
        Utterance("Where is my order 200201?"),
        Utterance(JORDAN_SAYS_TO_THE_MODEL),
        # The miss was heard (after the acknowledgement of the details, a speech of its own).
        Utterance("Okay, thanks.", after=AgentEnds(4)),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        state = call.state
        add = state.store.add_audit_events
        writes: list[tuple[list[str], str, int]] = []

        async def seen(events: Sequence[AuditEvent]) -> None:
            writes.append(([e.kind for e in events], call.session.agent_state, len(call.speeches)))
            await add(events)

        state.store.add_audit_events = seen  # type: ignore[method-assign]
        await call.finished()
        await audit.background_write_done(state)

        assert not call.closed
        # The verification at once: before the reply to the details (the acknowledgement,
        # 0.4 s long, may have played out by then on a busy machine); the miss once it
        # (the agent's fourth speech) began to play, with no write of the call's own to
        # ride on.
        assert [(kinds, speeches) for kinds, _, speeches in writes] == [
            (["identity_verified"], 3),
            (["order_not_found"], 4),
        ]
        assert writes[1][1] == "speaking"
        stored = await state.store.audit_events(call_id=state.call_id)
        assert [event.kind for event in stored] == [
            "identity_verified",
            "delegation",
            "order_not_found",
        ]
