"""A failing language model: the caller hears an apology, never silence, and the call goes on.

The reply with spoken failures is tested here on its own, as the framework's `llm_node`
reads a model, with small stand-in models (failing at once, failing after some output,
hanging, working); test_resilience_in_a_call.py runs it through a real session with the
scripted model, and behind the framework's `FallbackAdapter`. The retry path is covered
with zero-length pauses.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from livekit.agents import (
    APIConnectionError,
    APIConnectOptions,
    llm,
)
from livekit.agents.llm import ChatContext
from livekit.agents.metrics import LLMMetrics

from customer_service.pipeline.resilience import (
    LLM_FAILURE_APOLOGY,
    ApologizingLLM,
    speak_failures,
    spoken_failures,
)
from support.stand_in_llm import StandInLLM

# No retries and no pauses, for tests about what happens after the model's own retries.
NO_RETRIES = APIConnectOptions(max_retry=0, retry_interval=0.0, timeout=1.0)

CALLER_SECRET = "4111 1111 1111 1111"
"""Stands for caller data a provider might quote in its error message."""


def text_chunk(text: str, chunk_id: str = "chunk") -> llm.ChatChunk:
    return llm.ChatChunk(id=chunk_id, delta=llm.ChoiceDelta(role="assistant", content=text))


async def model_stream(
    model: llm.LLM[Any], conn_options: APIConnectOptions = NO_RETRIES
) -> AsyncIterator[llm.ChatChunk]:
    """The model's reply as the framework's default `llm_node` reads it."""
    async with model.chat(chat_ctx=ChatContext.empty(), conn_options=conn_options) as stream:
        async for chunk in stream:
            yield chunk


async def collect(
    model: llm.LLM[Any], conn_options: APIConnectOptions = NO_RETRIES
) -> list[llm.ChatChunk]:
    """What an agent of the call passes on of the model's reply."""
    reply = spoken_failures(model_stream(model, conn_options), model)
    return [chunk async for chunk in reply if isinstance(chunk, llm.ChatChunk)]


def texts(chunks: list[llm.ChatChunk]) -> list[str]:
    return [chunk.delta.content or "" for chunk in chunks if chunk.delta is not None]


def recorded_errors(model: llm.LLM[Any]) -> list[llm.LLMError]:
    errors: list[llm.LLMError] = []
    model.on("error", errors.append)
    return errors


def failure_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        record for record in caplog.records if record.name == "customer_service.pipeline.resilience"
    ]


def logged_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The structured fields of a failure's log record (passed as `extra`)."""
    return {name: record.__dict__[name] for name in ("llm", "provider", "error", "output_sent")}


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

    reply = spoken_failures(model_stream(model), model)
    first = await anext(reply)
    await reply.aclose()  # what the session does when the caller talks over the agent

    assert isinstance(first, llm.ChatChunk)
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
