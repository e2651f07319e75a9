"""Silence on the line while the agent works.

A reply that follows a tool call of the caller's turn (a tool's result to put into
words, or a specialist that reads what the caller already said) would keep the caller
waiting for a second model request's first token. `FirstWords` starts that reply with a
short acknowledgement, flushed to speech before the model's words and played from the
phrase cache (the agents' `tts_node` is `phrase_cache.reply_audio`), so the caller hears
something as soon as the tool's work is done; the model's words follow in the same
speech. Where the code can tell from the caller's words that the reply will start work
on them (the identity specialist hearing details to check), a short acknowledgement
comes at the start of the reply's first request, before the model has read them. A
sentence the code composes after such a tool call (a read-back, a result put into words
by the tool itself) would keep them waiting for its synthesis instead:
`phrase_cache.say` leads it with the same acknowledgement (`FirstWords.leading`), which
plays from the cache while the sentence synthesises. It is said only on a voice line,
once per caller turn, and only while nothing has sounded since the caller began to
speak: a reply that already said something, or a caller talking, gets none.

A tool that waits on the store (or anything but the caller) past `SLOW_STEP_NOTICE_S`
has the caller hear `ONE_MOMENT`, once per step. While a specialist runs it speaks for
itself, so the clock stops; it starts again when the specialist is done and the tool
goes on to its write.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

from livekit.agents import (
    AgentSession,
    AgentStateChangedEvent,
    FlushSentinel,
    SpeechCreatedEvent,
    UserStateChangedEvent,
)

from customer_service.call.code_steps import calls_a_tool
from customer_service.call.empty_replies import Reply, ReplyChunk
from customer_service.call.fixed_sentences import fixed, is_fixed, sentences
from customer_service.call.listeners import listen
from customer_service.call.phrase_cache import say

__all__ = [
    "ALL_RIGHT",
    "CHECKING_DETAILS",
    "HOLDING_PHRASES",
    "ONE_MOMENT",
    "THANKS",
    "FirstWords",
    "SlowStepNotice",
]

ONE_MOMENT = fixed("One moment, please.")
ALL_RIGHT = fixed("All right.")
"""The acknowledgement before a reply that follows a tool call of the caller's turn."""
CHECKING_DETAILS = fixed("Thanks, let me check.")
"""The identity specialist's acknowledgement, while the details it heard are checked."""
THANKS = fixed("Thanks.")
"""The identity specialist's acknowledgement of details the caller has just given, said
as their turn ends: short, so the answer that follows is not held back by it."""
HOLDING_PHRASES = frozenset({ALL_RIGHT, CHECKING_DETAILS, ONE_MOMENT, THANKS})
"""What the agent says to hold the line: heard alone, the caller's answer is still to
come."""


class FirstWords:
    """Per call (`CallState.first_words`): whether the caller has heard anything since
    they began to speak, and whether a model's tool call has run since; together they
    owe an acknowledgement."""

    def __init__(self) -> None:
        self._session: AgentSession[Any] | None = None
        self._caller_began = -math.inf
        """When the caller last began to speak (monotonic); never, on a text-only call."""
        self._sounded = -math.inf
        """When the agent last began to speak, or to say a sentence of its own."""
        self._tool_called = -math.inf
        """When a model's reply last called a tool."""

    def follow(self, session: AgentSession[Any]) -> None:
        """Starts following the call's session (`server.build_session` does)."""
        self._session = session
        listen(session, "user_state_changed", self._on_user_state_changed)
        listen(session, "agent_state_changed", self._on_agent_state_changed)
        listen(session, "speech_created", self._on_speech_created)

    @property
    def acknowledgement_owed(self) -> bool:
        """The caller spoke by voice and has stopped; a tool called since has their reply
        waiting for another model request, and they have heard nothing yet."""
        session, began = self._session, self._caller_began
        caller_talking = session is not None and session.user_state == "speaking"
        return self._tool_called > began > self._sounded and not caller_talking

    def _acknowledged(self, *, at_once: bool = False) -> bool:
        """Whether an acknowledgement is owed; if so, it counts as said from now.
        `at_once`: owed without a tool call, to a voice turn that has heard nothing yet,
        even while the caller is still finishing it: the reply may be written ahead
        (preemptive generation), and its audio waits for the turn's end."""
        unanswered = self._caller_began > self._sounded
        if not (self.acknowledgement_owed or (at_once and unanswered)):
            return False
        self._sounded = time.monotonic()
        return True

    def leading(self, text: str) -> str:
        """`text`, about to be said by the code, led by the acknowledgement when one is
        owed and `text` starts with a sentence to synthesise (a fixed one plays from the
        cache at once, and needs none)."""
        first = next(iter(sentences(text)), None)
        if first is None or is_fixed(first) or not self._acknowledged():
            return text
        return f"{ALL_RIGHT} {text}"

    async def reply(
        self, reply: Reply, *, acknowledgement: str = ALL_RIGHT, at_once: str | None = None
    ) -> AsyncIterator[ReplyChunk]:
        """`reply`, a model's, led by `acknowledgement` when one is owed; its tool calls
        are noted. The acknowledgement is flushed to speech at once, so it plays while
        the model writes; one reply with it, so tools run without waiting for its audio.
        `at_once`: the code knows this reply starts work on the caller's words (a check
        of the details they gave), so this acknowledgement is owed before any tool call."""
        if self._acknowledged():
            said: str | None = acknowledgement
        elif at_once is not None and self._acknowledged(at_once=True):
            said = at_once
        else:
            said = None
        if said is not None:
            yield f"{said} "  # the model's words follow in the same message
            yield FlushSentinel()
        async for chunk in reply:
            if calls_a_tool(chunk):
                self._tool_called = time.monotonic()
            yield chunk

    def _on_user_state_changed(self, event: UserStateChangedEvent) -> None:
        if event.new_state == "speaking":
            self._caller_began = time.monotonic()

    def _on_agent_state_changed(self, event: AgentStateChangedEvent) -> None:
        if event.new_state == "speaking":
            self._sounded = time.monotonic()

    def _on_speech_created(self, event: SpeechCreatedEvent) -> None:
        # A sentence the code said (`say`) will sound; a model's reply may be tool calls
        # only, so it counts once its audio begins.
        if event.source == "say":
            self._sounded = time.monotonic()


class SlowStepNotice:
    """Per call: the running tools, and the timer that fires the notice."""

    def __init__(self, delay_s: float) -> None:
        self._delay_s = delay_s
        self._running = 0
        self._paused = 0
        self._session: AgentSession[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None

    @contextmanager
    def working(self, session: AgentSession[Any], *, enabled: bool = True) -> Iterator[None]:
        """Around one tool's work: the notice comes if it outlasts the delay. A tool
        that speaks for itself while it waits (`enabled=False`) holds the notice off
        for as long as it runs, like a specialist."""
        if not enabled:
            with self.held_off():
                yield
            return
        self._session = session
        self._running += 1
        self._arm()
        try:
            yield
        finally:
            self._running -= 1
            if self._running == 0:
                self._disarm()

    @contextmanager
    def held_off(self) -> Iterator[None]:
        """Around a specialist's run, or a tool that speaks for itself: someone is
        talking with the caller, so no notice is due."""
        self._paused += 1
        self._disarm()
        try:
            yield
        finally:
            self._paused -= 1
            self._arm()

    def _arm(self) -> None:
        if self._timer is None and self._running and not self._paused:
            self._timer = asyncio.get_running_loop().call_later(self._delay_s, self._fire)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        session = self._session
        if session is None or not self._running or self._paused:
            return
        if session.agent_state == "speaking":
            return  # the caller is hearing something already
        try:
            say(session, ONE_MOMENT, add_to_chat_ctx=False)
        except RuntimeError:
            return  # the session is closing
