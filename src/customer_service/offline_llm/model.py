"""`OfflineLLM`: the `llm.LLM` the session talks to, streaming `decide`'s answer."""

from __future__ import annotations

import inspect
import itertools
import json
from typing import Any, Never

from livekit.agents import llm
from livekit.agents.llm.tool_context import get_fnc_tool_names
from livekit.agents.types import (
    DEFAULT_API_CONNECT_OPTIONS,
    NOT_GIVEN,
    APIConnectOptions,
    NotGivenOr,
)

from customer_service.offline_llm.conversation import CallTool, Conversation
from customer_service.offline_llm.profiles import decide

__all__ = ["OfflineLLM", "OfflineLLMStream"]


class OfflineLLM(llm.LLM[Never]):
    """Deterministic rules in place of a model; see the package docstring."""

    def __init__(self) -> None:
        super().__init__()
        self._ids = itertools.count(1)

    @property
    def model(self) -> str:
        return "offline-rules"

    @property
    def provider(self) -> str:
        return "customer-service"

    def next_id(self, prefix: str) -> str:
        """A fresh id for a chunk or a tool call (a counter: ids are not content)."""
        return f"{prefix}_{next(self._ids)}"

    def chat(
        self,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: NotGivenOr[bool] = NOT_GIVEN,
        tool_choice: NotGivenOr[llm.ToolChoice] = NOT_GIVEN,
        extra_kwargs: NotGivenOr[dict[str, Any]] = NOT_GIVEN,
    ) -> OfflineLLMStream:
        return OfflineLLMStream(
            self,
            chat_ctx=chat_ctx,
            tools=list(tools or []),
            conn_options=conn_options,
            tools_allowed=tool_choice != "none",
        )


class OfflineLLMStream(llm.LLMStream):
    """Sends one chunk: the reply's text, its single tool call, or both."""

    def __init__(
        self,
        offline_llm: OfflineLLM,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool],
        conn_options: APIConnectOptions,
        tools_allowed: bool,
    ) -> None:
        super().__init__(offline_llm, chat_ctx=chat_ctx, tools=tools, conn_options=conn_options)
        self._offline_llm = offline_llm
        self._tools_allowed = tools_allowed

    async def _run(self) -> None:
        conversation = Conversation.of(
            self.chat_ctx, get_fnc_tool_names(self.tools), _argument_names(self.tools)
        )
        reply = decide(conversation, tools_allowed=self._tools_allowed)
        if isinstance(reply, CallTool):
            delta = llm.ChoiceDelta(role="assistant", tool_calls=[self._tool_call(reply)])
        else:
            calls = [self._tool_call(reply.then)] if reply.then else []
            delta = llm.ChoiceDelta(role="assistant", content=reply.text, tool_calls=calls)
        self._event_ch.send_nowait(
            llm.ChatChunk(id=self._offline_llm.next_id("offline_chunk"), delta=delta)
        )

    def _tool_call(self, call: CallTool) -> llm.FunctionToolCall:
        return llm.FunctionToolCall(
            name=call.name,
            arguments=json.dumps(dict(call.arguments)),
            call_id=self._offline_llm.next_id("offline_call"),
        )


def _argument_names(tools: list[llm.Tool]) -> dict[str, frozenset[str]]:
    """Each function tool's parameter names: the arguments its schema offers a model,
    and its run context. (Read from the signature: building the schema on every
    request would cost more than the rules.)"""
    return {
        tool.info.name: frozenset(inspect.signature(tool).parameters)
        for tool in tools
        if isinstance(tool, llm.FunctionTool)
    }
