"""A model in front of another: named as it, its metrics passed on, its streams its own
unless the front says otherwise (`DelegatingLLM.stream`)."""

from __future__ import annotations

import asyncio
from typing import Any, Never

from livekit.agents import llm
from livekit.agents.llm import ChatContext, Tool, ToolChoice
from livekit.agents.llm.chat_context import MetricsMetadata
from livekit.agents.metrics import LLMMetrics
from livekit.agents.types import (
    DEFAULT_API_CONNECT_OPTIONS,
    NOT_GIVEN,
    APIConnectOptions,
    NotGivenOr,
)

from customer_service.call.listeners import listen

__all__ = ["DelegatingLLM"]


class DelegatingLLM(llm.LLM[Never]):
    """`inner`, behind a front of this project's.

    Everything that names the model (`model`, `provider`, `label`, metrics metadata)
    is the inner model's, so logs, traces and session reports show the real provider,
    and the inner model's metrics reach whoever listens to the front.
    """

    def __init__(self, inner: llm.LLM[Any]) -> None:
        super().__init__()
        self._inner = inner
        # The base class reads `_label` directly when it reports errors and metrics.
        self._label = inner.label
        self._metrics_listener = listen(inner, "metrics_collected", self._forward_metrics)

    @property
    def inner(self) -> llm.LLM[Any]:
        """The wrapped model, for its own events (a `FallbackAdapter`'s availability)."""
        return self._inner

    @property
    def label(self) -> str:
        return self._inner.label

    @property
    def model(self) -> str:
        return self._inner.model

    @property
    def provider(self) -> str:
        return self._inner.provider

    @property
    def metrics_metadata(self) -> MetricsMetadata:
        return self._inner.metrics_metadata

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
        inner = self._inner.chat(
            chat_ctx=chat_ctx,
            tools=tools,
            conn_options=conn_options,
            parallel_tool_calls=parallel_tool_calls,
            tool_choice=tool_choice,
            extra_kwargs=extra_kwargs,
        )
        return self.stream(inner, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options)

    def stream(
        self,
        inner: llm.LLMStream,
        *,
        chat_ctx: ChatContext,
        tools: list[Tool],
        conn_options: APIConnectOptions,
    ) -> llm.LLMStream:
        """The stream a request gets: the inner model's own, unless a front needs one of
        its own around it."""
        return inner

    def prewarm(self, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._inner.prewarm(loop=loop)

    async def aclose(self) -> None:
        self._inner.off("metrics_collected", self._metrics_listener)
        await self._inner.aclose()
        await super().aclose()

    def _forward_metrics(self, metrics: LLMMetrics) -> None:
        self.emit("metrics_collected", metrics)
