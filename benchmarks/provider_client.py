"""The production model client, answered by a scripted model over a stand-in network.

A zero-latency scripted model hands the framework its answer as one ready-made chunk,
so a call measured with it leaves out what a job process does for every model request
in production: the provider plugin renders the chat context and the offered tools'
schemas into the request, signs and encodes it, and parses the streamed answer chunk
by chunk. `ProviderClientLLM` runs that plugin (the OpenAI plugin, whose stream is the
one LiveKit Inference's client uses) on an HTTP transport that never leaves the
process: each request is answered with the scripted model's decision, streamed back as
a chat-completions event stream, one chunk a word. The transport's own encoding of the
answer is counted too; it is a few microseconds a chunk.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai
from livekit.agents import APIConnectOptions, llm
from livekit.agents.llm import ChatContext, Tool
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, NotGivenOr
from livekit.agents.utils import is_given
from livekit.plugins import openai as openai_plugin

from customer_service.pipeline.providers import plugin_model_name
from customer_service.settings import Settings
from support.scripted_llm import Call, Decision, Parallel, Say, ScriptedLLM

ANSWER_HEADER = "x-scripted-answer"
"""Names, on each request, the scripted decision the stand-in network answers with."""

STAND_IN_URL = "http://model.invalid/v1"
"""Never resolved: the transport answers every request in the process."""


class ProviderClientLLM(llm.LLM):
    """The provider plugin's model, answered by `scripted` (which records each request
    as a turn, as it does when it answers directly)."""

    def __init__(self, scripted: ScriptedLLM, settings: Settings) -> None:
        super().__init__()
        self.scripted = scripted
        self.requests: list[httpx2.Request] = []
        """Every request the plugin sent, as it went on the wire."""
        self._answers: dict[str, Decision] = {}
        network = httpx2.AsyncClient(transport=httpx2.MockTransport(self._answer))
        self._client = openai_plugin.LLM(
            model=plugin_model_name("LLM_MODEL", settings.llm_model),
            client=openai.AsyncClient(
                api_key="stand-in", base_url=STAND_IN_URL, http_client=network
            ),
        )

    @property
    def model(self) -> str:
        return self._client.model

    @property
    def provider(self) -> str:
        return self._client.provider

    def chat(
        self,
        *,
        chat_ctx: ChatContext,
        tools: list[Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: NotGivenOr[bool] = NOT_GIVEN,
        tool_choice: NotGivenOr[llm.ToolChoice] = NOT_GIVEN,
        extra_kwargs: NotGivenOr[dict[str, Any]] = NOT_GIVEN,
    ) -> llm.LLMStream:
        decision = self.scripted.decide(
            chat_ctx=chat_ctx, tools=tools or [], tool_choice=tool_choice
        )
        reply_id = self.scripted.next_call_id()
        self._answers[reply_id] = decision
        extra = dict(extra_kwargs) if is_given(extra_kwargs) else {}
        extra["extra_headers"] = {**extra.get("extra_headers", {}), ANSWER_HEADER: reply_id}
        return self._client.chat(
            chat_ctx=chat_ctx,
            tools=tools,
            conn_options=conn_options,
            parallel_tool_calls=parallel_tool_calls,
            tool_choice=tool_choice,
            extra_kwargs=extra,
        )

    def _answer(self, request: httpx2.Request) -> httpx2.Response:
        # Kept, not taken: a retried request names the same answer.
        reply_id = request.headers[ANSWER_HEADER]
        decision = self._answers[reply_id]
        self.requests.append(request)
        return httpx2.Response(
            200,
            headers={"content-type": "text/event-stream"},
            content=event_stream(reply_id, decision, prompt_bytes=len(request.content)),
        )


def event_stream(reply_id: str, decision: Decision, *, prompt_bytes: int) -> bytes:
    """`decision` as a chat-completions event stream: words one chunk each, or the tool
    calls with their arguments, then the finish and the usage."""
    chunks: list[dict[str, Any]] = []
    if isinstance(decision, Say):
        words = decision.text.split(" ")
        pieces = [words[0], *(f" {word}" for word in words[1:])]
        chunks += [_delta({"role": "assistant", "content": piece}) for piece in pieces]
        finish = "stop"
    else:
        calls = decision.calls if isinstance(decision, Parallel) else (decision,)
        chunks += [
            _delta({"tool_calls": [_tool_call(reply_id, i, c)]}) for i, c in enumerate(calls)
        ]
        finish = "tool_calls"
    completion_tokens = len(chunks)
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    usage = {
        "prompt_tokens": prompt_bytes // 4,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_bytes // 4 + completion_tokens,
    }
    chunks.append({"choices": [], "usage": usage})
    header = {"id": reply_id, "object": "chat.completion.chunk", "created": 0, "model": "stand-in"}
    events = [f"data: {json.dumps(header | chunk)}\n\n" for chunk in chunks]
    return ("".join(events) + "data: [DONE]\n\n").encode()


def _delta(delta: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}


def _tool_call(reply_id: str, index: int, call: Call) -> dict[str, Any]:
    return {
        "index": index,
        "id": f"{reply_id}_{index}",
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
    }
