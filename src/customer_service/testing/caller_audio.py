"""The caller's telephone in a voice test: a microphone that speaks the script's lines
as audio, and an earpiece that plays the agent's speech in real time.

A `Microphone` sends frames in real time, silent between the caller's lines: a line is
made ready (`prepare`), then spoken (`speak`). `FakeMicrophone` marks the frames of a
line with its `CallerSpeech`, which the fake speech models in
`customer_service.testing.speech_models` listen to; `AudioMicrophone` plays the line as
a text-to-speech model says it, for real speech models to hear. `FakeSpeaker` plays
captured audio at its own pace, can be paused, and reports how much played when it is
cut off, as a room's audio output does; `HeardWords` receives the agent's words as
the caller hears them. Durations here are real seconds.
"""

from __future__ import annotations

import asyncio
import time
from abc import abstractmethod
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from livekit import rtc
from livekit.agents.tts import TTS
from livekit.agents.voice.io import AudioInput, AudioOutput, AudioOutputCapabilities, TextOutput

__all__ = [
    "SAMPLE_RATE",
    "SPEECH_KEY",
    "AgentSpeech",
    "AudioMicrophone",
    "CallerSpeech",
    "FakeMicrophone",
    "FakeSpeaker",
    "HeardWords",
    "Microphone",
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
    audio: list[rtc.AudioFrame] = field(default_factory=list)
    """The line as sound, frame by frame, for a microphone that plays it."""


def is_voiced(frame: rtc.AudioFrame) -> bool:
    return any(frame.data)


class Microphone(AudioInput):
    """The caller's microphone: frames in real time, one every `frame_seconds`, silent
    but while a line is spoken. `close()` ends the audio, as a hang-up does.

    Each frame has its time on the microphone's clock, and holds what the caller was
    saying at that time. A session that falls behind reads the frames it missed in a
    burst; they still hold the line where the caller said it, so the line's end and
    the silence after it reach the session in the order and length they were spoken."""

    def __init__(self, *, label: str, sample_rate: int, frame_seconds: float = 0.01) -> None:
        super().__init__(label=label)
        self._sample_rate = sample_rate
        self._samples = round(sample_rate * frame_seconds)
        self._frame_seconds = frame_seconds
        self._next_at: float | None = None
        self._closed = False

    @abstractmethod
    async def prepare(self, text: str, seconds: float) -> CallerSpeech:
        """`text` made ready to say, lasting about `seconds`."""

    @abstractmethod
    async def speak(self, line: CallerSpeech) -> float:
        """Says `line` now; returns once it has been said, with the loop time its sound
        ended on the microphone's clock."""

    @abstractmethod
    def _frame(self, at: float) -> rtc.AudioFrame | None:
        """The frame of the loop time `at`; None for silence."""

    def close(self) -> None:
        self._closed = True

    def silent_frame(self) -> rtc.AudioFrame:
        return rtc.AudioFrame.create(self._sample_rate, 1, self._samples)

    async def __anext__(self) -> rtc.AudioFrame:
        now = asyncio.get_running_loop().time()
        self._next_at = now if self._next_at is None else self._next_at + self._frame_seconds
        if self._next_at > now:
            await asyncio.sleep(self._next_at - now)
        if self._closed:
            raise StopAsyncIteration
        return self._frame(self._next_at) or self.silent_frame()


@dataclass
class _Spoken:
    """A line as the microphone's clock has it: said from `began_at` to `ended_at`."""

    line: CallerSpeech
    began_at: float
    ended_at: float


class FakeMicrophone(Microphone):
    """A microphone whose frames say nothing: those of a line hold a steady sound, and
    are marked with its `CallerSpeech` (under `SPEECH_KEY`)."""

    def __init__(self, *, frame_seconds: float = 0.01) -> None:
        super().__init__(
            label="FakeMicrophone", sample_rate=SAMPLE_RATE, frame_seconds=frame_seconds
        )
        self._spoken: deque[_Spoken] = deque()
        """Lines whose frames may not all have been read yet, oldest first."""

    async def prepare(self, text: str, seconds: float) -> CallerSpeech:
        return CallerSpeech(text, seconds)

    async def speak(self, line: CallerSpeech) -> float:
        began_at = asyncio.get_running_loop().time()
        spoken = _Spoken(line, began_at, began_at + line.seconds)
        self._spoken.append(spoken)
        try:
            await asyncio.sleep(line.seconds)
        except asyncio.CancelledError:
            spoken.ended_at = asyncio.get_running_loop().time()  # cut short: it ends here
            raise
        return spoken.ended_at

    def voiced_frame(self, line: CallerSpeech) -> rtc.AudioFrame:
        """A frame of `line`: a steady sound, marked with it."""
        return rtc.AudioFrame(
            data=_VOICED_SAMPLE * self._samples,
            sample_rate=SAMPLE_RATE,
            num_channels=1,
            samples_per_channel=self._samples,
            userdata={SPEECH_KEY: line},
        )

    def _frame(self, at: float) -> rtc.AudioFrame | None:
        while self._spoken and self._spoken[0].ended_at <= at:
            self._spoken.popleft()  # the clock only moves on
        if not self._spoken or at < self._spoken[0].began_at:
            return None
        return self.voiced_frame(self._spoken[0].line)


class AudioMicrophone(Microphone):
    """A microphone that plays each line as `voice` (a text-to-speech model) says it, in
    frames of `frame_seconds`: real sound, for real speech models to hear."""

    def __init__(self, voice: TTS[Any], *, frame_seconds: float = 0.01) -> None:
        super().__init__(
            label="AudioMicrophone", sample_rate=voice.sample_rate, frame_seconds=frame_seconds
        )
        self._voice = voice
        self._playing: deque[rtc.AudioFrame] = deque()
        self._said = asyncio.Event()
        self._ended_at = 0.0  # the loop time the last line's last frame ended

    async def prepare(self, text: str, seconds: float) -> CallerSpeech:
        # The voice sets the pace: `seconds` is what the words take in its mouth.
        sound = await self._voice.synthesize(text).collect()
        if (sound.num_channels, sound.sample_rate) != (1, self._sample_rate):
            raise ValueError(
                f"the caller's voice sent {sound.num_channels} channels at "
                f"{sound.sample_rate} Hz, not one at {self._sample_rate} Hz"
            )
        data = bytes(sound.data)
        step = self._samples * 2  # 16-bit samples
        pieces = [data[at : at + step] for at in range(0, len(data), step)]
        frames = [rtc.AudioFrame(piece, self._sample_rate, 1, len(piece) // 2) for piece in pieces]
        return CallerSpeech(text, sound.duration, audio=frames)

    async def speak(self, line: CallerSpeech) -> float:
        self._said = asyncio.Event()
        self._playing = deque(line.audio)
        if not self._playing:
            return asyncio.get_running_loop().time()
        try:
            await self._said.wait()
        finally:
            self._playing.clear()
        return self._ended_at

    def _frame(self, at: float) -> rtc.AudioFrame | None:
        if not self._playing:
            return None
        frame = self._playing.popleft()
        if not self._playing:
            self._ended_at = at + self._frame_seconds
            self._said.set()
        return frame


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
    heard_at: list[float] = field(default_factory=list)
    """Loop time each piece of `words` was heard: the synchronizer sends a word as its
    audio plays."""
    ended: bool = False
    interrupted: bool = False
    """Cut off before its end (the framework cleared the speaker)."""
    began_at: float = 0.0
    """Loop time its first frame began to play."""
    ended_at: float | None = None
    """Loop time it stopped: played out or cut off."""
    pauses: list[tuple[float, float | None]] = field(default_factory=list)
    """Loop times it was paused (a false interruption) and resumed (None: never)."""
    waited_for_audio: float = 0.0
    """Seconds it stood silent mid-speech, every frame played and the next not yet come."""
    audio: list[rtc.AudioFrame] = field(default_factory=list)
    """Its sound as it reached the earpiece, for ears that transcribe it."""

    @property
    def heard(self) -> str:
        return "".join(self.words)

    @property
    def played_to_end(self) -> bool:
        return self.ended and not self.interrupted


class FakeSpeaker(AudioOutput):
    """The caller's earpiece: plays captured audio in real time and can be paused. Run
    dry mid-speech, it waits for the next frame and plays on from there.

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
            self.speeches[-1].heard_at.append(self._now())
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
        self._play_on_after_running_dry()
        self._pushed += frame.duration
        if self._started_at is None and self._paused_at is None:
            self._start_playing()
        if self._current is not None:
            self._current.length = self._pushed
            self._current.audio.append(frame)

    def _play_on_after_running_dry(self) -> None:
        # A speaker that has played all it was given waits for the next frame and plays
        # it then: the position never runs ahead of the audio.
        if self._started_at is None or self._paused_at is not None:
            return
        waited = self._now() - self._started_at - self._paused_for - self._pushed
        if waited > 0:
            self._started_at += waited
            if self._current is not None:
                self._current.waited_for_audio += waited

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
