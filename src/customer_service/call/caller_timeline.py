"""When the caller's words began, told apart from noise on the line.

The framework stamps a caller's turn with its first voice activity since the previous
turn ended (`started_speaking_at`). A cough or line noise is voice activity too (it can
even pause the agent, a false interruption), but it is never transcribed, so it ends no
turn: words said seconds later, after a question, inherit the noise's stamp and seem to
have begun during the question.

`CallerTimeline` keeps, for one session, when each stretch of the caller's sound began
(the caller's state turning "speaking", dated by the framework back to the onset) and
when each transcript with words arrived. The words of a turn began where the sound that
led to its first transcript began: the latest onset at or before that transcript. A
noise before it made no transcript and is passed over; a yes begun over the end of a
question is one stretch of sound, so its onset is where it truly began.

This assumes the first words of a stretch of speech are transcribed before the caller's
next separate sound begins, at least the detector's closing silence (0.55 s) after it:
streaming recognisers send interim words within a few hundred milliseconds. A slower
one could date the words from that later sound.
"""

from __future__ import annotations

import bisect
import math
import weakref
from typing import Any

from livekit.agents import AgentSession, UserInputTranscribedEvent, UserStateChangedEvent

from customer_service.call.listeners import listen

__all__ = ["KEPT_FOR_S", "CallerTimeline", "words_began"]

KEPT_FOR_S = 30 * 60.0
"""How long onsets and transcripts are kept. A turn that began earlier is judged by
the framework's own stamp, which is never later than its words."""


def words_began(
    turn_began: float, turn_received_at: float, onsets: list[float], transcripts: list[float]
) -> float:
    """When the words of one caller turn began (wall-clock seconds).

    `turn_began` is the framework's stamp, the turn's first voice activity, back-dated
    to when it truly began; `turn_received_at`, when the turn reached the agent, after
    all of its transcripts. `onsets` are when each stretch of the caller's sound began,
    as reported; `transcripts`, when each transcript with words arrived; both in order.
    Never earlier than `turn_began`, and never later than an onset that can have led to
    the turn's first words.
    """
    first_words = bisect.bisect_left(transcripts, turn_began)
    if first_words == len(transcripts) or transcripts[first_words] > turn_received_at:
        return turn_began
    since_turn_began = bisect.bisect_left(onsets, turn_began)
    until_first_words = bisect.bisect_right(onsets, transcripts[first_words])
    heard = onsets[since_turn_began:until_first_words]
    if not heard:
        return turn_began
    # The turn's first onset and the framework's stamp date the same sound: any gap
    # between them is how late onsets are reported (none, when both come from the same
    # voice activity event), and the words' onset is moved as early.
    reported_late_by = heard[0] - turn_began
    return max(turn_began, heard[-1] - reported_late_by)


_followed: weakref.WeakKeyDictionary[AgentSession[Any], CallerTimeline] = (
    weakref.WeakKeyDictionary()
)


class CallerTimeline:
    """One session's timeline of the caller's sound and words."""

    def __init__(self, *, time_scale: float = 1.0) -> None:
        self.time_scale = time_scale
        """Seconds of the session's clock to a second of a call: less than 1 on a test's
        faster clock. Every duration here is scaled by it."""
        self._onsets: list[float] = []
        self._transcripts: list[float] = []
        self._forgotten_before = -math.inf

    @classmethod
    def follow(cls, session: AgentSession[Any], *, time_scale: float = 1.0) -> CallerTimeline:
        """Starts following `session`'s caller; before its first question is asked, so
        every stretch of sound is on the timeline."""
        if session in _followed:
            raise RuntimeError("this session's caller is already followed")
        timeline = cls(time_scale=time_scale)
        listen(session, "user_state_changed", timeline._on_user_state_changed)
        listen(session, "user_input_transcribed", timeline._on_user_input_transcribed)
        _followed[session] = timeline
        return timeline

    @classmethod
    def of(cls, session: AgentSession[Any]) -> CallerTimeline:
        """The timeline of `session`'s caller, following it from now if nobody did."""
        timeline = _followed.get(session)
        return timeline if timeline is not None else cls.follow(session)

    def seconds(self, call_seconds: float) -> float:
        """`call_seconds` of a call, on the session's clock."""
        return call_seconds * self.time_scale

    def words_began(self, turn_began: float, turn_received_at: float) -> float:
        """When the words of the turn stamped `turn_began` began (see `words_began`)."""
        if turn_began < self._forgotten_before:
            return turn_began
        return words_began(turn_began, turn_received_at, self._onsets, self._transcripts)

    def _on_user_state_changed(self, event: UserStateChangedEvent) -> None:
        if event.new_state == "speaking":
            self._keep(self._onsets, event.created_at)

    def _on_user_input_transcribed(self, event: UserInputTranscribedEvent) -> None:
        if event.transcript.strip():
            self._keep(self._transcripts, event.created_at)

    def _keep(self, times: list[float], at: float) -> None:
        bisect.insort(times, at)
        cutoff = at - self.seconds(KEPT_FOR_S)
        for kept in (self._onsets, self._transcripts):
            del kept[: bisect.bisect_left(kept, cutoff)]
        self._forgotten_before = max(self._forgotten_before, cutoff)
