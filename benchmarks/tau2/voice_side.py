"""The agent as the benchmark's user meets it over a voice line: the call the server
builds (`customer_service.testing.voice`), on a store of the benchmark's database, with
the benchmark's user as the caller. Each of the user's lines is spoken into the
microphone at a conversational pace; what comes back is what the caller heard of the
agent's speech, a reply cut off by the caller's words counting only the words heard,
and how long the caller waited for it. Turn-taking, interruptions and read-backs heard
in full are the framework's and the agent's doing, as on a real call.

The call runs `speed` times faster than a real one (`voice_agent`); every time reported
is in script seconds, seconds of the call as the caller lives it. Offline, the session
hears and speaks with the voice seam's timed fakes; with `real_speech`, with the STT and
TTS the settings configure and Silero, the caller's lines said by that TTS as sound
(`real_call_speech`), in real time.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from livekit.agents import llm

from benchmarks.tau2.agent_side import AgentTurn
from customer_service.call.state import CallState
from customer_service.pipeline import PipelineError, build_models, load_vad
from customer_service.settings import Settings, TurnDetection
from customer_service.store import Store
from customer_service.testing.caller_audio import AudioMicrophone
from customer_service.testing.script import RESPONSE_PAUSE, holds_the_line
from customer_service.testing.voice import VoiceCall, voice_call_session
from customer_service.testing.voice_timing import CallSpeech

__all__ = ["REAL_TIME", "SILENCE_LIMIT_S", "VoiceAgent", "real_call_speech", "voice_agent"]

REAL_TIME = 1.0
"""The speed of a call with a model that answers in real time: its thinking is not
scaled, so only a call at the caller's own pace waits for it as a caller would."""
SILENCE_LIMIT_S = 10.0
"""Script seconds of the agent's silence (nothing playing) after which the caller stops
waiting for its reply: long enough for a specialist's work and its one-moment notice,
short enough that a caller would speak up."""


class VoiceAgent:
    """`AgentSide` over a voice call (`benchmarks.tau2.agent_side.AgentSide`)."""

    def __init__(self, call: VoiceCall) -> None:
        self.call = call
        """The call itself: its speech as heard, the caller's lines, the session."""
        self._reported = 0  # characters of `call.heard` already returned
        self._greeting = ""

    @property
    def state(self) -> CallState:
        return self.call.state

    @property
    def ended(self) -> bool:
        """The call is over: the session closed (the agent or the caller hung up), or the
        caller was handed to a person."""
        return self.call.closed or self.state.escalated

    def greeting(self) -> str:
        """The greeting as the caller heard it."""
        return self._greeting

    async def answer(self, line: str) -> AgentTurn:
        """Says `line` as the caller, then waits as a caller does for the reply to be
        over: the agent has spoken since the line, stopped and stayed quiet a moment, or
        said nothing for `SILENCE_LIMIT_S`, or the call closed. The turn holds every word
        heard since the last one returned (a speech the line cut off counts its heard
        words), and the wait from the end of the line to the first speech begun after it."""
        call = self.call
        if call.closed:
            return AgentTurn("", None)
        before = len(call.speeches)
        said = await call.say(line)
        assert said.ended_at is not None  # a line said has ended
        await self._reply_over(before, said.ended_at)
        reply = next(
            (speech for speech in call.speeches[before:] if speech.began_at >= said.ended_at),
            None,
        )
        wait_s = None if reply is None else (reply.began_at - said.ended_at) * call.speed
        return AgentTurn(self._newly_heard(), wait_s)

    async def _reply_over(self, speeches_before: int, quiet_from: float) -> None:
        """Returns once the agent's reply is over (see `answer`); `quiet_from` is the
        loop time the caller stopped speaking."""
        call = self.call
        loop = asyncio.get_running_loop()

        def playing() -> bool:
            return bool(call.speeches) and not call.speeches[-1].ended

        def replied() -> bool:
            # A filler alone holds the line: a caller waits on for what it promised.
            spoke = len(call.speeches) > speeches_before
            return spoke and call.agent_quiet() and not holds_the_line(call.speeches[-1])

        while not call.closed:
            if replied():
                # As `AgentDone`: over once it stayed quiet for the response pause.
                pause_ends = loop.time() + call.real(RESPONSE_PAUSE)
                await call.until(lambda: not replied(), deadline=pause_ends)
                if replied():
                    return
            elif playing():
                await call.until(lambda: not playing())
            else:
                ended = [speech.ended_at for speech in call.speeches[-1:] if speech.ended_at]
                gives_up_at = max([quiet_from, *ended]) + call.real(SILENCE_LIMIT_S)
                if loop.time() >= gives_up_at:
                    return
                await call.until(lambda: replied() or playing(), deadline=gives_up_at)

    async def hear_greeting(self) -> None:
        """Waits for the greeting to be over, and keeps it as `greeting()` returns it."""
        await self._reply_over(0, self.call.started_at)
        self._greeting = self._newly_heard()

    def _newly_heard(self) -> str:
        heard = self.call.heard  # grows only at its end
        new, self._reported = heard[self._reported :], len(heard)
        return " ".join(new.split())


def real_call_speech(settings: Settings) -> CallSpeech:
    """The speech of a call in a room: the STT and TTS `settings` configure (the
    providers' keys, or LiveKit's credentials, as `build_models` reads them) and Silero,
    with a microphone that says the caller's lines with that TTS. Turns end on silence,
    as on the voice seam: the settings' turn detector is not built."""
    vad = load_vad()
    by_silence = settings.model_copy(update={"turn_detection": TurnDetection.VAD})
    models = build_models(by_silence, vad=vad)
    if models.stt is None or models.tts is None:
        raise PipelineError(
            "Real speech needs a speech-to-text and a text-to-speech model: set "
            "MODEL_PROVIDER=plugins with DEEPGRAM_API_KEY and CARTESIA_API_KEY, or "
            "MODEL_PROVIDER=inference with LIVEKIT_API_KEY and LIVEKIT_API_SECRET."
        )
    return CallSpeech(
        stt=models.stt, tts=models.tts, vad=vad, microphone=AudioMicrophone(models.tts)
    )


@asynccontextmanager
async def voice_agent(
    model: llm.LLM[Any],
    store: Store,
    settings: Settings,
    *,
    speed: float = REAL_TIME,
    real_speech: bool = False,
) -> AsyncIterator[VoiceAgent]:
    """A voice call answered on `store` (the caller's: neither seeded nor closed here),
    its greeting heard out, closed when the block ends. `speed` above `REAL_TIME` suits
    only a model that answers at once (scripted, or the offline model), and only the
    timed fakes: `real_speech` (`real_call_speech`) runs in real time."""
    if real_speech and speed != REAL_TIME:
        raise ValueError("real speech plays in real time: leave `speed` at REAL_TIME")
    speech = real_call_speech(settings) if real_speech else None
    async with voice_call_session(
        model, store=store, settings=settings, speed=speed, speech=speech
    ) as call:
        agent = VoiceAgent(call)
        await agent.hear_greeting()
        yield agent
