"""Silence on the line while the agent works, and the fillers that hold it.

A reply that follows a tool call of the caller's turn (a tool's result to put into
words, or a specialist that reads what the caller already said) waits for a second model
request's first token. `FirstWords` holds the line then with a filler, chosen by what
the caller just did (`call.fillers`) and played from the phrase cache, but only while
the answer is truly awaited, and never in its way:

- it starts only once `FILLER_DELAY_S` has passed with nothing from the model: a reply
  whose first words or tool call come sooner is said without one;
- it is flushed to speech as a segment of its own, which the agents' `tts_node`
  (`phrase_cache.reply_audio`) plays paced, a little ahead of the line; the reply's first
  words cut it there (`filler_cut`), so its synthesis starts at once and the caller
  hears the answer as soon as it is ready, the filler cut short or whole;
- where code can tell from the caller's words that the reply starts work on them (the
  identity specialist hearing details to check), the filler is owed before any tool
  call, and comes at once (`at_once`): a check, and what follows it, is a wait no
  answer outruns.

A sentence the code composes (a read-back, a question, a result the tool puts into
words) gets no filler: it is the answer, and its synthesis takes less than any filler
would. A tool that says its result itself (an order's status) notes it
(`result_said`): the model's reply to that result keeps only its tool calls (a second
request in the caller's line), and without one is the closing question, so the result
is never said twice and no model request stands before it. A filler is said on a voice
line only, once per caller turn, and only while nothing has sounded since the caller
began to speak.

A tool that waits on the store (or anything but the caller) past `SLOW_STEP_NOTICE_S`
has the caller hear `ONE_MOMENT`, once per step. While a specialist runs it speaks for
itself, so the clock stops; it starts again when the specialist is done and the tool
goes on to its write.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from livekit import rtc
from livekit.agents import (
    Agent,
    AgentSession,
    AgentStateChangedEvent,
    FlushSentinel,
    ModelSettings,
    SpeechCreatedEvent,
    UserStateChangedEvent,
    llm,
)

from customer_service.call.code_steps import calls_a_tool
from customer_service.call.empty_replies import Reply, ReplyChunk, reaches_the_caller
from customer_service.call.fillers import FillerChoice
from customer_service.call.listeners import listen
from customer_service.call.phrase_cache import reply_audio, say
from customer_service.call.wording import ALL_RIGHT, ANYTHING_ELSE, FILLERS, ONE_MOMENT, THANKS

__all__ = [
    "ALL_RIGHT",
    "FILLERS",
    "FILLER_DELAY_S",
    "FILLER_LEAD_S",
    "HOLDING_PHRASES",
    "ONE_MOMENT",
    "THANKS",
    "FirstWords",
    "SlowStepNotice",
]

HOLDING_PHRASES = FILLERS
"""What the agent says to hold the line: heard alone, the caller's answer is still to
come."""
FILLER_DELAY_S = 0.3
"""Seconds of a reply's wait before a filler starts: a shorter pause is not heard as a
wait, and an answer ready by then needs no filler."""
FILLER_LEAD_S = 0.2
"""Seconds of a filler's audio sent ahead of the line: about a synthesis's first audio,
so the answer's first words, synthesised from the moment they cut the filler, are ready
as its last sent audio ends."""


class _Ended:
    """The end of a reply read ahead, with what ended it."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error


class FirstWords:
    """Per call (`CallState.first_words`): whether the caller has heard anything since
    they began to speak, and whether a model's tool call has run since; together they
    owe a filler. `enabled=False`: no filler at all (a benchmark's comparison)."""

    def __init__(self) -> None:
        self.enabled = True
        self.time_scale = 1.0
        """Real seconds per call second: below 1 in a call played faster than life."""
        self.choice = FillerChoice()
        self._session: AgentSession[Any] | None = None
        self._caller_began = -math.inf
        """When the caller last began to speak (monotonic); never, on a text-only call."""
        self._sounded = -math.inf
        """When the agent last began to speak, or to say a sentence of its own."""
        self._tool_called = -math.inf
        """When a model's reply last called a tool."""
        self.filler_cut = asyncio.Event()
        """Set when the answer the last filler covers is ready: its audio stops there."""
        self._filler_to_play: str | None = None
        """The filler just flushed, whose segment is yet to reach the speech node."""
        self._said_results: set[str] = set()
        """The tool calls whose result the code said to the caller itself."""

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

    def _owed(self, *, at_once: bool) -> bool:
        """Whether a filler is owed now. `at_once`: owed without a tool call, to a voice
        turn that has heard nothing yet, even while the caller is still finishing it: the
        reply may be written ahead (preemptive generation), and its audio waits for the
        turn's end."""
        if not self.enabled:
            return False
        unanswered = self._caller_began > self._sounded
        return self.acknowledgement_owed or (at_once and unanswered)

    def result_said(self, call_id: str) -> None:
        """The result of tool call `call_id` was said to the caller by code."""
        self._said_results.add(call_id)

    def _follows_said_results(self, chat_ctx: llm.ChatContext | None) -> bool:
        """Whether the reply asked for follows only tool results the code said (and
        duplicates of them in the same reply, which get the same output)."""
        outputs: list[llm.FunctionCallOutput] = []
        for item in reversed(chat_ctx.items if chat_ctx is not None else []):
            if not isinstance(item, llm.FunctionCallOutput):
                break
            outputs.append(item)
        said = {out.output for out in outputs if out.call_id in self._said_results}
        return bool(said) and all(out.output in said for out in outputs)

    def audio(
        self, agent: Agent, text: AsyncIterable[str], model_settings: ModelSettings
    ) -> AsyncIterator[rtc.AudioFrame]:
        """The `tts_node` of an agent whose replies go through `reply`: a segment that is
        a filler plays from the phrase cache, the one just flushed until the answer cuts
        it (a model's words that happen to be a filler play whole)."""
        cut = self.filler_cut if self._filler_to_play is not None else None
        self._filler_to_play = None
        return reply_audio(
            agent,
            text,
            model_settings,
            own_sentences=FILLERS,
            cut=cut,
            lead_s=FILLER_LEAD_S * self.time_scale,
        )

    async def reply(
        self, reply: Reply, *, chat_ctx: llm.ChatContext | None = None, at_once: bool = False
    ) -> AsyncIterator[ReplyChunk]:
        """`reply`, a model's, held by a filler when one is owed and the model has sent
        nothing for `FILLER_DELAY_S`; its tool calls are noted. The filler is flushed to
        speech on its own, so it plays while the model writes, and the reply's first
        words cut it (`filler_cut`). `chat_ctx`: the reply's, whose last caller turn
        chooses the filler; `at_once`: the code knows this reply starts work on the
        caller's words (a check of the details they gave), so a filler is owed before
        any tool call."""
        if self._follows_said_results(chat_ctx):
            reply = _tool_calls_or_closing(reply)
        owed = self._owed(at_once=at_once)
        if not owed:
            async for chunk in reply:
                if calls_a_tool(chunk):
                    self._tool_called = time.monotonic()
                yield chunk
            return
        ahead: asyncio.Queue[ReplyChunk | _Ended] = asyncio.Queue()
        reading = asyncio.create_task(_read_ahead(reply, ahead))
        loop = asyncio.get_running_loop()
        # Owed at once, the filler needs no delay: the reply starts work on the caller's
        # words (a check, then what follows it), which no answer outruns.
        delay_s = 0.0 if at_once else FILLER_DELAY_S
        due = loop.time() + delay_s * self.time_scale
        filler_said = False
        try:
            while True:
                waiting = owed and not filler_said
                try:
                    if not waiting:
                        item = await ahead.get()
                    elif due > loop.time():
                        item = await asyncio.wait_for(ahead.get(), due - loop.time())
                    else:
                        item = ahead.get_nowait()  # due now: only what already came
                except (TimeoutError, asyncio.QueueEmpty):
                    filler = None
                    if self._owed(at_once=at_once):
                        filler = self.choice.next(_last_caller_words(chat_ctx))
                    if filler is None:
                        owed = False  # something sounded meanwhile, or none fits
                        continue
                    filler_said = True
                    self._sounded = time.monotonic()
                    self.filler_cut = asyncio.Event()
                    self._filler_to_play = filler
                    yield f"{filler} "
                    yield FlushSentinel()  # the model's words follow in the same message
                    continue
                if isinstance(item, _Ended):
                    if item.error is not None:
                        raise item.error
                    return
                if reaches_the_caller(item):
                    if filler_said and not calls_a_tool(item):
                        self.filler_cut.set()  # the answer's words: a tool's work is no answer
                    owed = False  # the answer, or a tool's work, is under way
                if calls_a_tool(item):
                    self._tool_called = time.monotonic()
                yield item
        finally:
            reading.cancel()
            with suppress(asyncio.CancelledError):
                await reading

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


def _last_caller_words(chat_ctx: llm.ChatContext | None) -> str:
    if chat_ctx is None:
        return ""
    for item in reversed(chat_ctx.items):
        if isinstance(item, llm.ChatMessage) and item.role == "user":
            return item.text_content or ""
    return ""


async def _tool_calls_or_closing(reply: Reply) -> AsyncIterator[ReplyChunk]:
    """A reply to results the caller has heard already: its tool calls only, and the
    closing question when it makes none. Its words (the results again, or an apology in
    their place) are not said."""
    called = False
    async for chunk in reply:
        if isinstance(chunk, llm.ChatChunk) and calls_a_tool(chunk):
            assert chunk.delta is not None  # calls_a_tool: a delta with tool calls
            called = True
            yield llm.ChatChunk(
                id=chunk.id,
                delta=llm.ChoiceDelta(role="assistant", tool_calls=chunk.delta.tool_calls),
            )
    if not called:
        yield ANYTHING_ELSE


async def _read_ahead(reply: Reply, into: asyncio.Queue[ReplyChunk | _Ended]) -> None:
    """Reads `reply` into `into` as it comes, ending with `_Ended`."""
    try:
        async for chunk in reply:
            into.put_nowait(chunk)
    except BaseException as error:
        into.put_nowait(_Ended(error))
        if not isinstance(error, Exception):
            raise
        return
    into.put_nowait(_Ended())


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
