"""What the caller hears when the language model fails: a short apology, never silence.

Left alone, the framework turns a failed LLM request (after the model's own retries)
into an exception in the turn: the caller hears nothing, and when more turns in a row
fail than `SessionConnectOptions.max_unrecoverable_errors` (3), `AgentSession` closes
the call. `speak_failures` wraps the session's model so that a failure ends the turn
with `LLM_FAILURE_APOLOGY` instead (or, when the model had already started answering,
with what it had sent), and the call goes on: the next caller turn asks the model again.

The wrapper adds no retries of its own. The model it wraps keeps the session's
connection options, so its retries (or a `FallbackAdapter`'s switch to the next
provider) happen first, and only a failure that survives them reaches the caller.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import AsyncIterable
from typing import Any, ClassVar, Never

from livekit.agents import llm, utils
from livekit.agents.llm import ChatContext, Tool, ToolChoice
from livekit.agents.llm.chat_context import MetricsMetadata
from livekit.agents.metrics import LLMMetrics
from livekit.agents.types import (
    DEFAULT_API_CONNECT_OPTIONS,
    NOT_GIVEN,
    APIConnectOptions,
    NotGivenOr,
)

from customer_service.call.wording import LLM_FAILURE_APOLOGY

__all__ = [
    "LLM_FAILURE_APOLOGY",
    "ApologizingLLM",
    "ApologizingLLMStream",
    "LLMResponseTimeout",
    "speak_failures",
]

logger = logging.getLogger(__name__)


class LLMResponseTimeout(Exception):
    """The model sent nothing the caller could hear within the response deadline."""


def speak_failures(model: llm.LLM[Any], *, response_timeout_s: float | None = None) -> llm.LLM[Any]:
    """`model`, wrapped so its failures reach the caller as `LLM_FAILURE_APOLOGY`.

    `response_timeout_s` is the deadline for the first text or tool call of a turn; a
    model that stalls past it is a failure like any other, not silence on the line.
    Wrapping is idempotent: an already wrapped model is returned unchanged, so every
    place that builds a session can apply it without knowing whether another did.
    """
    if isinstance(model, ApologizingLLM):
        return model
    return ApologizingLLM(model, response_timeout_s=response_timeout_s)


class ApologizingLLM(llm.LLM[Never]):
    """Runs `inner` and turns its failures into a clean end of the turn.

    Everything that names the model (`model`, `provider`, `label`, metrics metadata)
    is the inner model's, so logs, traces and session reports show the real provider.
    """

    def __init__(self, inner: llm.LLM[Any], *, response_timeout_s: float | None = None) -> None:
        super().__init__()
        self._inner = inner
        self.response_timeout_s = response_timeout_s
        # The base class reads `_label` directly when it reports errors and metrics.
        self._label = inner.label
        # The wrapper's own streams report no metrics (see `ApologizingLLMStream`); the
        # inner model's are the real ones, passed on to whoever listens to the session's LLM.
        inner.on("metrics_collected", self._forward_metrics)

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
    ) -> ApologizingLLMStream:
        return ApologizingLLMStream(
            self,
            chat_ctx=chat_ctx,
            tools=tools or [],
            inner_conn_options=conn_options,
            parallel_tool_calls=parallel_tool_calls,
            tool_choice=tool_choice,
            extra_kwargs=extra_kwargs,
        )

    def prewarm(self, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._inner.prewarm(loop=loop)

    async def aclose(self) -> None:
        self._inner.off("metrics_collected", self._forward_metrics)
        await self._inner.aclose()
        await super().aclose()

    def _forward_metrics(self, metrics: LLMMetrics) -> None:
        self.emit("metrics_collected", metrics)

    def _report_failure(self, error: Exception, *, output_sent: bool) -> None:
        # The exception's type and the provider only: messages from providers can quote
        # the request, which holds what the caller said.
        logger.warning(
            "LLM request failed; the turn ends with %s",
            "what was already said" if output_sent else "the apology",
            extra={
                "llm": self.label,
                "provider": self.provider,
                "error": type(error).__name__,
                "output_sent": output_sent,
            },
        )
        # The session's `error` event and its report still see the failure. It is marked
        # recoverable because the turn has been recovered here: an unrecoverable LLM error
        # counts towards `max_unrecoverable_errors`, after which the session closes the call.
        self.emit(
            "error",
            llm.LLMError(timestamp=time.time(), label=self.label, error=error, recoverable=True),
        )


class ApologizingLLMStream(llm.LLMStream):
    """Forwards the inner model's chunks; on failure, ends the turn without raising."""

    # Like the framework's FallbackAdapter stream: the inner model's request span is the
    # provider call and carries the GenAI attributes, so this span must not repeat them.
    _llm_request_span_name: ClassVar[str] = "llm_apologizing_wrapper"
    _llm_attempt_span_name: ClassVar[str | None] = None
    _genai_operation_name: ClassVar[str | None] = None

    def __init__(
        self,
        wrapper: ApologizingLLM,
        *,
        chat_ctx: ChatContext,
        tools: list[Tool],
        inner_conn_options: APIConnectOptions,
        parallel_tool_calls: NotGivenOr[bool],
        tool_choice: NotGivenOr[ToolChoice],
        extra_kwargs: NotGivenOr[dict[str, Any]],
    ) -> None:
        # Retrying belongs to the inner model, which gets the caller's options: retrying
        # here as well would multiply its attempts (and its silence) by ours.
        super().__init__(
            wrapper,
            chat_ctx=chat_ctx,
            tools=tools,
            conn_options=dataclasses.replace(inner_conn_options, max_retry=0),
        )
        self._wrapper = wrapper
        self._inner_conn_options = inner_conn_options
        self._parallel_tool_calls = parallel_tool_calls
        self._tool_choice = tool_choice
        self._extra_kwargs = extra_kwargs

    async def _run(self) -> None:
        output_sent = False
        try:
            # Opened here, inside this stream's task, so the inner request's span nests
            # under this one and closing this stream (an interruption) closes it too.
            async with self._wrapper.inner.chat(
                chat_ctx=self._chat_ctx,
                tools=self._tools,
                conn_options=self._inner_conn_options,
                parallel_tool_calls=self._parallel_tool_calls,
                tool_choice=self._tool_choice,
                extra_kwargs=self._extra_kwargs,
            ) as stream:
                chunks = stream.__aiter__()
                deadline = self._wrapper.response_timeout_s
                started = time.monotonic()
                while True:
                    try:
                        if output_sent or deadline is None:
                            chunk = await anext(chunks)
                        else:
                            left = deadline - (time.monotonic() - started)
                            chunk = await asyncio.wait_for(anext(chunks), max(left, 0.0))
                    except StopAsyncIteration:
                        break
                    except TimeoutError:
                        raise LLMResponseTimeout from None
                    # Text or a tool call, as the framework counts output; token counts and
                    # provider metadata alone leave the turn still empty for the caller.
                    output_sent = output_sent or chunk.has_response()
                    self._event_ch.send_nowait(chunk)
        except Exception as error:
            # Any failure, not only `APIError`: a provider plugin's bug must not leave the
            # caller in silence either. Cancellation (an interruption) is not an Exception
            # and passes through.
            self._wrapper._report_failure(error, output_sent=output_sent)
            if not output_sent:
                self._event_ch.send_nowait(
                    llm.ChatChunk(
                        id=utils.shortuuid("llm_failure_"),
                        delta=llm.ChoiceDelta(role="assistant", content=LLM_FAILURE_APOLOGY),
                    )
                )
            # With output already sent, the turn ends as it stands: a complete tool call
            # still runs, and text already spoken is not contradicted by an apology.

    async def _metrics_monitor_task(self, event_aiter: AsyncIterable[llm.ChatChunk]) -> None:
        # The inner stream reports the real request; counting this one too would double
        # every call in the session's usage, and the apology is no model call at all.
        async for _ in event_aiter:
            pass
