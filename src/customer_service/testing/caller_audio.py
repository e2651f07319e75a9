"""The caller's telephone in a voice test: a microphone that speaks the script's lines
as audio, and an earpiece that plays the agent's speech in real time.

A `Microphone` sends frames in real time, silent between the caller's lines: a line is
made ready (`prepare`), then spoken (`speak`). `FakeMicrophone` marks the frames of a
line with its `CallerSpeech`, which the fake speech models in
`customer_service.testing.speech_models` listen to; `AudioMicrophone` plays the line as
a text-to-speech model says it, for real speech models to hear. Each frame carries its
time on the microphone's clock (`FRAME_AT_KEY`), and the microphone tells the earpiece
when a line begins to sound (`on_sound`). The earpiece, `FakeSpeaker` and
`HeardWords`, is in `earpiece`. Durations here are real seconds.
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from livekit import rtc
from livekit.agents.tts import TTS
from livekit.agents.voice.io import AudioInput

from customer_service.testing.earpiece import AgentSpeech, FakeSpeaker, HeardWords

__all__ = [
    "FRAME_AT_KEY",
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
FRAME_AT_KEY = "customer_service.frame_at"
"""Where a microphone frame carries the loop time it began, on the microphone's clock."""
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
        self.on_sound: Callable[[float], None] = lambda _at: None
        """Called with the loop time each line's first frame begins, as it is sent."""

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
        frame = self._frame(self._next_at) or self.silent_frame()
        frame.userdata[FRAME_AT_KEY] = self._next_at
        return frame


@dataclass
class _Spoken:
    """A line as the microphone's clock has it: said from `began_at` to `ended_at`."""

    line: CallerSpeech
    began_at: float
    ended_at: float
    sounded: bool = False
    """Whether its first frame has been sent."""


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
        spoken = self._spoken[0]
        if not spoken.sounded:
            spoken.sounded = True
            self.on_sound(at)
        return self.voiced_frame(spoken.line)


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
        self._sounded = False  # whether the line playing has sent its first frame

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
        self._sounded = False
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
        if not self._sounded:
            self._sounded = True
            self.on_sound(at)
        if not self._playing:
            self._ended_at = at + self._frame_seconds
            self._said.set()
        return frame
