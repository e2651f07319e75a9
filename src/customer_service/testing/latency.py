"""Providers' latencies, for the voice seam: how long a real call waits on each model.

The voice seam's fakes answer at once. `LatencyModel` gives them the delays of real
providers, each a setting (`LATENCY_` and the field's name in upper case, or the
benchmark's options), in script seconds:

- the speech-to-text provider's final transcript after the caller's last word;
- the LLM's time to its first token, and its tokens per second after that;
- the text-to-speech provider's time to its first audio;
- the end-of-turn delay the session waits before it takes the caller's turn as over.

`voice_call_session(..., latency=...)` applies them: the fake STT's final delay, the
fake TTS's first audio, the turn handling's end-of-turn delay, and `SlowLLM` around the
call's model. The defaults are the published figures of the providers this agent runs
with by default (Deepgram Nova-3, GPT-4.1 mini, Cartesia Sonic) and the framework's own
endpointing delay.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable
from typing import Any

from livekit.agents import llm
from livekit.agents.llm import ChatContext, Tool
from livekit.agents.types import (
    APIConnectOptions,
)
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from customer_service.call.code_steps import calls_a_tool
from customer_service.pipeline.delegating import DelegatingLLM

__all__ = ["CHARS_PER_TOKEN", "VAD_SILENCE_S", "LatencyModel", "SlowLLM"]

CHARS_PER_TOKEN = 4
"""English text, as the providers' tokenizers cut it, on average."""
VAD_SILENCE_S = 0.55
"""Silero's silence before it hears the end of speech (its default, and the fake VAD's)."""


class LatencyModel(BaseSettings):
    """Each provider's delay, in seconds of the call; read from `LATENCY_*`."""

    model_config = SettingsConfigDict(
        env_prefix="LATENCY_", frozen=True, extra="ignore", use_attribute_docstrings=True
    )

    stt_final_s: float = Field(default=0.3, ge=0)
    """A streaming STT's final transcript after the speech ends (Deepgram: under 300 ms)."""
    llm_first_token_s: float = Field(default=0.5, ge=0)
    """An LLM's time to first token (GPT-4.1 mini, measured by third parties: 0.4-0.6 s)."""
    llm_tokens_per_s: float = Field(default=75.0, gt=0)
    """Its output rate after the first token (GPT-4.1 mini: about 60-90 tokens a second)."""
    tts_first_audio_s: float = Field(default=0.2, ge=0)
    """A TTS's time to first audio over the network (Cartesia Sonic: model about 90 ms)."""
    end_of_turn_s: float = Field(default=0.5, ge=0)
    """The session's endpointing delay (`min_delay`): the framework's default."""

    @property
    def floor_s(self) -> float:
        """The least a cascaded pipeline can make a caller wait after their last word, as
        livekit-agents orders a turn: the turn ends once the VAD has heard its silence and
        the endpointing delay (both counted from the last word) have passed; the model's
        request starts on the final transcript (preemptive generation), so its first token
        may come before that; the synthesis starts once the turn has ended and the first
        text has come, and its first audio follows."""
        turn_over = max(VAD_SILENCE_S, self.end_of_turn_s)
        first_text = self.stt_final_s + self.llm_first_token_s
        return max(turn_over, first_text) + self.tts_first_audio_s

    @property
    def delays_s(self) -> float:
        """The end-of-turn delay, one model's first token and one synthesis's first audio,
        one after another: the floor of a pipeline that starts nothing early."""
        return self.end_of_turn_s + self.llm_first_token_s + self.tts_first_audio_s

    def described(self) -> str:
        return (
            f"STT final {self.stt_final_s:.2f} s, LLM first token {self.llm_first_token_s:.2f} s "
            f"then {self.llm_tokens_per_s:.0f} tokens/s, TTS first audio "
            f"{self.tts_first_audio_s:.2f} s, end of turn {self.end_of_turn_s:.2f} s"
        )


class SlowLLM(DelegatingLLM):
    """`inner`, answering as slowly as `latency` says: its first chunk after the time to
    first token, then its text and tool calls at the token rate, `speed` times faster.

    Text comes a word at a time, each word as its tokens arrive. A tool call comes whole,
    once its name and arguments have streamed: the provider plugins (`inference.LLM`,
    `openai.LLM`) gather a call's argument deltas and hand the framework the call only
    when it is complete, and the framework runs a tool only from then.

    `started` holds each request's start and `answered` each first chunk's arrival (loop
    time), for counting what stood before a turn's first audio: a request the caller
    waited through answered before it; one started beside an acknowledgement did not.
    """

    def __init__(self, inner: llm.LLM[Any], latency: LatencyModel, *, speed: float) -> None:
        super().__init__(inner)
        self.latency = latency
        self.speed = speed
        self.started: list[float] = []
        self.answered: list[float] = []

    def stream(
        self,
        inner: llm.LLMStream,
        *,
        chat_ctx: ChatContext,
        tools: list[Tool],
        conn_options: APIConnectOptions,
    ) -> llm.LLMStream:
        self.started.append(asyncio.get_running_loop().time())
        return _SlowStream(self, inner, chat_ctx=chat_ctx, tools=tools, conn_options=conn_options)


class _SlowStream(llm.LLMStream):
    def __init__(
        self,
        slow: SlowLLM,
        inner: llm.LLMStream,
        *,
        chat_ctx: ChatContext,
        tools: list[Tool],
        conn_options: APIConnectOptions,
    ) -> None:
        super().__init__(slow, chat_ctx=chat_ctx, tools=tools, conn_options=conn_options)
        self._slow = slow
        self._inner = inner

    async def _run(self) -> None:
        latency, speed = self._slow.latency, self._slow.speed
        async with self._inner as chunks:
            await asyncio.sleep(latency.llm_first_token_s / speed)
            self._slow.answered.append(asyncio.get_running_loop().time())
            async for chunk in chunks:
                for piece in _pieces(chunk):
                    streaming_s = _tokens(piece) / latency.llm_tokens_per_s / speed
                    whole = calls_a_tool(piece)  # handed on complete, once streamed
                    if whole and streaming_s:
                        await asyncio.sleep(streaming_s)
                    self._event_ch.send_nowait(piece)
                    if not whole and streaming_s:
                        await asyncio.sleep(streaming_s)  # the next word's tokens

    async def _metrics_monitor_task(self, event_aiter: AsyncIterable[llm.ChatChunk]) -> None:
        # The inner stream reports the request's metrics; this one would count it twice.
        async for _ in event_aiter:
            pass


def _pieces(chunk: llm.ChatChunk) -> list[llm.ChatChunk]:
    """A chunk of text as the words a provider streams it in; anything else whole."""
    delta = chunk.delta
    if delta is None or not delta.content or delta.tool_calls:
        return [chunk]
    words = delta.content.split(" ")
    texts = [word + " " for word in words[:-1]] + [words[-1]]
    return [
        llm.ChatChunk(id=chunk.id, delta=llm.ChoiceDelta(role=delta.role, content=text))
        for text in texts
        if text
    ]


def _tokens(chunk: llm.ChatChunk) -> float:
    delta = chunk.delta
    if delta is None:
        return 0.0
    chars = len(delta.content or "") + sum(
        len(call.name) + len(call.arguments) for call in delta.tool_calls or []
    )
    return chars / CHARS_PER_TOKEN
