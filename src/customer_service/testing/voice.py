"""The voice seam: the call `server.entrypoint` builds, heard and spoken to with timed audio.

`voice_call_session` runs the real `CustomerServiceAgent` on the `AgentSession` that
`server.build_session` builds for a room (same tool steps, connection options, LLM
wrapping), with fakes as its speech-to-text, text-to-speech and voice activity detection
(`speech_models`) and as the caller's microphone and earpiece (`caller_audio`). Only the
LLM is yours. The caller follows a script of timed lines (`script`); everything else is
the framework's doing: when a turn ends, whether talk-over interrupts, what the caller
heard of a reply that was cut off.

    caller = [
        Utterance("Where is my order 100101?"),  # once the greeting has played
        Utterance("Sorry, say that again?", after=AgentSays("order"), delay=0.3),
        HangUp(after=AgentStarts(4), delay=1.0),
    ]
    async with voice_call_session(my_llm, caller) as call:
        await call.finished()
        assert call.speech(2).interrupted  # cut off by the second line
        assert call.messages("assistant")[1].interrupted

`call.say(text)` speaks one line now. `speech=` replaces the fakes and the microphone
(`local_speech`): real speech hearing real sound, at speed 1.

Time: a script's durations are seconds of the call as a caller would live it; the call
runs `speed` times faster (10 by default): cue lines on what the agent does (`script`).

The session runs as in a room, with the framework's default turn handling and timers on
the script's clock (`voice_timing`): speech must last 0.5 s to interrupt the agent,
talk-over without words lets the agent resume after 2 s, the first 3 s of the agent's
first speech cannot be interrupted (echo warm-up), and words said then are never
transcribed. Turns end on silence (`vad`) unless the call's speech names the project's
turn detector (`CallSpeech.turn_detection`, for real sound), and interruption is
VAD-based, as adaptive detection needs LiveKit Cloud. Preemptive generation is on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from typing import Any, Literal

from livekit.agents import Agent, CloseEvent, ErrorEvent
from livekit.agents.llm import LLM, ChatMessage
from livekit.agents.voice import SpeechCreatedEvent, SpeechHandle, TranscriptSynchronizer
from livekit.agents.voice.agent_activity import ActivityClosedError

from customer_service.call import audit
from customer_service.call.caller_timeline import CallerTimeline
from customer_service.call.phrase_cache import PhraseCache
from customer_service.call.state import CallState
from customer_service.pipeline import listen_for_the_store
from customer_service.pipeline.resilience import speak_failures
from customer_service.server import build_session
from customer_service.settings import Settings, get_settings
from customer_service.store import Store
from customer_service.supervisor import CustomerServiceAgent
from customer_service.testing import open_demo_store, scratch_database
from customer_service.testing.earpiece import AgentSpeech, FakeSpeaker, HeardWords
from customer_service.testing.latency import LatencyModel, SlowLLM
from customer_service.testing.script import (
    RESPONSE_PAUSE,
    AgentDone,
    AgentEnds,
    AgentEndsIn,
    AgentFinishes,
    AgentSays,
    AgentStarts,
    At,
    Cue,
    HangUp,
    Immediately,
    Line,
    Moment,
    Utterance,
)
from customer_service.testing.timed_transcript import (
    CallClock,
    SaidLine,
    note_started,
    timed_transcript,
)
from customer_service.testing.voice_timing import (
    DEFAULT_SPEED,
    CallSpeech,
    scaled_timers,
    scaled_turn_handling,
    timed_fakes,
)

AgentFactory = Callable[[CallState], Agent]
"""What answers a call, given the call's state."""

__all__ = [
    "AgentDone",
    "AgentEnds",
    "AgentEndsIn",
    "AgentFinishes",
    "AgentSays",
    "AgentStarts",
    "At",
    "Cue",
    "HangUp",
    "Immediately",
    "Line",
    "Utterance",
    "VoiceCall",
    "scaled_timers",
    "scaled_turn_handling",
    "voice_call_session",
]


class VoiceCall:
    """A running voice call: the session, what the caller heard, and the caller's script."""

    def __init__(
        self,
        state: CallState,
        llm: LLM[Any],
        script: Sequence[Line],
        *,
        speed: float,
        speech: CallSpeech | None = None,
        latency: LatencyModel | None = None,
        agent: AgentFactory | None = None,
    ) -> None:
        """`speech`: the timed fakes (`timed_fakes`) unless given; `latency`: the
        providers' delays (`latency.LatencyModel`), none by default; `agent`: what
        answers the call, `CustomerServiceAgent` by default."""
        settings = state.settings
        self.speed = speed
        speech = speech or timed_fakes(settings, speed, latency)
        if latency is not None:
            llm = SlowLLM(llm, latency, speed=speed)
        self.llm = llm
        """The call's model, as the session asks it (slowed by `latency` when given)."""
        self._agent = agent or (lambda _state: CustomerServiceAgent())
        self.microphone = speech.microphone
        self.speaker = FakeSpeaker(on_change=self._notify)
        self.microphone.on_sound = self.speaker.caller_sounds  # a held speech plays on
        self.tts = speech.tts
        self.session = build_session(
            settings,
            state,
            stt=speech.stt,
            llm=speak_failures(llm, response_timeout_s=settings.llm_response_timeout_s),
            tts=self.tts,
            vad=speech.vad,
            turn_handling=scaled_turn_handling(
                speed,
                end_of_turn_s=None if latency is None else latency.end_of_turn_s,
                turn_detection=speech.turn_detection,
            ),
            timers=scaled_timers(settings, speed),
        )
        # When the caller's words began, how early an answer may, a filler's delay.
        CallerTimeline.follow(self.session, time_scale=1 / speed)
        state.first_words.time_scale = 1 / speed
        # As in a room: the transcript reaches the caller in step with the audio, so a
        # cut-off reply is stored as the words that were heard.
        self._transcript = TranscriptSynchronizer(
            next_in_chain_audio=self.speaker,
            next_in_chain_text=HeardWords(self.speaker),
            speed=speed,
        )
        self.session.input.audio = self.microphone
        self.session.output.audio = self._transcript.audio_output
        self.session.output.transcription = self._transcript.text_output

        self.speech_handles: list[SpeechHandle] = []
        """Every speech the session created, in order."""
        self.errors: list[ErrorEvent] = []
        self.close_event: CloseEvent | None = None
        self.waiting_for = ""
        """What the script is waiting for, for failure messages."""
        self.started_at = 0.0
        self.wall_started_at = 0.0
        self.lines: list[SaidLine] = []
        """The caller's lines as they were said, in order (the hang-up included)."""
        self._script = list(script)
        self._script_task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self.session.on("speech_created", self._on_speech_created)
        self.session.on("agent_state_changed", lambda _: self._notify())
        self.session.on("error", self.errors.append)
        self.session.on("close", self._on_close)

    @property
    def state(self) -> CallState:
        return self.session.userdata

    @property
    def speeches(self) -> list[AgentSpeech]:
        """The agent's speech as the caller heard it, in order (1 is the greeting)."""
        return self.speaker.speeches

    @property
    def heard(self) -> str:
        """Every word of the agent's the caller has heard, speeches separated by a space."""
        return " ".join(speech.heard for speech in self.speeches)

    @property
    def closed(self) -> bool:
        return self.close_event is not None

    def speech(self, number: int) -> AgentSpeech:
        """The agent's `number`-th stretch of speech, counted as the cues count (from 1)."""
        return self.speeches[number - 1]

    def messages(self, role: Literal["user", "assistant"]) -> list[ChatMessage]:
        return [
            item
            for item in self.session.history.items
            if isinstance(item, ChatMessage) and item.role == role
        ]

    def real(self, script_seconds: float) -> float:
        return script_seconds / self.speed

    def transcript(self) -> str:
        """The call so far in script seconds: the agent's speech and the caller's lines,
        then the caller's turns and the tools called (`timed_transcript`)."""
        clock = CallClock(self.started_at, self.wall_started_at, self.speed)
        return timed_transcript(clock, self.speeches, self.lines, self.session.history.items)

    def agent_quiet(self) -> bool:
        """The agent is listening, and none of its speech is playing or on its way (after
        a short acknowledgement the state is "listening" while the reply is written)."""
        playing = bool(self.speeches) and not self.speeches[-1].ended
        pending = self.session.current_speech
        on_its_way = pending is not None and not pending.done()
        return self.session.agent_state == "listening" and not playing and not on_its_way

    async def until(self, ready: Callable[[], bool], *, deadline: float | None = None) -> None:
        """Waits until `ready()`, the call is closed, or the loop time `deadline`."""
        loop = asyncio.get_running_loop()
        while not ready() and not self.closed:
            changed = self._changed
            timeout = None if deadline is None else deadline - loop.time()
            if timeout is not None and timeout <= 0:
                return
            with suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), timeout)

    async def wait(self, seconds: float) -> None:
        """Lets `seconds` of script time pass."""
        await asyncio.sleep(self.real(seconds))

    async def finished(self, *, give_up_after: float = 20.0) -> None:
        """Waits until every line was said and the call is quiet: no caller turn or
        agent speech in flight. `give_up_after` is real seconds, a guard against a
        script waiting for something that never happens, not a measurement."""
        try:
            async with asyncio.timeout(give_up_after):
                if self._script_task is not None:
                    await asyncio.wait([self._script_task])
                    self._script_task.result()
                await self._settled()
        except TimeoutError:
            stuck = self.waiting_for or "the session to go quiet"
            raise AssertionError(
                f"the call did not finish: waiting for {stuck}\n{self.transcript()}"
            ) from None

    async def say(self, text: str, *, seconds: float | None = None) -> SaidLine:
        """The caller says `text` into the microphone now, for `seconds` script seconds
        (by default, the words at a conversational pace), and is silent again; an empty
        `text` is a noise. Returns the line as it was said."""
        if seconds is None:
            seconds = Utterance(text).seconds
        line = await self.microphone.prepare(text, self.real(seconds))
        loop = asyncio.get_running_loop()
        said = SaidLine(len(self.lines) + 1, text, loop.time())
        self.lines.append(said)
        self._notify()
        try:
            said.ended_at = await self.microphone.speak(line)
        finally:
            if said.ended_at is None:  # cut short: the caller hung up
                said.ended_at = loop.time()
            self._notify()
        return said

    async def hang_up(self) -> None:
        """The caller hangs up: the script stops, the microphone goes dead, and the
        session closes (in a room, LiveKit closes it when the caller leaves)."""
        if self._script_task is not None and self._script_task is not asyncio.current_task():
            self._script_task.cancel()
        self.microphone.close()
        await self.session.aclose()
        # As the server's shutdown does: the audit events kept for a next write.
        await audit.end_of_call(self.state)

    async def start(self) -> None:
        self.started_at = asyncio.get_running_loop().time()
        self.wall_started_at = time.time()
        note_started(self)
        await listen_for_the_store(self.session.stt, self.state.store)
        await self.session.start(self._agent(self.state))
        self._script_task = asyncio.create_task(self._run_script(), name="caller script")

    async def close(self) -> None:
        if self._script_task is not None:
            self._script_task.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await self._script_task
        await self.hang_up()
        await self._transcript.aclose()

    async def _settled(self) -> None:
        while not self.closed:
            try:
                await self.session.wait_for_idle()
            except (ActivityClosedError, RuntimeError):
                return  # closing or closed: nothing more will happen
            quiet_since = len(self.speeches)
            await self.wait(RESPONSE_PAUSE)
            if (
                self.agent_quiet()
                and self.session.user_state != "speaking"
                and len(self.speeches) == quiet_since
            ):
                return

    async def _run_script(self) -> None:
        for number, line in enumerate(self._script, start=1):
            since = Moment(speeches=len(self.speeches), heard=len(self.heard))
            self.waiting_for = f"line {number} ({line!r})"
            await line.after.wait(self, since)
            if line.delay:
                deadline = asyncio.get_running_loop().time() + self.real(line.delay)
                await self.until(lambda: False, deadline=deadline)
            if self.closed:
                break
            if isinstance(line, HangUp):
                now = asyncio.get_running_loop().time()
                self.lines.append(SaidLine(len(self.lines) + 1, None, now))
                await self.hang_up()
                break
            await self.say(line.text, seconds=line.seconds)
        self.waiting_for = ""

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _on_speech_created(self, event: SpeechCreatedEvent) -> None:
        self.speech_handles.append(event.speech_handle)
        # Its end can come after the agent's state turned "listening" (`agent_quiet`).
        event.speech_handle.add_done_callback(lambda _: self._notify())

    def _on_close(self, event: CloseEvent) -> None:
        self.close_event = event
        self._notify()


@asynccontextmanager
async def voice_call_session(
    llm: LLM[Any],
    caller: Sequence[Line] = (),
    *,
    settings: Settings | None = None,
    database_url: str | None = None,
    store: Store | None = None,
    speed: float = DEFAULT_SPEED,
    speech: CallSpeech | None = None,
    latency: LatencyModel | None = None,
    agent: AgentFactory | None = None,
    phrases: PhraseCache | None = None,
) -> AsyncIterator[VoiceCall]:
    """A voice call answered by `CustomerServiceAgent` (or by `agent(state)`), the
    caller following `caller`.

    The script starts as the session starts (the greeting plays first); the call is
    closed when the block ends. The store and `settings` work as in `call_session`: a
    `store` given is used as it is, neither seeded nor closed here. `speech` replaces
    the timed fakes (real speech models run at `speed` 1); `latency` gives the fakes and
    the model the providers' delays (`latency.LatencyModel`). `phrases`: the phrase cache
    the call shares with others (`call.phrase_cache`); by default one of its own.
    """
    settings = settings or get_settings()
    async with AsyncExitStack() as scratch:
        if store is None:
            if not database_url:
                database_url = await scratch.enter_async_context(scratch_database())
            store = await open_demo_store(database_url)
            scratch.push_async_callback(store.close)
        state = CallState(store=store, settings=settings)
        if phrases is not None:
            state.phrases = phrases
        call = VoiceCall(
            state, llm, caller, speed=speed, speech=speech, latency=latency, agent=agent
        )
        await call.start()
        try:
            yield call
        finally:
            await call.close()
