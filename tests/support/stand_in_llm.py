"""A small stand-in language model for tests of what a failing model does to a call.

It sends fixed chunks on every request, then raises an error or hangs, if told to, and
records its requests, attempts, prewarm and close.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Never

from livekit.agents import APIConnectOptions, llm
from livekit.agents.llm import ChatContext, Tool, ToolChoice
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, NotGivenOr


class StandInLLM(llm.LLM[Never]):
    """Sends `chunks` on every request, then raises `error` or hangs, if told to."""

    def __init__(
        self,
        chunks: Iterable[llm.ChatChunk] = (),
        *,
        error: Exception | None = None,
        hang: bool = False,
    ) -> None:
        super().__init__()
        self.chunks = list(chunks)
        self.error = error
        self.hang = hang
        self.requests: list[APIConnectOptions] = []
        """The connection options of each `chat` call."""
        self.attempts = 0
        """Runs of a request's body, retries included."""
        self.prewarmed = False
        self.closed = False

    @property
    def model(self) -> str:
        return "stand-in-model"

    @property
    def provider(self) -> str:
        return "stand-in-provider"

    def chat(
        self,
        *,
        chat_ctx: ChatContext,
        tools: list[Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: NotGivenOr[bool] = NOT_GIVEN,
        tool_choice: NotGivenOr[ToolChoice] = NOT_GIVEN,
        extra_kwargs: NotGivenOr[dict[str, Any]] = NOT_GIVEN,
    ) -> llm.LLMStream:
        self.requests.append(conn_options)
        return StandInStream(self, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options)

    def prewarm(self, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.prewarmed = True

    async def aclose(self) -> None:
        self.closed = True
        await super().aclose()


class StandInStream(llm.LLMStream):
    def __init__(
        self,
        stand_in: StandInLLM,
        *,
        chat_ctx: ChatContext,
        tools: list[Tool],
        conn_options: APIConnectOptions,
    ) -> None:
        super().__init__(stand_in, chat_ctx=chat_ctx, tools=tools, conn_options=conn_options)
        self._stand_in = stand_in

    async def _run(self) -> None:
        self._stand_in.attempts += 1
        for chunk in self._stand_in.chunks:
            self._event_ch.send_nowait(chunk)
        if self._stand_in.hang:
            await asyncio.Event().wait()
        if self._stand_in.error is not None:
            raise self._stand_in.error
