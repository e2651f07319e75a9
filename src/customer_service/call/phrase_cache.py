"""Sentences the agent says word for word, synthesised once per voice and played from memory.

`say(session, text)` is `session.say(text)` for everything the code speaks. It splits
`text` into sentences; each one marked `fixed` (`call.fixed_sentences`) comes from the
`PhraseCache` of the call (`CallState.phrases`), the rest is synthesised as usual, and
the pieces play one after another as a single speech whose transcript is `text`:
interruption, `allow_interruptions`, `add_to_chat_ctx` and the history are the
framework's, as for any `say`. A fixed sentence not yet cached is synthesised on its
own, its audio played as it arrives and kept once whole, so its first saying is no
slower; every piece starts synthesising at once, so none waits for the one before.
Text without a fixed sentence, a call without audio (text chat, tests without a
voice) and a disabled cache take `session.say` unchanged.

A model's reply is synthesised by its agent's `tts_node`, segment by segment (a
`FlushSentinel` ends one). `reply_audio` is that node for an agent that flushes a fixed
filler ahead of the model's words (`call.latency.FirstWords`): a segment that is a
filler alone plays from the cache as well, paced, and stops where the answer is ready.

Scope: in memory, per process. LiveKit runs each call in a job process of its own, so
memory alone saves only what one call repeats (its "still there?", its "one moment",
a second opening). `SPEECH_CACHE_DIR` adds a folder the machine's job processes share
(`phrase_files`): a process reads a sentence's file the first time it says it. An entry
that cannot be read is synthesised again with one warning and written anew; the folder
never fails a call.

A synthesis goes through the framework's own path (`perform_tts_inference` with the
agent's `tts_node` and the session's text transforms), so a TTS that fails here fails
the speech as it would without the cache (the session reports the TTS error and the
call goes on), and the sentence that failed is not kept. Its other pieces were asked
for at the same time: one that arrived whole is kept, where without the cache the
framework would have stopped at the failed sentence. The cache is keyed by the TTS that
speaks (the agent's, else the session's): the one place a fallback
sits is the LLM, and a TTS's own gateway-side fallback (`inference.TTS(fallback=...)`)
is not configured.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections import Counter
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from livekit import rtc
from livekit.agents import Agent, AgentSession, ModelSettings, utils
from livekit.agents.tts import TTS
from livekit.agents.types import NOT_GIVEN, NotGivenOr
from livekit.agents.utils import is_given
from livekit.agents.voice import SpeechHandle
from livekit.agents.voice.generation import perform_tts_inference

from customer_service.call.fixed_sentences import is_fixed, sentences
from customer_service.call.phrase_files import (
    Phrase,
    UnreadablePhrase,
    Voice,
    phrase_path,
    read_phrase,
    write_phrase,
)

__all__ = ["PhraseCache", "paced", "reply_audio", "say"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Piece:
    text: str
    fixed: bool


def pieces(text: str) -> list[_Piece]:
    """`text` as its fixed sentences, each on its own, and the runs of other sentences
    between them, each run whole."""
    result: list[_Piece] = []
    for sentence in sentences(text):
        fixed = is_fixed(sentence)
        if not fixed and result and not result[-1].fixed:
            result[-1] = _Piece(f"{result[-1].text} {sentence}", fixed=False)
        else:
            result.append(_Piece(sentence, fixed))
    return result


class _Recording:
    """Audio as it arrives from one synthesis (or file), for any number of listeners."""

    def __init__(self) -> None:
        self.frames: list[rtc.AudioFrame] = []
        self.ended = False
        self.error: BaseException | None = None
        self.task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    @classmethod
    def of(cls, frames: Iterable[rtc.AudioFrame]) -> _Recording:
        recording = cls()
        recording.frames.extend(frames)
        recording.end()
        return recording

    def add(self, frame: rtc.AudioFrame) -> None:
        self.frames.append(frame)
        self._wake()

    def end(self, error: BaseException | None = None) -> None:
        self.ended, self.error = True, error
        self._wake()

    async def play(self) -> AsyncIterator[rtc.AudioFrame]:
        played = 0
        while True:
            while played < len(self.frames):
                yield self.frames[played]
                played += 1
            if self.ended:
                if self.error is not None:
                    raise self.error
                return
            await self._changed.wait()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()


@dataclass(frozen=True, slots=True)
class _Speaker:
    """Who synthesises for a speech: its agent, and the TTS that speaks for it."""

    session: AgentSession[Any]
    agent: Agent
    tts: TTS[Any]

    async def synthesis(self, text: str) -> AsyncIterator[rtc.AudioFrame]:
        """`text`'s audio as the framework makes it for `session.say(text)`."""

        async def text_once() -> AsyncIterator[str]:
            yield text

        # The framework's own node: the agents' `reply_audio` would hand a fixed sentence
        # back to the cache that is filling it.
        task, data = perform_tts_inference(
            node=functools.partial(Agent.default.tts_node, self.agent),
            input=text_once(),
            model_settings=ModelSettings(),
            text_transforms=self.session.options.tts_text_transforms,
            model=self.tts.model,
            provider=self.tts.provider,
        )
        try:
            async for frame in data.audio_ch:
                yield frame
            await task  # raises what failed the synthesis
        finally:
            await utils.aio.cancel_and_wait(task)


async def _record(recording: _Recording, frames: AsyncIterator[rtc.AudioFrame]) -> None:
    try:
        async for frame in frames:
            recording.add(frame)
    except BaseException as error:
        recording.end(error)
        if not isinstance(error, Exception):
            raise
        return
    recording.end()


class PhraseCache:
    """The audio of fixed sentences by voice, in memory and, given `folder`, on disk.
    `enabled=False`: every sentence is synthesised each time it is said, as without a
    cache."""

    def __init__(self, folder: Path | None = None, *, enabled: bool = True) -> None:
        self.folder = folder
        self.enabled = enabled
        self._phrases: dict[tuple[Voice, str], Phrase] = {}
        self._filling: dict[tuple[Voice, str], _Recording] = {}
        self.syntheses: Counter[tuple[Voice, str]] = Counter()
        """How many times each sentence was synthesised to fill the cache, by voice."""

    def __len__(self) -> int:
        return len(self._phrases)

    def held(self) -> set[str]:
        """The sentences held, for any voice."""
        return {sentence for _, sentence in self._phrases}

    def sentence(self, speaker: _Speaker, sentence: str) -> _Recording:
        """`sentence`'s audio: from memory, else the folder, else synthesised and kept. A
        sentence already being filled is heard from that one filling."""
        key = (Voice.of(speaker.tts), sentence)
        phrase = self._phrases.get(key)
        if phrase is not None:
            return _Recording.of(phrase.frames())
        filling = self._filling.get(key)
        if filling is None:
            filling = self._filling[key] = _Recording()
            # Owned by the cache, not the speech: a caller who cuts the sentence off does
            # not stop its filling, whose characters are already paid for.
            filling.task = asyncio.create_task(self._fill(key, filling, speaker))
        return filling

    async def _fill(self, key: tuple[Voice, str], filling: _Recording, speaker: _Speaker) -> None:
        voice, sentence = key
        path = None if self.folder is None else phrase_path(self.folder, voice, sentence)
        try:
            phrase = None if path is None else await self._read(path, voice)
            if phrase is not None:
                for frame in phrase.frames():
                    filling.add(frame)
                filling.end()
            else:
                self.syntheses[key] += 1
                await _record(filling, speaker.synthesis(sentence))
                phrase = None if filling.error else Phrase.recorded(filling.frames)
                if phrase is not None and path is not None:
                    await self._write(path, phrase)
            if phrase is not None:
                self._phrases[key] = phrase
        except Exception as error:
            # Never a failed call for a cache: whoever listens hears the error the
            # synthesis would have raised, or the audio already recorded.
            logger.warning("speech cache fill failed", extra={"error": type(error).__name__})
            if not filling.ended:
                filling.end(error)
        finally:
            del self._filling[key]

    async def _read(self, path: Path, voice: Voice) -> Phrase | None:
        try:
            return await asyncio.to_thread(read_phrase, path, voice)
        except UnreadablePhrase as error:
            logger.warning(
                "speech cache entry unreadable, synthesising it again",
                extra={"entry": path.name, "error": str(error)},
            )
            return None

    async def _write(self, path: Path, phrase: Phrase) -> None:
        try:
            await asyncio.to_thread(write_phrase, path, phrase)
        except OSError as error:
            logger.warning(
                "speech cache entry not written",
                extra={"entry": path.name, "error": type(error).__name__},
            )

    async def speech(
        self, session: AgentSession[Any], parts: list[_Piece]
    ) -> AsyncIterator[rtc.AudioFrame]:
        """The audio of `parts` in order; every part starts at once."""
        try:
            speaker = _speaker(session, session.current_agent)
        except RuntimeError:
            return  # the session closed before the speech could play
        if speaker is None:
            return
        recordings: list[_Recording] = []
        own: list[asyncio.Task[None]] = []
        for part in parts:
            if part.fixed:
                recordings.append(self.sentence(speaker, part.text))
                continue
            recording = _Recording()
            recording.task = asyncio.create_task(_record(recording, speaker.synthesis(part.text)))
            own.append(recording.task)
            recordings.append(recording)
        try:
            for recording in recordings:
                async for frame in recording.play():
                    yield frame
        finally:
            await utils.aio.cancel_and_wait(*own)


def _speaker(session: AgentSession[Any], agent: Agent) -> _Speaker | None:
    tts = agent.tts if is_given(agent.tts) else session.tts
    return None if tts is None else _Speaker(session, agent, tts)


async def reply_audio(
    agent: Agent,
    text: AsyncIterable[str],
    model_settings: ModelSettings,
    *,
    own_sentences: frozenset[str],
    cut: asyncio.Event | None = None,
    lead_s: float = 0.0,
) -> AsyncIterator[rtc.AudioFrame]:
    """`agent`'s `tts_node`: a segment of its reply that is one of `own_sentences` alone,
    a filler the agent flushed ahead of the model's words, plays from the call's phrase
    cache, sent `lead_s` ahead of the line and no further, and stops once `cut` is set
    (the answer it covers is ready); any other text is synthesised as the framework
    does. Text that may still turn out to be such a sentence is held until it is or is
    not; a TTS waits for a whole sentence before it speaks anyway."""
    chunks = aiter(text)
    held = ""
    async for chunk in chunks:
        held += chunk
        if not any(own.startswith(held.strip()) for own in own_sentences):
            break  # other words: the model's, or the sentence with more after it
    else:
        session: AgentSession[Any] = agent.session
        cache: PhraseCache = session.userdata.phrases  # the call's `CallState`
        speaker = _speaker(session, agent)
        own = held.strip()
        if own in own_sentences and cache.enabled and speaker is not None:
            frames = cache.sentence(speaker, own).play()
            async for frame in frames if cut is None else paced(frames, cut, lead_s):
                yield frame
            return

    async def the_text() -> AsyncIterator[str]:
        if held:
            yield held
        async for rest in chunks:
            yield rest

    async for frame in Agent.default.tts_node(agent, the_text(), model_settings):
        yield frame


async def paced(
    frames: AsyncIterator[rtc.AudioFrame], cut: asyncio.Event, lead_s: float
) -> AsyncIterator[rtc.AudioFrame]:
    """`frames` at the pace they play, `lead_s` ahead, until `cut` is set: audio already
    sent plays out, and nothing after it."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    sent = 0.0
    async for frame in frames:
        ahead = sent - (loop.time() - started)
        if ahead > lead_s:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(cut.wait(), ahead - lead_s)
        if cut.is_set():
            return
        yield frame
        sent += frame.duration


def _speaks_aloud(session: AgentSession[Any]) -> bool:
    output = session.output
    return output.audio is not None and output.audio_enabled and session.tts is not None


def say(
    session: AgentSession[Any],
    text: str,
    *,
    allow_interruptions: NotGivenOr[bool] = NOT_GIVEN,
    add_to_chat_ctx: bool = True,
) -> SpeechHandle:
    """`session.say(text, ...)`, its fixed sentences played from the call's phrase cache;
    no filler leads it: the sentence is the answer (`call.latency`)."""
    cache: PhraseCache = session.userdata.phrases  # the call's `CallState`
    parts = pieces(text)
    if not (cache.enabled and _speaks_aloud(session) and any(part.fixed for part in parts)):
        return session.say(
            text, allow_interruptions=allow_interruptions, add_to_chat_ctx=add_to_chat_ctx
        )
    return session.say(
        text,
        audio=cache.speech(session, parts),
        allow_interruptions=allow_interruptions,
        add_to_chat_ctx=add_to_chat_ctx,
    )
