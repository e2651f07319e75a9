"""The caller's telephone in a voice test: a microphone that speaks the script's lines
as audio, and an earpiece that plays the agent's speech in real time.

`FakeMicrophone` sends frames in real time, silent between the caller's lines and
marked with the `CallerSpeech` while one is spoken; the fake speech models in
`customer_service.testing.speech_models` listen to those frames. `FakeSpeaker` plays
captured audio at its own pace, can be paused, and reports how much played when it is
cut off, as a room's audio output does; `HeardWords` receives the agent's words as
the caller hears them. Durations here are real seconds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from livekit import rtc
from livekit.agents.voice.io import AudioInput, AudioOutput, AudioOutputCapabilities, TextOutput

__all__ = [
    "SAMPLE_RATE",
    "SPEECH_KEY",
    "AgentSpeech",
    "CallerSpeech",
    "FakeMicrophone",
    "FakeSpeaker",
    "HeardWords",
    "is_voiced",
]

SAMPLE_RATE = 16000
SPEECH_KEY = "customer_service.caller_speech"
"""Where a microphone frame carries the words being spoken in it."""
_VOICED_SAMPLE = (1000).to_bytes(2, "little", signed=True)


@dataclass(eq=False)
class CallerSpeech:
    """One line the caller says into the microphone: its words and how long it lasts."""

    text: str
    seconds: float


def is_voiced(frame: rtc.AudioFrame) -> bool:
    return any(frame.data)


class FakeMicrophone(AudioInput):
    """The caller's microphone: one frame every `frame_seconds` of real time, silent
    unless `speaking` holds a line. `close()` ends the audio, as a hang-up does."""

    def __init__(self, *, frame_seconds: float = 0.01) -> None:
        super().__init__(label="FakeMicrophone")
        self.speaking: CallerSpeech | None = None
        self._samples = round(SAMPLE_RATE * frame_seconds)
        self._frame_seconds = frame_seconds
        self._next_at: float | None = None
        self._closed = False

    def close(self) -> None:
        self._closed = True

    async def __anext__(self) -> rtc.AudioFrame:
        now = asyncio.get_running_loop().time()
        self._next_at = now if self._next_at is None else self._next_at + self._frame_seconds
        if self._next_at > now:
            await asyncio.sleep(self._next_at - now)
        if self._closed:
            raise StopAsyncIteration
        speech = self.speaking
        if speech is None:
            return rtc.AudioFrame.create(SAMPLE_RATE, 1, self._samples)
        return rtc.AudioFrame(
            data=_VOICED_SAMPLE * self._samples,
            sample_rate=SAMPLE_RATE,
            num_channels=1,
            samples_per_channel=self._samples,
            userdata={SPEECH_KEY: speech},
        )


@dataclass
class AgentSpeech:
    """One stretch of agent audio as the caller heard it, from its first played frame."""

    number: int
    """1 for the first stretch of the call (the greeting), 2 for the next, ..."""
    length: float = 0.0
    """Seconds of audio it had when it ended (or so far)."""
    played: float = 0.0
    """Seconds of it that played, set when it ends."""
    words: list[str] = field(default_factory=list)
    """Its words as they were heard, in the pieces the transcript synchronizer sent."""
    ended: bool = False
    interrupted: bool = False
    """Cut off before its end (the framework cleared the speaker)."""
    began_at: float = 0.0
    """Loop time its first frame began to play."""
    ended_at: float | None = None
    """Loop time it stopped: played out or cut off."""
    pauses: list[tuple[float, float | None]] = field(default_factory=list)
    """Loop times it was paused (a false interruption) and resumed (None: never)."""

    @property
    def heard(self) -> str:
        return "".join(self.words)

    @property
    def played_to_end(self) -> bool:
        return self.ended and not self.interrupted


class FakeSpeaker(AudioOutput):
    """The caller's earpiece: plays captured audio in real time and can be paused.

    Each flushed segment ends with `on_playback_finished` once its audio has played, or
    at once with the position reached when `clear_buffer` cuts it off. `on_change` is
    called whenever `speeches` or the heard words change.
    """

    def __init__(self, on_change: Callable[[], None] = lambda: None) -> None:
        super().__init__(label="FakeSpeaker", capabilities=AudioOutputCapabilities(pause=True))
        self.speeches: list[AgentSpeech] = []
        self._on_change = on_change
        self._current: AgentSpeech | None = None
        self._pushed = 0.0
        self._started_at: float | None = None  # loop time the segment began to play
        self._paused_at: float | None = None
        self._paused_for = 0.0
        self._flushed = False
        self._finish: asyncio.TimerHandle | None = None

    def hear_words(self, text: str) -> None:
        if self.speeches:
            self.speeches[-1].words.append(text)
            self._on_change()

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    def _played(self) -> float:
        if self._started_at is None:
            return 0.0
        until = self._paused_at if self._paused_at is not None else self._now()
        return min(self._pushed, until - self._started_at - self._paused_for)

    def _start_playing(self) -> None:
        self._started_at = self._now()
        self._current = AgentSpeech(
            number=len(self.speeches) + 1, length=self._pushed, began_at=self._started_at
        )
        self.speeches.append(self._current)
        self.on_playback_started(created_at=time.time())
        self._on_change()

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        self._pushed += frame.duration
        if self._current is not None:
            self._current.length = self._pushed
        if self._started_at is None and self._paused_at is None:
            self._start_playing()

    def flush(self) -> None:
        super().flush()
        if self._pushed > 0:
            self._flushed = True
            self._schedule_finish()

    def clear_buffer(self) -> None:
        if self._pushed > 0:
            self._end(self._played(), interrupted=True)

    def pause(self) -> None:
        super().pause()
        if self._paused_at is None:
            self._paused_at = self._now()
            if self._current is not None:
                self._current.pauses.append((self._paused_at, None))
        self._cancel_finish()

    def resume(self) -> None:
        super().resume()
        if self._paused_at is not None:
            if self._started_at is not None:
                self._paused_for += self._now() - self._paused_at
            if self._current is not None and self._current.pauses:
                paused_at, resumed_at = self._current.pauses[-1]
                if resumed_at is None:
                    self._current.pauses[-1] = (paused_at, self._now())
            self._paused_at = None
        if self._started_at is None and self._pushed > 0:
            self._start_playing()
        if self._flushed:
            self._schedule_finish()

    def _schedule_finish(self) -> None:
        self._cancel_finish()
        if self._paused_at is None:
            remaining = max(0.0, self._pushed - self._played())
            self._finish = asyncio.get_running_loop().call_later(
                remaining, lambda: self._end(self._pushed, interrupted=False)
            )

    def _cancel_finish(self) -> None:
        if self._finish is not None:
            self._finish.cancel()
            self._finish = None

    def _end(self, position: float, *, interrupted: bool) -> None:
        self._cancel_finish()
        speech, self._current = self._current, None
        self._pushed, self._flushed, self._paused_for = 0.0, False, 0.0
        self._started_at = None
        if speech is not None:
            speech.played, speech.ended, speech.interrupted = position, True, interrupted
            speech.ended_at = self._now()
        self.on_playback_finished(playback_position=position, interrupted=interrupted)
        self._on_change()


class HeardWords(TextOutput):
    """The end of the transcript chain: the agent's words as the caller hears them."""

    def __init__(self, speaker: FakeSpeaker) -> None:
        super().__init__(label="HeardWords", next_in_chain=None)
        self._speaker = speaker

    async def capture_text(self, text: str) -> None:
        self._speaker.hear_words(text)

    def flush(self) -> None:
        pass
