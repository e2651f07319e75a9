"""What the caller hears when the language model fails: a short apology, never silence.

Left alone, the framework turns a failed LLM request (after the model's own retries)
into an exception in the turn: the caller hears nothing, and when more turns in a row
fail than `SessionConnectOptions.max_unrecoverable_errors` (3), `AgentSession` closes
the call. Two parts stop that:

- `speak_failures` wraps the session's model in `ApologizingLLM`, which marks it as one
  whose failures are spoken, carries the response deadline, and reports each failure
  (a masked log line, and a recoverable `error` event on the session's model).
- `spoken_failures` is the reply every agent of the call gives (its `llm_node`): the
  model's chunks as they come; a failure ends the turn with `LLM_FAILURE_APOLOGY`
  instead (or, when the model had already started answering, with what it had sent),
  and the call goes on: the next caller turn asks the model again.

The request itself is the wrapped model's own stream, with no second stream around it:
its retries (or a `FallbackAdapter`'s switch to the next provider) happen first, under
the session's connection options, and only a failure that survives them reaches the
caller.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from livekit.agents import Agent, ModelSettings, llm, utils
from livekit.agents.llm import ChatContext, Tool

from customer_service.call.empty_replies import Reply, ReplyChunk, reaches_the_caller
from customer_service.call.wording import LLM_FAILURE_APOLOGY
from customer_service.pipeline.delegating import DelegatingLLM

__all__ = [
    "LLM_FAILURE_APOLOGY",
    "ApologizingLLM",
    "LLMResponseTimeout",
    "model_reply",
    "speak_failures",
    "spoken_failures",
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


class ApologizingLLM(DelegatingLLM):
    """`inner`, marked as a model whose failures the caller hears as an apology.

    Its requests are the inner model's own streams, with their request spans, retries and
    metrics: a failure surfaces from one as an exception, which the reply turns into the
    apology (`spoken_failures`).
    """

    def __init__(self, inner: llm.LLM[Any], *, response_timeout_s: float | None = None) -> None:
        super().__init__(inner)
        self.response_timeout_s = response_timeout_s

    def report_failure(self, error: Exception, *, output_sent: bool) -> None:
        """Logs a failure the reply recovered from, and tells the session's listeners."""
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


def model_reply(
    agent: Agent,
    chat_ctx: ChatContext,
    tools: list[Tool],
    model_settings: ModelSettings,
    *,
    instead_of_apology: str = "",
) -> Reply:
    """The framework's reply of `agent`'s model (`Agent.default.llm_node`), with its
    failures spoken: what every `llm_node` of the call asks the model through.
    `instead_of_apology`, when given, is said in place of the apology: what code knows
    the caller must hear (the result of a change the reply was to relay)."""
    reply = Agent.default.llm_node(agent, chat_ctx, tools, model_settings)
    return spoken_failures(
        reply, agent.session.llm, instead_of_apology=instead_of_apology or LLM_FAILURE_APOLOGY
    )


async def spoken_failures(
    reply: Reply, model: object, *, instead_of_apology: str = LLM_FAILURE_APOLOGY
) -> AsyncIterator[ReplyChunk]:
    """`reply` (an agent's reply from `model`), passed on as it comes; when `model`
    speaks its failures (`speak_failures`), a failure or a model silent past the response
    deadline ends the reply with the apology (or `instead_of_apology`), or with what was
    already sent.

    Cancellation (the caller talked over the agent) is not an Exception and passes
    through: an interruption is not a failure.
    """
    if not isinstance(model, ApologizingLLM):
        async for chunk in reply:
            yield chunk
        return
    output_sent = False
    deadline = model.response_timeout_s
    started = time.monotonic()
    chunks = aiter(reply)
    try:
        while True:
            try:
                if output_sent or deadline is None:
                    chunk = await anext(chunks)
                else:
                    left = deadline - (time.monotonic() - started)
                    chunk = await asyncio.wait_for(anext(chunks), max(left, 0.0))
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise LLMResponseTimeout from None
            # Text or a tool call, as the framework counts output; token counts and
            # provider metadata alone leave the turn still empty for the caller.
            output_sent = output_sent or reaches_the_caller(chunk)
            yield chunk
    except Exception as error:
        # Any failure, not only `APIError`: a provider plugin's bug must not leave the
        # caller in silence either.
        model.report_failure(error, output_sent=output_sent)
    finally:
        # The request closes with the reply, however it ended (a stalled one included).
        if isinstance(chunks, AsyncGenerator):
            await chunks.aclose()
    if not output_sent:
        yield llm.ChatChunk(
            id=utils.shortuuid("llm_failure_"),
            delta=llm.ChoiceDelta(role="assistant", content=instead_of_apology),
        )
    # With output already sent, the turn ends as it stands: a complete tool call still
    # runs, and text already spoken is not contradicted by an apology.
