"""The agent as τ²-bench's user meets it over a voice line (`benchmarks.tau2.voice_side`):
each line spoken into the call the server builds, on a store of the benchmark's
database, and what comes back is what the caller heard, with how long they waited.

The calls run on the voice seam's timed fakes, with the real supervisor, specialists
and store; only the model is scripted, or the offline model. Times are script seconds.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from benchmarks.tau2.agent_side import AgentTurn
from benchmarks.tau2.data import task_actions
from benchmarks.tau2.replay import changed_records, replay_tasks
from benchmarks.tau2.stores import FreshStores
from benchmarks.tau2.voice_side import VoiceAgent, real_call_speech, voice_agent
from livekit.plugins import silero
from pydantic import SecretStr

from customer_service.call.confirmation import SAY_YES_OR_NO
from customer_service.call.identity_policy import OPENING_QUESTION_EMAIL_OR_NAME_ZIP
from customer_service.call.wording import GOODBYE, GREETING, HANDOFF
from customer_service.offline_llm import OfflineLLM
from customer_service.pipeline import providers
from customer_service.pipeline.local_stt import LocalSTT
from customer_service.pipeline.local_tts import LocalTTS
from customer_service.settings import IdentityPolicy, ModelProvider, Settings
from customer_service.store import Store
from customer_service.testing.caller_audio import AudioMicrophone
from customer_service.testing.speech_models import FakeVAD
from customer_service.testing.timed_transcript import recording_calls
from customer_service.testing.voice import VoiceCall
from customer_service.testing.voice_timing import DEFAULT_SPEED
from support.databases import new_database
from support.scripted_llm import Call, Say, ScriptedLLM, Turn, relay_tool_output
from support.speech_edge import SECONDS_PER_WORD, KnownTranscriptsSTT, VoiceLikeTTS

from .expected import DB, TASKS
from .gold_agent import (
    GO_ON,
    MAX_LINES_PER_STEP,
    REQUEST,
    YES,
    GoldAgent,
    caller_of,
    gold_model,
    gold_writes,
)

pytestmark = pytest.mark.voice

CANCELLATION_TASK = "88"
"""A `train` task whose one write is a cancellation (`cancel_pending_order`)."""
QUESTION = "Hi, I have a question about an order."
REPLY = "Of course. What is the order number?"
HELD_FOR = 2.0
"""Script seconds a test holds the agent's speech back before it is synthesized."""
TIMING_TOLERANCE = 0.3
"""Script seconds two measured waits may differ by beyond what made them differ: the
session's timers tick on the loop, a few hundredths of a real second apart."""
COMPARED_SPEED = 2.0
"""The pace of a call whose waits are compared with each other: a busy machine delays the
loop by some hundredths of a real second, counted `speed` times over in script seconds,
which at a call's usual pace would pass the tolerance."""
SILERO_MIN_SILENCE_S = 0.55
"""The silence Silero waits for, by default, before it says the speech ended."""
HEARD_BY = 30.0
"""Script seconds a test waits for words it expects to hear: a guard, not a measure."""


def always_reply(_: Turn) -> Say:
    """The model's answer to every request, however many the framework makes in a turn:
    a preemptive request it throws away must not use up the answer the caller hears."""
    return Say(REPLY)


@pytest.fixture(autouse=True)
def transcripts_on_failure() -> Iterator[None]:
    """A failed test shows each call's timed transcript (pytest prints what a failed
    test wrote): on a voice line, what went wrong is usually when, not what."""
    with recording_calls() as calls:
        yield
    for call in calls:
        print(call.transcript())


@pytest.fixture
def tau2_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"identity_policy": IdentityPolicy.EMAIL_OR_NAME_ZIP})


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    async with FreshStores(DB) as stores, stores.fresh() as store:
        yield store


async def heard(call: VoiceCall, words: str) -> None:
    """Waits until the caller has heard `words` (within `HEARD_BY` script seconds)."""
    deadline = asyncio.get_running_loop().time() + call.real(HEARD_BY)
    await call.until(lambda: words in call.heard, deadline=deadline)
    assert words in call.heard, f"never heard {words!r}"


async def test_the_greeting_is_returned_as_heard_once_it_played(
    store: Store, tau2_settings: Settings
) -> None:
    async with voice_agent(ScriptedLLM(), store, tau2_settings, speed=DEFAULT_SPEED) as agent:
        assert agent.greeting() == GREETING
        assert agent.call.speech(1).played_to_end
        assert not agent.ended


async def test_a_reply_is_returned_as_heard_with_the_wait_from_the_end_of_the_line(
    store: Store, tau2_settings: Settings
) -> None:
    model = ScriptedLLM(then=always_reply)
    async with voice_agent(model, store, tau2_settings, speed=DEFAULT_SPEED) as agent:
        turn = await agent.answer(QUESTION)
        call = agent.call
        assert turn.said == REPLY
        line, reply = call.lines[0], call.speech(2)
        assert line.text == QUESTION
        assert line.ended_at is not None
        assert turn.wait_s is not None
        assert turn.wait_s == pytest.approx((reply.began_at - line.ended_at) * call.speed)
        # The turn ends only once the caller has been quiet as long as the VAD needs.
        assert isinstance(call.session.vad, FakeVAD)
        assert turn.wait_s >= call.session.vad.min_silence * call.speed


async def test_speech_slower_to_start_lengthens_the_wait_by_as_much(
    store: Store, tau2_settings: Settings
) -> None:
    model = ScriptedLLM(then=always_reply)
    async with voice_agent(model, store, tau2_settings, speed=COMPARED_SPEED) as agent:
        prompt = await agent.answer(QUESTION)

        async def slow_synthesis(_: str) -> None:
            await agent.call.wait(HELD_FOR)

        agent.call.tts.hold = slow_synthesis
        slow = await agent.answer(QUESTION)
    assert prompt.said == slow.said == REPLY
    assert prompt.wait_s is not None
    assert slow.wait_s is not None
    assert slow.wait_s - prompt.wait_s == pytest.approx(HELD_FOR, abs=TIMING_TOLERANCE)


async def test_the_agents_end_call_ends_the_call_after_the_goodbye_heard(
    store: Store, tau2_settings: Settings
) -> None:
    model = ScriptedLLM([Call("end_call")])
    async with voice_agent(model, store, tau2_settings, speed=DEFAULT_SPEED) as agent:
        turn = await agent.answer("That's all, thanks. Bye!")
        assert turn.said == GOODBYE
        assert agent.ended
        assert agent.call.closed
        # Nothing more is said to a closed call.
        assert await agent.answer("Hello?") == AgentTurn("", None)


async def test_a_transfer_to_a_person_ends_the_call(store: Store, tau2_settings: Settings) -> None:
    model = ScriptedLLM(
        [Call("transfer_to_human", {"reason": "wants a person"}), relay_tool_output]
    )
    async with voice_agent(model, store, tau2_settings, speed=DEFAULT_SPEED) as agent:
        turn = await agent.answer("Can I talk to a real person, please?")
        # The tool's words follow a tool call, so they come after the acknowledgement.
        assert turn.said == HANDOFF  # said by the code: no filler before it
        assert agent.ended
        assert agent.state.escalated


async def test_the_offline_model_asks_a_tau2_caller_to_verify_first(
    store: Store, tau2_settings: Settings
) -> None:
    async with voice_agent(OfflineLLM(), store, tau2_settings, speed=DEFAULT_SPEED) as agent:
        turn = await agent.answer("I want to cancel order #W2378156")
    assert turn.said == OPENING_QUESTION_EMAIL_OR_NAME_ZIP
    assert turn.wait_s is not None
    assert turn.wait_s > 0


def cancellation_task() -> tuple[dict[str, Any], GoldAgent, ScriptedLLM, str]:
    """The cancellation task, its gold model, and the caller's line with their email."""
    task = next(task for task in TASKS if task["id"] == CANCELLATION_TASK)
    actions = task_actions(task)
    user_id = caller_of(DB, actions)
    assert user_id is not None
    email = DB["users"][user_id]["email"]
    model, gold = gold_model(gold_writes(DB, actions), {"email": email})
    return task, gold, model, f"My email is {email}."


async def test_a_read_back_the_caller_talks_over_is_returned_as_heard_cut_off(
    store: Store, tau2_settings: Settings
) -> None:
    _, _, model, identity_line = cancellation_task()
    async with voice_agent(model, store, tau2_settings, speed=DEFAULT_SPEED) as agent:
        call = agent.call
        await agent.answer(REQUEST)
        await agent.answer(identity_line)
        # The read-back is slow to start: the caller hears nothing and stops waiting. (No
        # phrase cache: its acknowledgement ahead of the read-back would play at once.)
        call.state.phrases.enabled = False
        released = asyncio.Event()

        async def held(_: str) -> None:
            await released.wait()

        call.tts.hold = held
        assert await agent.answer(GO_ON) == AgentTurn("", None)
        call.tts.hold = None
        released.set()
        # It begins while the caller thinks of what to say next, who then talks over it.
        await heard(call, "I'll cancel order")
        read_back = call.speeches[-1]
        turn = await agent.answer("Sorry, which order is that?")

    assert read_back.interrupted
    assert read_back.heard.startswith("I'll cancel order")  # no filler before a read-back
    assert SAY_YES_OR_NO not in read_back.heard  # its last words were never heard
    # The turn starts with the words heard of it before the line and over it.
    assert turn.said.startswith(" ".join(read_back.heard.split()))
    assert len(turn.said) > len(read_back.heard.strip())  # and the reply after the line
    assert turn.wait_s is not None


async def drive_by_voice(agent: VoiceAgent, gold: GoldAgent, identity_line: str) -> None:
    """`gold_agent.drive`'s caller, speaking each line into the voice call."""
    verified = False
    while gold.writes:
        await agent.answer(REQUEST)
        if not verified:
            await agent.answer(identity_line)
            verified = True
        current = gold.current
        assert current is not None, "the supervisor did not start the gold write's tool"
        if current.answered:
            continue
        for _ in range(MAX_LINES_PER_STEP):
            if not current.records:
                break
            await agent.answer(GO_ON)
        assert not current.records, f"{current.action}: its specialist never asked to record"
        # A caller says yes once the read-back has asked, and a slow store write can hold
        # it back longer than the pause `answer` waits out.
        await heard(agent.call, SAY_YES_OR_NO)
        await agent.call.until(agent.call.agent_quiet)
        await agent.answer(YES)


async def test_the_gold_cancellation_over_voice_leaves_the_replayed_records(
    store_backend: str, tmp_path: Path, tau2_settings: Settings
) -> None:
    task, gold, model, identity_line = cancellation_task()
    async with (
        new_database(store_backend, tmp_path) as url,
        FreshStores(DB, None if store_backend == "sqlite" else url) as stores,
        stores.fresh() as store,
    ):
        async with voice_agent(model, store, tau2_settings, speed=DEFAULT_SPEED) as agent:
            await drive_by_voice(agent, gold, identity_line)
            assert not agent.ended
        # The store was the caller's: still open, holding what the call did and no more.
        ours = changed_records(DB, await store.export_tau2())
    replayed = (await replay_tasks(DB, [task]))[CANCELLATION_TASK]
    assert replayed.pop("errors") == []
    assert ours["orders"], "the call cancelled nothing"
    assert ours == replayed


# --- real speech: the providers stood in for at their network edge -------------------


@pytest.fixture
def speech_keys(tau2_settings: Settings) -> Settings:
    """Settings that name the provider plugins, with keys the stand-ins never send."""
    return tau2_settings.model_copy(
        update={
            "model_provider": ModelProvider.PLUGINS,
            "deepgram_api_key": SecretStr("stand-in"),
            "cartesia_api_key": SecretStr("stand-in"),
            "openai_api_key": SecretStr("stand-in"),
        }
    )


async def test_real_speech_hears_the_callers_sound_and_says_what_the_tts_played(
    store: Store, speech_keys: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcripts = deque([QUESTION])
    recognizers: list[KnownTranscriptsSTT] = []

    def recognizer(**plugin: Any) -> KnownTranscriptsSTT:
        recognizers.append(KnownTranscriptsSTT(transcripts, **plugin))
        return recognizers[-1]

    monkeypatch.setattr(providers.deepgram, "STT", recognizer)
    monkeypatch.setattr(providers.cartesia, "TTS", VoiceLikeTTS)
    model = ScriptedLLM(then=always_reply)
    async with voice_agent(model, store, speech_keys, real_speech=True) as agent:
        call = agent.call
        caller_states: list[str] = []
        call.session.on("user_state_changed", lambda event: caller_states.append(event.new_state))
        assert isinstance(call.microphone, AudioMicrophone)
        assert isinstance(call.session.vad, silero.VAD)
        assert agent.greeting() == GREETING
        turn = await agent.answer(QUESTION)
        tts = call.tts
    # The caller's line went out as sound: Silero heard speech, the STT a stretch of it.
    assert "speaking" in caller_states
    assert [stt.heard for stt in recognizers] == [[QUESTION]]
    assert model.turns[-1].last_user_text == QUESTION
    # The agent's words came back as the TTS's sound played, heard in step with it.
    assert isinstance(tts, VoiceLikeTTS)
    assert REPLY in tts.texts
    assert turn.said == REPLY
    assert call.speech(2).played_to_end
    assert call.speech(2).length == pytest.approx(len(REPLY.split()) * SECONDS_PER_WORD, abs=0.1)
    # Turns end on Silero's silence, in real time.
    assert turn.wait_s is not None
    assert turn.wait_s >= SILERO_MIN_SILENCE_S


async def test_real_speech_plays_in_real_time_only(store: Store, speech_keys: Settings) -> None:
    with pytest.raises(ValueError, match="real time"):
        async with voice_agent(ScriptedLLM(), store, speech_keys, speed=2.0, real_speech=True):
            pass


def test_real_speech_without_speech_keys_is_local_speech(tau2_settings: Settings) -> None:
    speech = real_call_speech(tau2_settings)
    assert (type(speech.stt), type(speech.tts)) == (LocalSTT, LocalTTS)
