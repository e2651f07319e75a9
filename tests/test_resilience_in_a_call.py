"""A failing language model in a call: the caller hears an apology, and the call goes on.

Through a real session with the scripted model, and behind the framework's
`FallbackAdapter`. The failures here are non-retryable: the session's default connection
options retry a retryable failure three times, pausing up to two seconds between
attempts, which would only slow the tests.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, NotGivenOr

from customer_service.pipeline.resilience import LLM_FAILURE_APOLOGY, speak_failures
from customer_service.settings import Settings
from customer_service.testing import call_session
from support.conversation import agent_lines
from support.scripted_llm import SUPERVISOR_TOOLS, Say, ScriptedLLM
from support.stand_in_llm import StandInLLM, StandInStream


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
        return StandInStream(
            outage, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options
        )


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


async def test_a_model_that_stalls_is_heard_as_the_apology_not_silence(
    settings: Settings,
) -> None:
    stalled = StandInLLM(hang=True)
    impatient = settings.model_copy(update={"llm_response_timeout_s": 0.2})
    async with call_session(stalled, settings=impatient) as session:
        result: RunResult[None] = await session.run(user_input="Where is my order?")
        apology = result.expect.next_event().is_message(role="assistant").event().item
        assert apology.text_content == LLM_FAILURE_APOLOGY
        assert agent_lines(session)[-1] == LLM_FAILURE_APOLOGY
    assert stalled.attempts >= 1
