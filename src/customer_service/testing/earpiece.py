"""The caller's earpiece in a voice test: the agent's speech played in real time, as a
room's audio output plays it, and the agent's words as the caller hears them.

`FakeSpeaker` plays captured audio at its own pace, can be paused, and reports how much
played when it is cut off; `HeardWords` receives the words from the transcript
synchronizer. A speech can be held `seconds` before its end until the caller's next
line sounds (`FakeSpeaker.hold_before_end`): a line meant to begin over a speech's last
words then does, however late a busy machine runs the caller's script. Durations here
are real seconds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from livekit import rtc
from livekit.agents.voice.io import AudioOutput, AudioOutputCapabilities, TextOutput

__all__ = ["AgentSpeech", "FakeSpeaker", "HeardWords", "SpeechMatch"]


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
    held_for_caller: float = 0.0
    """Seconds it stood silent before its last words, held for the caller's line
    (`FakeSpeaker.hold_before_end`)."""
    waiting_for_caller: bool = False
    """Held before its last words now, until the caller's next line sounds."""
    syntheses: list[int] = field(default_factory=list)
    """The syntheses its audio came from, as numbered by the marks in their samples
    (`speech_models.FakeTTS`: the n-th text synthesised is n); none from real voices."""
    audio: list[rtc.AudioFrame] = field(default_factory=list)
    """Its sound as it reached the earpiece, for ears that transcribe it."""

    @property
    def heard(self) -> str:
        return "".join(self.words)

    @property
    def played_to_end(self) -> bool:
        return self.ended and not self.interrupted


def _synthesis_mark(frame: rtc.AudioFrame) -> int:
    """The number a fake voice marks its frames with (every sample the same positive
    value); 0 for any other sound."""
    samples = frame.data
    if not len(samples) or samples[0] <= 0 or samples[-1] != samples[0]:
        return 0
    mark = int(samples[0])
    return mark if all(sample == mark for sample in samples) else 0


SpeechMatch = Callable[[AgentSpeech], bool]
"""Whether a speech is the one a hold is for."""


@dataclass
class _Hold:
    seconds: float
    matches: SpeechMatch
    reached_at: float | None = None


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
        self._syntheses: list[int] = []
        self._hold: _Hold | None = None

    def hold_before_end(self, seconds: float, matches: SpeechMatch) -> None:
        """The next speech that `matches` stops `seconds` before its end, as if its last
        audio had not come (`AgentSpeech.waiting_for_caller`), and plays them once the
        caller's next line sounds (`caller_sounds`)."""
        self._hold = _Hold(seconds, matches)
        self._reschedule()

    def caller_sounds(self, at: float) -> None:
        """The caller's line began to sound at loop time `at`: a held speech plays its
        last seconds from then."""
        hold = self._hold
        if hold is None or hold.reached_at is None or self._current is None:
            return  # nothing held: the line begins over whatever plays
        # The position stood at the held point from when it was due there (the timer
        # that marked it may have run late) until `at`.
        assert self._started_at is not None
        due_at = self._started_at + self._paused_for + self._pushed - self._withheld()
        held = max(0.0, at - due_at)
        self._hold = None
        self._started_at += held
        self._current.held_for_caller += held
        self._current.waiting_for_caller = False
        self._reschedule()
        self._on_change()

    def _withheld(self) -> float:
        """Seconds at the end of the audio that may not play yet."""
        hold, speech = self._hold, self._current
        if hold is None or speech is None or not hold.matches(speech):
            return 0.0
        return min(hold.seconds, self._pushed)

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
        limit = self._pushed - self._withheld()
        return min(limit, until - self._started_at - self._paused_for)

    def _start_playing(self) -> None:
        self._started_at = self._now()
        self._current = AgentSpeech(
            number=len(self.speeches) + 1,
            length=self._pushed,
            began_at=self._started_at,
            syntheses=self._syntheses,
        )
        self.speeches.append(self._current)
        self.on_playback_started(created_at=time.time())
        self._on_change()

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        self._play_on_after_running_dry()
        self._pushed += frame.duration
        if (mark := _synthesis_mark(frame)) and mark not in self._syntheses:
            self._syntheses.append(mark)
        if self._started_at is None and self._paused_at is None:
            self._start_playing()
        if self._current is not None:
            self._current.length = self._pushed
            self._current.audio.append(frame)
        self._reschedule()

    def _play_on_after_running_dry(self) -> None:
        # A speaker that has played all it was given waits for the next frame and plays
        # it then: the position never runs ahead of the audio.
        if self._started_at is None or self._paused_at is not None:
            return
        if self._hold is not None and self._hold.reached_at is not None:
            return  # standing at a hold, which `caller_sounds` accounts for
        playable = self._pushed - self._withheld()
        waited = self._now() - self._started_at - self._paused_for - playable
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

    def _reschedule(self) -> None:
        if self._flushed:
            self._schedule_finish()

    def _schedule_finish(self) -> None:
        self._cancel_finish()
        if self._paused_at is not None or self._started_at is None:
            return
        withheld = self._withheld()
        remaining = max(0.0, self._pushed - withheld - self._played())
        loop = asyncio.get_running_loop()
        if withheld > 0:
            self._finish = loop.call_later(remaining, self._reach_hold)
        else:
            self._finish = loop.call_later(
                remaining, lambda: self._end(self._pushed, interrupted=False)
            )

    def _reach_hold(self) -> None:
        self._finish = None
        if self._hold is not None and self._current is not None:
            self._hold.reached_at = self._now()
            self._current.waiting_for_caller = True
            self._on_change()

    def _cancel_finish(self) -> None:
        if self._finish is not None:
            self._finish.cancel()
            self._finish = None

    def _end(self, position: float, *, interrupted: bool) -> None:
        self._cancel_finish()
        speech, self._current = self._current, None
        self._pushed, self._flushed, self._paused_for = 0.0, False, 0.0
        self._started_at = None
        self._syntheses = []
        if self._hold is not None and speech is not None and self._hold.matches(speech):
            self._hold = None  # the speech it was for has ended (cut off before it)
        if speech is not None:
            speech.waiting_for_caller = False
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
