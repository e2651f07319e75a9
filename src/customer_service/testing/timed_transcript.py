"""A voice call as a reader follows it: who spoke when, in script seconds.

A failing voice assertion is about timing more often than about words (was the question
heard out, did the caller start before it ended, what did a noise pause), so the
transcript a voice test prints puts every stretch of the agent's speech and every line
of the caller's script on one clock, with the caller's turns as the agent received them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from livekit.agents.llm import ChatItem, ChatMessage, FunctionCall, FunctionCallOutput

from customer_service.testing.earpiece import AgentSpeech

__all__ = [
    "CallClock",
    "SaidLine",
    "Transcribed",
    "note_started",
    "recording_calls",
    "timed_transcript",
]


class Transcribed(Protocol):
    def transcript(self) -> str: ...


_started_calls: ContextVar[list[Transcribed] | None] = ContextVar("started_calls", default=None)


@contextmanager
def recording_calls() -> Iterator[list[Transcribed]]:
    """Inside the block (this context, and the tasks started from it), every voice call
    started is added to the list yielded: a test suite can print the transcripts of a
    failed test's calls."""
    calls: list[Transcribed] = []
    token = _started_calls.set(calls)
    try:
        yield calls
    finally:
        _started_calls.reset(token)


def note_started(call: Transcribed) -> None:
    """A voice call started: recorded, inside a `recording_calls` block."""
    if (started := _started_calls.get()) is not None:
        started.append(call)


@dataclass(slots=True)
class SaidLine:
    """One line of the caller's script, as it was said (or the hang-up)."""

    number: int
    """Its place in the script, from 1."""
    text: str | None
    """Its words; empty for a noise, None for the hang-up."""
    began_at: float
    """Loop time it began."""
    ended_at: float | None = None
    """Loop time it ended; None while it is being said, and for the hang-up."""


@dataclass(frozen=True, slots=True)
class CallClock:
    """Where the call's script seconds start, on the loop's and the wall's clocks."""

    loop_started_at: float
    wall_started_at: float
    speed: float

    def from_loop(self, at: float) -> float:
        return (at - self.loop_started_at) * self.speed

    def from_wall(self, at: float) -> float:
        return (at - self.wall_started_at) * self.speed


def _span(clock: CallClock, began_at: float, ended_at: float | None) -> str:
    ended = "   ..." if ended_at is None else f"{clock.from_loop(ended_at):6.2f}"
    return f"{clock.from_loop(began_at):6.2f} - {ended}"


def _agent_row(clock: CallClock, speech: AgentSpeech) -> str:
    notes = [
        f"paused {clock.from_loop(paused):.2f}"
        + ("" if resumed is None else f" to {clock.from_loop(resumed):.2f}")
        for paused, resumed in speech.pauses
    ]
    if speech.waited_for_audio:
        notes.append(f"waited {speech.waited_for_audio * clock.speed:.2f} s for audio")
    if speech.held_for_caller:
        held = speech.held_for_caller * clock.speed
        notes.append(f"held {held:.2f} s before its last words for the caller's line")
    if not speech.ended:
        notes.append("still playing")
    elif speech.interrupted:
        notes.append(
            f"cut off after {speech.played * clock.speed:.2f} of "
            f"{speech.length * clock.speed:.2f} s"
        )
    else:
        notes.append("played to the end")
    span = _span(clock, speech.began_at, speech.ended_at)
    return f'{span}  agent {speech.number}: "{speech.heard}" ({"; ".join(notes)})'


def _caller_row(clock: CallClock, line: SaidLine) -> str:
    if line.text is None:
        return f"{clock.from_loop(line.began_at):6.2f}{'':11}caller line {line.number}: hangs up"
    words = f'"{line.text}"' if line.text else "(a noise: no words)"
    return f"{_span(clock, line.began_at, line.ended_at)}  caller line {line.number}: {words}"


def _history_row(clock: CallClock, item: ChatItem) -> str | None:
    if isinstance(item, FunctionCall):
        return f"  {clock.from_wall(item.created_at):6.2f}  tool call {item.name}({item.arguments})"
    if isinstance(item, FunctionCallOutput):
        outcome = "error" if item.is_error else "output"
        return f"  {clock.from_wall(item.created_at):6.2f}  {item.name} {outcome}: {item.output!r}"
    if not isinstance(item, ChatMessage) or item.role != "user":
        return None
    began = item.metrics.get("started_speaking_at")
    ended = item.metrics.get("stopped_speaking_at")
    if began is None:
        when = "no timing (typed, or not measured)"
    else:
        when = f"turn began {clock.from_wall(began):.2f}"
        if ended is not None:
            when += f", speech ended {clock.from_wall(ended):.2f}"
    return f'  {clock.from_wall(item.created_at):6.2f}  caller turn ({when}): "{item.text_content}"'


def timed_transcript(
    clock: CallClock,
    speeches: Sequence[AgentSpeech],
    lines: Sequence[SaidLine],
    history: Sequence[ChatItem],
) -> str:
    """The call so far: the agent's speech and the caller's lines in the order they
    began, then the caller's turns and the tool calls in the session's history."""
    rows = sorted(
        [(speech.began_at, _agent_row(clock, speech)) for speech in speeches]
        + [(line.began_at, _caller_row(clock, line)) for line in lines],
        key=lambda row: row[0],
    )
    return "\n".join(
        [
            f"The call in script seconds (it ran {clock.speed:g} times faster):",
            *(row for _, row in rows),
            "The caller's turns and the tools called, as the session's history has them:",
            *(row for item in history if (row := _history_row(clock, item)) is not None),
        ]
    )
