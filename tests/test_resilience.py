"""A failing language model: the caller hears an apology, never silence, and the call goes on.

The wrapper is tested on its own with small stand-in models (failing at once, failing
after some output, hanging, working), then through a real session with the scripted
model, and behind the framework's `FallbackAdapter`.

The failures in conversations are non-retryable: the session's default connection
options retry a retryable failure three times, pausing up to two seconds between
attempts, which would only slow the tests. The retry path itself is covered with
zero-length pauses.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any, Never

import pytest
from livekit.agents import (
    APIConnectionError,
    APIConnectOptions,
    APIStatusError,
    CloseEvent,
    ErrorEvent,
    RunResult,
    llm,
)
from livekit.agents.llm import ChatContext, Tool, ToolChoice
from livekit.agents.metrics import LLMMetrics
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, NotGivenOr

from customer_service.resilience import (
    LLM_FAILURE_APOLOGY,
    ApologizingLLM,
    speak_failures,
)
from customer_service.settings import Settings
from customer_service.testing import call_session
from support.conversation import agent_lines
from support.scripted_llm import SUPERVISOR_TOOLS, Say, ScriptedLLM

# No retries and no pauses, for tests about what happens after the model's own retries.
NO_RETRIES = APIConnectOptions(max_retry=0, retry_interval=0.0, timeout=1.0)

CALLER_SECRET = "4111 1111 1111 1111"
"""Stands for caller data a provider might quote in its error message."""


def text_chunk(text: str, chunk_id: str = "chunk") -> llm.ChatChunk:
    return llm.ChatChunk(id=chunk_id, delta=llm.ChoiceDelta(role="assistant", content=text))


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
        return _StandInStream(self, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options)

    def prewarm(self, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.prewarmed = True

    async def aclose(self) -> None:
        self.closed = True
        await super().aclose()


class _StandInStream(llm.LLMStream):
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


class FlakyScriptedLLM(ScriptedLLM):
    """The scripted model behind a provider that can go down: while `down`, every request
    fails before the script is consulted, so no step is used up."""

    def __init__(self, steps: Iterable[Say], *, error: Exception) -> None:
        super().__init__(steps)
        self.down = False
        self.error = error
        self.failed_requests: list[frozenset[str]] = []
        """The tool names offered with each failed request (which agent was active)."""

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
        if not self.down:
            return super().chat(
                chat_ctx=chat_ctx,
                tools=tools,
                conn_options=conn_options,
                parallel_tool_calls=parallel_tool_calls,
                tool_choice=tool_choice,
                extra_kwargs=extra_kwargs,
            )
        self.failed_requests.append(frozenset(tool.id for tool in tools or []))
        outage = StandInLLM(error=self.error)
        return _StandInStream(
            outage, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options
        )


async def collect(
    model: llm.LLM[Any], conn_options: APIConnectOptions = NO_RETRIES
) -> list[llm.ChatChunk]:
    async with model.chat(chat_ctx=ChatContext.empty(), conn_options=conn_options) as stream:
        return [chunk async for chunk in stream]


def texts(chunks: list[llm.ChatChunk]) -> list[str]:
    return [chunk.delta.content or "" for chunk in chunks if chunk.delta is not None]


def recorded_errors(model: llm.LLM[Any]) -> list[llm.LLMError]:
    errors: list[llm.LLMError] = []
    model.on("error", errors.append)
    return errors


def failure_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "customer_service.resilience"]


def logged_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The structured fields of a failure's log record (passed as `extra`)."""
    return {name: record.__dict__[name] for name in ("llm", "provider", "error", "output_sent")}


# The wrapper on its own


async def test_a_connection_failure_becomes_the_apology(caplog: pytest.LogCaptureFixture) -> None:
    inner = StandInLLM(error=APIConnectionError(f"reset while sending {CALLER_SECRET}"))
    model = speak_failures(inner)
    errors = recorded_errors(model)

    chunks = await collect(model)

    assert texts(chunks) == [LLM_FAILURE_APOLOGY]
    assert chunks[0].delta is not None
    assert chunks[0].delta.role == "assistant"
    [record] = failure_records(caplog)
    assert record.levelno == logging.WARNING
    assert logged_fields(record) == {
        "llm": inner.label,
        "provider": "stand-in-provider",
        "error": "APIConnectionError",
        "output_sent": False,
    }
    assert CALLER_SECRET not in record.getMessage()
    assert record.exc_info is None
    # Seen by the session's `error` event, and not counted towards closing the call.
    assert [(error.label, error.recoverable) for error in errors] == [(inner.label, True)]


async def test_a_failure_after_some_text_ends_the_turn_with_that_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inner = StandInLLM(
        [text_chunk("Your order shipped on ")], error=APIConnectionError("stream reset")
    )

    chunks = await collect(speak_failures(inner))

    assert texts(chunks) == ["Your order shipped on "]
    [record] = failure_records(caplog)
    assert logged_fields(record)["output_sent"] is True


async def test_a_failure_after_a_tool_call_lets_the_call_run() -> None:
    call = llm.FunctionToolCall(name="lookup_order", arguments="{}", call_id="call_1")
    inner = StandInLLM(
        [llm.ChatChunk(id="chunk", delta=llm.ChoiceDelta(role="assistant", tool_calls=[call]))],
        error=APIConnectionError("stream reset"),
    )

    chunks = await collect(speak_failures(inner))

    assert [chunk.delta.tool_calls for chunk in chunks if chunk.delta] == [[call]]
    assert LLM_FAILURE_APOLOGY not in texts(chunks)


async def test_an_unexpected_exception_becomes_the_apology(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inner = StandInLLM(error=RuntimeError(f"plugin bug with {CALLER_SECRET}"))

    chunks = await collect(speak_failures(inner))

    assert texts(chunks) == [LLM_FAILURE_APOLOGY]
    [record] = failure_records(caplog)
    assert logged_fields(record)["error"] == "RuntimeError"
    assert CALLER_SECRET not in record.getMessage()


async def test_a_working_model_is_passed_through_unchanged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sent = [
        text_chunk("Your order ", "c1"),
        text_chunk("shipped yesterday.", "c1"),
        llm.ChatChunk(
            id="c1",
            usage=llm.CompletionUsage(completion_tokens=5, prompt_tokens=40, total_tokens=45),
        ),
    ]
    inner = StandInLLM(sent)
    model = speak_failures(inner)
    errors = recorded_errors(model)

    assert await collect(model) == sent
    assert await collect(inner) == sent
    assert errors == []
    assert failure_records(caplog) == []


async def test_the_inner_model_retries_with_the_callers_options_and_the_wrapper_does_not() -> None:
    inner = StandInLLM(error=APIConnectionError("unreachable"))
    callers = APIConnectOptions(max_retry=2, retry_interval=0.0, timeout=3.0)

    chunks = await collect(speak_failures(inner), callers)

    assert inner.requests == [callers]  # one request, with the session's options
    assert inner.attempts == 3  # its own first try and two retries
    assert texts(chunks) == [LLM_FAILURE_APOLOGY]  # said once, after the last retry


async def test_an_interruption_is_not_a_failure(caplog: pytest.LogCaptureFixture) -> None:
    inner = StandInLLM([text_chunk("Let me see")], hang=True)
    model = speak_failures(inner)
    errors = recorded_errors(model)

    stream = model.chat(chat_ctx=ChatContext.empty(), conn_options=NO_RETRIES)
    first = await stream.__anext__()
    await stream.aclose()  # what the session does when the caller talks over the agent

    assert texts([first]) == ["Let me see"]
    assert failure_records(caplog) == []
    assert errors == []


async def test_all_models_of_a_fallback_adapter_failing_becomes_the_apology() -> None:
    adapter = llm.FallbackAdapter(
        [StandInLLM(error=APIConnectionError("down")), StandInLLM(error=RuntimeError("bug"))]
    )

    assert texts(await collect(speak_failures(adapter))) == [LLM_FAILURE_APOLOGY]


async def test_metrics_are_the_inner_models_counted_once() -> None:
    inner = StandInLLM([text_chunk("Hello.")])
    model = speak_failures(inner)
    reported: list[LLMMetrics] = []
    model.on("metrics_collected", reported.append)

    await collect(model)

    assert [metrics.label for metrics in reported] == [inner.label]
    assert reported[0].metadata is not None
    assert reported[0].metadata.model_name == "stand-in-model"


async def test_the_wrapper_names_and_manages_the_inner_model() -> None:
    inner = StandInLLM()
    model = speak_failures(inner)

    assert isinstance(model, ApologizingLLM)
    assert model.inner is inner
    assert speak_failures(model) is model
    assert (model.model, model.provider, model.label) == (inner.model, inner.provider, inner.label)
    assert model.metrics_metadata == inner.metrics_metadata
    model.prewarm()
    assert inner.prewarmed
    await model.aclose()
    assert inner.closed


# In a call


async def test_caller_hears_the_apology_and_the_next_turn_works(settings: Settings) -> None:
    model = FlakyScriptedLLM(
        [Say("I can help with that. What is the order number?")],
        error=APIStatusError("Service Unavailable", status_code=503, retryable=False),
    )
    async with call_session(speak_failures(model), settings=settings) as session:
        model.down = True
        failed: RunResult[None] = await session.run(user_input="Where is my order?")
        apology = failed.expect.next_event().is_message(role="assistant").event().item
        assert apology.text_content == LLM_FAILURE_APOLOGY
        failed.expect.no_more_events()
        [offered] = model.failed_requests
        assert offered >= SUPERVISOR_TOOLS  # it was the supervisor's turn that failed

        model.down = False
        recovered: RunResult[None] = await session.run(user_input="Where is my order?")
        reply = recovered.expect.next_event().is_message(role="assistant").event().item
        assert reply.text_content == "I can help with that. What is the order number?"
        recovered.expect.no_more_events()
        # The model sees that it apologized, so it can pick the conversation up again.
        seen = [
            item.text_content
            for item in model.turns[-1].chat_ctx.items
            if isinstance(item, llm.ChatMessage) and item.role == "assistant"
        ]
        assert LLM_FAILURE_APOLOGY in seen


async def test_a_long_outage_does_not_end_the_call(settings: Settings) -> None:
    model = FlakyScriptedLLM(
        [Say("Thanks for waiting. How can I help?")],
        error=APIConnectionError("connection refused", retryable=False),
    )
    async with call_session(speak_failures(model), settings=settings) as session:
        closed: list[CloseEvent] = []
        errors: list[ErrorEvent] = []
        session.on("close", closed.append)
        session.on("error", errors.append)
        # More failed turns in a row than the session's max_unrecoverable_errors (3),
        # after which an unhandled LLM error closes the call.
        limit = session.conn_options.max_unrecoverable_errors
        model.down = True
        for _ in range(limit + 2):
            await session.run(user_input="Hello?")
        model.down = False
        await session.run(user_input="Hello?")

        assert closed == []
        assert agent_lines(session)[-(limit + 3) :] == [
            *[LLM_FAILURE_APOLOGY] * (limit + 2),
            "Thanks for waiting. How can I help?",
        ]
        assert len(errors) == limit + 2
        assert all(event.error.recoverable for event in errors)


async def test_the_fallback_model_answers_when_the_first_fails(settings: Settings) -> None:
    first = StandInLLM(error=APIConnectionError("connection refused"))
    second = ScriptedLLM([Say("I can help with that. What is the order number?")])
    # The adapter's own options: no retry per model (the next model is the retry), so
    # the first model's failure hands over to the second at once.
    adapter = llm.FallbackAdapter([first, second], max_retry_per_llm=0)
    async with call_session(speak_failures(adapter), settings=settings) as session:
        result: RunResult[None] = await session.run(user_input="Where is my order?")
        reply = result.expect.next_event().is_message(role="assistant").event().item
        assert reply.text_content == "I can help with that. What is the order number?"
        result.expect.no_more_events()
    assert first.attempts >= 1
    assert len(second.turns) == 1
