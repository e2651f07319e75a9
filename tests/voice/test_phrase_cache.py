"""Sentences the agent says word for word are synthesised once per voice: said again in
the call, or in another call on the same cache (or the same folder), they play from it.
What a caller hears and what the history keeps is what it is without the cache; a
sentence with a caller's data is never kept."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pytest
from livekit.agents import APIConnectionError

from customer_service.call.fixed_sentences import is_fixed, sentences
from customer_service.call.latency import THANKS
from customer_service.call.phrase_cache import PhraseCache
from customer_service.call.phrase_files import Voice, phrase_path
from customer_service.call.wording import (
    ENDING_FOR_SILENCE,
    GREETING,
    HOW_CAN_I_HELP,
    STILL_THERE,
    WELCOME,
)
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.specialists.cancellation import REASON_QUESTION
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.testing.voice import (
    AgentFinishes,
    AgentSays,
    HangUp,
    Line,
    Utterance,
    VoiceCall,
    voice_call_session,
)
from customer_service.testing.voice_timing import DEFAULT_SPEED, timed_fakes
from support.conversation import JORDAN_SAYS_TO_THE_MODEL

SILENT_CALL = [GREETING, f"{STILL_THERE} {HOW_CAN_I_HELP}", ENDING_FOR_SILENCE]
"""What the agent says to a caller who never speaks."""

ORDER_SAID = "1 0 0, 1 0 2"
"""Order 100102 as the agent says it: the caller's data."""

CANCELLING = [
    Utterance("I want to cancel order 100102"),
    Utterance(JORDAN_SAYS_TO_THE_MODEL),
    # The answer waits for its question: a filler heard first is no question.
    Utterance("I don't need it any more", after=AgentFinishes("Why would you like to cancel")),
    HangUp(after=AgentSays("Please say yes or no"), delay=0.3),
]
"""Jordan asks to cancel an order and hangs up at its read-back: the agent says the order
(its number and items) in sentences of its own and in fixed ones."""

QUESTION_CUT = [
    Utterance("Where is my order?"),
    Utterance("Sorry, who is this?", after=AgentSays("verify your identity")),
]
"""The caller talks over the identity question."""


async def silent_call(settings: Settings, phrases: PhraseCache) -> VoiceCall:
    async with voice_call_session(
        OfflineLLM(), [], settings=settings, speed=20, phrases=phrases
    ) as call:
        await call.until(lambda: call.closed)
        return call


async def finished_call(
    settings: Settings, phrases: PhraseCache, caller: Sequence[Line]
) -> VoiceCall:
    async with voice_call_session(OfflineLLM(), caller, settings=settings, phrases=phrases) as call:
        await call.finished()
        return call


def files_in(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.wav"))


def said(call: VoiceCall) -> list[str | None]:
    return [message.text_content for message in call.messages("assistant")]


def synthesised(call: VoiceCall, sentence: str) -> int:
    """How many texts the call's TTS synthesised that hold `sentence`."""
    return sum(sentence in text for text in call.tts.texts)


async def test_a_fixed_sentence_is_synthesised_once_per_voice(settings: Settings) -> None:
    phrases = PhraseCache()
    first = await silent_call(settings, phrases)
    assert said(first) == SILENT_CALL
    # "How can I help you today?" closes the greeting and the question after a silence.
    assert synthesised(first, HOW_CAN_I_HELP) == 1
    assert synthesised(first, STILL_THERE) == 1

    second = await silent_call(settings, phrases)
    assert said(second) == SILENT_CALL
    assert second.tts.texts == []
    assert [speech.played_to_end for speech in second.speeches] == [True, True, True]
    assert second.errors == []


async def test_a_sentence_with_the_callers_data_is_synthesised_every_time_and_never_kept(
    settings: Settings, tmp_path: Path
) -> None:
    phrases = PhraseCache(tmp_path)
    calls = [await finished_call(settings, phrases, CANCELLING) for _ in range(2)]
    first, second = calls
    for call in calls:
        # The details were acknowledged as soon as they were given, from the cache, so
        # the opening that follows the identity check is not led again.
        texts = [(text or "").strip() for text in said(call)]
        opening = texts.index(THANKS) + 1
        assert texts[opening].startswith(f"Order {ORDER_SAID} contains")
        assert synthesised(call, ORDER_SAID) == 2  # the opening, and the read-back
        assert call.errors == []
    # The fixed question closing the opening came from the cache the second time.
    assert synthesised(first, REASON_QUESTION) == 1
    assert synthesised(second, REASON_QUESTION) == 0

    held = phrases.held()
    assert REASON_QUESTION in held
    assert all(is_fixed(sentence) for sentence in held)
    assert not any(ORDER_SAID in sentence or "Jordan" in sentence for sentence in held)
    voice = Voice.of(first.tts)
    assert files_in(tmp_path) == sorted(phrase_path(tmp_path, voice, sentence) for sentence in held)


async def test_what_the_caller_hears_and_the_history_keep_are_the_same_with_the_cache(
    settings: Settings,
) -> None:
    phrases = PhraseCache()
    uncached = await finished_call(settings, PhraseCache(enabled=False), CANCELLING)
    filling = await finished_call(settings, phrases, CANCELLING)
    cached = await finished_call(settings, phrases, CANCELLING)
    assert synthesised(cached, REASON_QUESTION) == 0
    for call in (filling, cached):
        assert said(call) == said(uncached)
        assert [speech.heard for speech in call.speeches] == [
            speech.heard for speech in uncached.speeches
        ]
        assert [m.interrupted for m in call.messages("assistant")] == [
            m.interrupted for m in uncached.messages("assistant")
        ]
        assert call.errors == []


@pytest.mark.parametrize("saying", ["uncached", "first", "cached"])
async def test_a_cached_sentence_is_cut_off_as_any_other(settings: Settings, saying: str) -> None:
    phrases = PhraseCache(enabled=saying != "uncached")
    if saying == "cached":
        heard_whole = await finished_call(settings, phrases, [Utterance("Where is my order?")])
        assert IDENTITY_QUESTION in said(heard_whole)
    call = await finished_call(settings, phrases, QUESTION_CUT)
    assert synthesised(call, sentences(IDENTITY_QUESTION)[0]) == (saying != "cached")
    question = next(s for s in call.speeches if IDENTITY_QUESTION.startswith(s.heard.strip()))
    assert question.interrupted
    assert "verify your identity" in question.heard
    assert len(question.heard.strip()) < len(IDENTITY_QUESTION)
    # The history keeps the words the caller heard, marked cut off.
    kept = next(m for m in call.messages("assistant") if m.interrupted)
    assert kept.text_content is not None
    assert "verify your identity" in kept.text_content
    assert IDENTITY_QUESTION.startswith(kept.text_content)
    assert kept.text_content != IDENTITY_QUESTION
    assert call.errors == []


WAV_HEADER_BYTES = 44
"""A cache entry's WAV header: its format and length, before the samples."""


async def test_a_corrupt_entry_in_the_folder_is_synthesised_again(
    settings: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = await silent_call(settings, PhraseCache(tmp_path))
    welcome = phrase_path(tmp_path, Voice.of(first.tts), WELCOME)
    whole = welcome.read_bytes()
    welcome.write_bytes(whole[: len(whole) // 2])  # cut short, as by a full disk

    # Another process: nothing in its memory, the machine's folder shared.
    with caplog.at_level(logging.WARNING, logger="customer_service.call.phrase_cache"):
        second = await silent_call(settings, PhraseCache(tmp_path))
    assert said(second) == SILENT_CALL
    assert second.tts.texts == [WELCOME]
    warnings = [r for r in caplog.records if r.name == "customer_service.call.phrase_cache"]
    assert [r.getMessage() for r in warnings] == [
        "speech cache entry unreadable, synthesising it again"
    ]
    # Written anew, whole: as long as the first, under the same header (the fake voice
    # marks its samples with the synthesis's number in the call, which may differ).
    again = welcome.read_bytes()
    assert (len(again), again[:WAV_HEADER_BYTES]) == (len(whole), whole[:WAV_HEADER_BYTES])

    third = await silent_call(settings, PhraseCache(tmp_path))
    assert third.tts.texts == []


@pytest.mark.parametrize("enabled", [False, True])
async def test_a_tts_failure_while_filling_keeps_nothing_and_fails_as_without_the_cache(
    settings: Settings, tmp_path: Path, enabled: bool
) -> None:
    speech = timed_fakes(settings, DEFAULT_SPEED)

    async def provider_down_for_the_welcome(text: str) -> None:
        if text.startswith(WELCOME):
            raise APIConnectionError("provider down", retryable=False)

    speech.tts.hold = provider_down_for_the_welcome
    phrases = PhraseCache(tmp_path, enabled=enabled)
    async with voice_call_session(
        OfflineLLM(), QUESTION_CUT[:1], settings=settings, speech=speech, phrases=phrases
    ) as call:
        await call.finished()
        # The greeting failed, reported once as the TTS error it is, and the call went on.
        assert [type(error.error).__name__ for error in call.errors] == ["TTSError"]
        assert not any(GREETING in (text or "") for text in said(call))
        assert IDENTITY_QUESTION in said(call)
    assert WELCOME not in phrases.held()
    assert not phrase_path(tmp_path, Voice.of(speech.tts), WELCOME).exists()

    again = await silent_call(settings, phrases)
    assert said(again) == SILENT_CALL
    assert synthesised(again, WELCOME) == 1
