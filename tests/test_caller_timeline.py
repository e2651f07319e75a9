"""When the caller's words began: from the sound that led to the turn's first words, not
from a noise that opened the turn before them."""

from __future__ import annotations

import pytest
from livekit.agents import AgentSession, UserInputTranscribedEvent, UserStateChangedEvent
from livekit.agents.voice.events import UserState

from customer_service.call.caller_timeline import KEPT_FOR_S, CallerTimeline, words_began

# One caller turn on a wall clock: a cough at 10.0 paused the question, which ended at
# 15.0; "yes" began at 16.0, its first words arrived at 16.4, and the turn reached the
# agent at 17.5. The framework stamps the turn at the cough.
COUGH = 10.0
YES = 16.0
YES_WORDS = 16.4
RECEIVED = 17.5


def test_a_noise_before_the_words_is_passed_over() -> None:
    assert words_began(COUGH, RECEIVED, [COUGH, YES], [YES_WORDS]) == YES


def test_onsets_reported_late_are_moved_as_early_as_the_turns_first() -> None:
    # Reported 0.06 s after the sound began, and the framework's stamp says so.
    began = words_began(COUGH, RECEIVED, [COUGH + 0.06, YES + 0.06], [YES_WORDS])
    assert began == pytest.approx(YES)


def test_words_from_the_turns_first_sound_began_with_the_turn() -> None:
    assert words_began(YES, RECEIVED, [YES], [YES_WORDS]) == YES


def test_a_noise_after_the_first_words_changes_nothing() -> None:
    # "yes" over the end of the question (at 14.6), then a cough after its first words.
    over_the_end = 14.6
    assert words_began(over_the_end, RECEIVED, [over_the_end, 16.8], [15.0, 17.2]) == over_the_end


def test_the_words_never_begin_before_the_turn() -> None:
    # An onset reported before the turn began belongs to an earlier turn.
    assert words_began(YES, RECEIVED, [5.0], [YES_WORDS]) == YES


def test_without_words_in_the_turn_the_turns_own_stamp_stands() -> None:
    # No transcript between the turn's start and its arrival (a straggler from the
    # previous turn before it, the next turn's words after it).
    assert words_began(COUGH, RECEIVED, [COUGH, YES], [9.0, 18.0]) == COUGH
    assert words_began(COUGH, RECEIVED, [COUGH], []) == COUGH


def test_without_the_turns_onsets_the_turns_own_stamp_stands() -> None:
    # Followed too late to have heard the sound that led to the words.
    assert words_began(COUGH, RECEIVED, [], [YES_WORDS]) == COUGH


def user_state(new_state: UserState, at: float) -> UserStateChangedEvent:
    old_state: UserState = "speaking" if new_state == "listening" else "listening"
    return UserStateChangedEvent(old_state=old_state, new_state=new_state, created_at=at)


def transcribed(text: str, at: float, *, final: bool = True) -> UserInputTranscribedEvent:
    return UserInputTranscribedEvent(transcript=text, is_final=final, created_at=at)


async def test_a_session_timeline_takes_onsets_and_words_from_the_sessions_events() -> None:
    session: AgentSession[None] = AgentSession()
    timeline = CallerTimeline.follow(session)
    assert CallerTimeline.of(session) is timeline
    session.emit("user_state_changed", user_state("speaking", COUGH))
    session.emit("user_state_changed", user_state("listening", 10.7))
    session.emit("user_input_transcribed", transcribed("", 11.0))  # quiet: no words
    session.emit("user_input_transcribed", transcribed(" ", 12.0, final=False))
    session.emit("user_state_changed", user_state("speaking", YES))
    session.emit("user_input_transcribed", transcribed("yes", YES_WORDS, final=False))
    session.emit("user_input_transcribed", transcribed("yes please", 17.0))
    assert timeline.words_began(COUGH, RECEIVED) == pytest.approx(YES)


async def test_a_session_is_followed_once() -> None:
    session: AgentSession[None] = AgentSession()
    CallerTimeline.follow(session)
    with pytest.raises(RuntimeError):
        CallerTimeline.follow(session)


def test_on_a_faster_clock_every_duration_is_scaled() -> None:
    timeline = CallerTimeline(time_scale=0.1)
    assert timeline.seconds(0.3) == pytest.approx(0.03)


async def test_what_happened_long_ago_is_forgotten_and_judged_by_the_turns_stamp() -> None:
    session: AgentSession[None] = AgentSession()
    timeline = CallerTimeline.follow(session)
    session.emit("user_state_changed", user_state("speaking", COUGH))
    session.emit("user_state_changed", user_state("speaking", YES))
    session.emit("user_input_transcribed", transcribed("yes", YES_WORDS))
    assert timeline.words_began(COUGH, RECEIVED) == pytest.approx(YES)
    later = YES_WORDS + KEPT_FOR_S + 1
    session.emit("user_input_transcribed", transcribed("and another thing", later))
    assert timeline.words_began(COUGH, RECEIVED) == COUGH
