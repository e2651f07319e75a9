"""Another model's answers, sent through the OpenAI plugin's client on a network that
never leaves the process.

In production every model request goes through a provider plugin's client: it renders
the chat context and every offered tool's schema into the request, encodes it, and
parses the streamed answer chunk by chunk (LiveKit Inference's client is the OpenAI
plugin's stream too). A model that answers the framework directly (the offline model, a
scripted one) skips all of that. `PluginClientLLM` puts such a model behind the plugin:
each request is sent through the plugin to a transport in this process, which answers
with the model's reply as a chat-completions event stream, a word a chunk. The
rehearsal plays its calls through it, so the client's first-use work is done where job
processes are forked from; the benchmarks measure calls through it, so a call's CPU holds
the client's work for every request it makes.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx2
import openai
from livekit.agents import APIConnectOptions, llm
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, NotGivenOr
from livekit.plugins import openai as openai_plugin

__all__ = ["PluginClientLLM"]

REQUEST_HEADER = "x-stand-in-request"
"""Tells the transport which of the model's requests it is answering."""
STAND_IN_URL = "http://model.invalid/v1"
"""Never resolved: the transport answers every request in the process."""


@dataclass
class _Request:
    chat_ctx: llm.ChatContext
    tools: list[llm.Tool]
    tool_choice: NotGivenOr[llm.ToolChoice]
    answer: bytes | None = None
    """The event stream sent back, kept so that a retried request gets the same."""


class PluginClientLLM(llm.LLM[Any]):
    """`answering`'s replies, through the OpenAI plugin's client for `model`, named as
    LLM_MODEL names it (`openai/gpt-4.1-mini`) or without its provider: the plugin gets
    the model's own name, by which it picks the parameters it sends. `on_request` sees
    each request as it reaches the network."""

    def __init__(
        self,
        answering: llm.LLM[Any],
        *,
        model: str,
        on_request: Callable[[httpx2.Request], None] | None = None,
    ) -> None:
        super().__init__()
        self._answering = answering
        self._on_request = on_request
        self._requests: dict[str, _Request] = {}
        self._numbers = itertools.count(1)
        network = httpx2.AsyncClient(transport=httpx2.MockTransport(self._answer))
        self._client = openai.AsyncClient(
            api_key="stand-in", base_url=STAND_IN_URL, http_client=network
        )
        # Any provider, or none (the offline model never reads LLM_MODEL): never refused.
        own_name = model.rpartition("/")[2]
        self._plugin = openai_plugin.LLM(model=own_name, client=self._client)

    @property
    def model(self) -> str:
        return self._plugin.model

    @property
    def provider(self) -> str:
        return self._plugin.provider

    async def aclose(self) -> None:
        """Closes the plugin and its client (given to it, so not closed by it)."""
        await self._plugin.aclose()
        await self._client.close()
        await super().aclose()

    def chat(
        self,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: NotGivenOr[bool] = NOT_GIVEN,
        tool_choice: NotGivenOr[llm.ToolChoice] = NOT_GIVEN,
        extra_kwargs: NotGivenOr[dict[str, Any]] = NOT_GIVEN,
    ) -> llm.LLMStream:
        name = f"request-{next(self._numbers)}"
        self._requests[name] = _Request(chat_ctx, list(tools or []), tool_choice)
        extra = dict(extra_kwargs) if isinstance(extra_kwargs, dict) else {}
        extra["extra_headers"] = {**extra.get("extra_headers", {}), REQUEST_HEADER: name}
        return self._plugin.chat(
            chat_ctx=chat_ctx,
            tools=tools,
            conn_options=conn_options,
            parallel_tool_calls=parallel_tool_calls,
            tool_choice=tool_choice,
            extra_kwargs=extra,
        )

    async def _answer(self, sent: httpx2.Request) -> httpx2.Response:
        name = sent.headers[REQUEST_HEADER]
        request = self._requests[name]
        if self._on_request is not None:
            self._on_request(sent)
        if request.answer is None:
            text, calls = await self._reply(request)
            request.answer = event_stream(name, text, calls, prompt_bytes=len(sent.content))
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=request.answer
        )

    async def _reply(self, request: _Request) -> tuple[str, list[llm.FunctionToolCall]]:
        text: list[str] = []
        calls: list[llm.FunctionToolCall] = []
        stream = self._answering.chat(
            chat_ctx=request.chat_ctx, tools=request.tools, tool_choice=request.tool_choice
        )
        async with stream:
            async for chunk in stream:
                if chunk.delta is not None:
                    text.append(chunk.delta.content or "")
                    calls += chunk.delta.tool_calls
        return "".join(text), calls


def event_stream(
    name: str, text: str, calls: list[llm.FunctionToolCall], *, prompt_bytes: int
) -> bytes:
    """A reply as a chat-completions event stream: its words a chunk each, then its tool
    calls, the finish and the usage."""
    chunks: list[dict[str, Any]] = []
    if text:
        first, *rest = text.split(" ")
        chunks += [_delta({"content": word}) for word in [first, *(f" {w}" for w in rest)]]
    chunks += [
        _delta(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call.call_id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                ]
            }
        )
        for index, call in enumerate(calls)
    ]
    usage = {"prompt_tokens": prompt_bytes // 4, "completion_tokens": len(chunks)}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    finish = "tool_calls" if calls else "stop"
    chunks += [
        {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {"choices": [], "usage": usage},
    ]
    envelope = {"id": name, "object": "chat.completion.chunk", "created": 0, "model": "stand-in"}
    events = [f"data: {json.dumps(envelope | chunk)}\n\n" for chunk in chunks]
    return "".join([*events, "data: [DONE]\n\n"]).encode()


def _delta(delta: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"role": "assistant", **delta}}]}
