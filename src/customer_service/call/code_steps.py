"""Decisions an agent's code takes in a reply, sent as calls to tools the model never sees.

An agent's `llm_node` may decide from the history to act itself: end a consent question
the caller talked over, put a question once a reply has played. It cannot act there and
then: the framework runs `llm_node` before the caller's turn is committed (preemptive
generation), and drops that reply if the caller goes on talking. A tool runs only once
its reply is scheduled, with the caller's turn in the history, and alongside the reply's
words (`RunContext.wait_for_playout` waits for them; a caller who cuts them off cancels
the tool). So `llm_node` sends its decision as a call to one of the agent's own tools,
marked `code_step`; `for_the_model` leaves those tools, and their calls, out of what the
model is offered and shown.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any, TypeVar

from livekit.agents import llm

__all__ = ["calls_a_tool", "code_step", "for_the_model", "offered_to_the_model", "step_call"]

_CODE_STEPS: set[str] = set()

ToolT = TypeVar("ToolT", bound=llm.FunctionTool[Any, Any])


def code_step(tool: ToolT) -> ToolT:
    """Marks an agent's tool as a step its code takes: never offered to the model."""
    _CODE_STEPS.add(tool.info.name)
    return tool


def offered_to_the_model(tools: Sequence[llm.Tool | llm.Toolset]) -> list[llm.Tool | llm.Toolset]:
    return [tool for tool in tools if getattr(tool, "id", None) not in _CODE_STEPS]


def for_the_model(
    chat_ctx: llm.ChatContext, tools: list[llm.Tool]
) -> tuple[llm.ChatContext, list[llm.Tool]]:
    """The history and tools the model sees: without the code's steps, which it neither
    called nor could."""
    steps = {
        item.call_id
        for item in chat_ctx.items
        if isinstance(item, llm.FunctionCall) and item.name in _CODE_STEPS
    }
    seen = chat_ctx.copy()
    seen.items[:] = [
        item
        for item in seen.items
        if not isinstance(item, llm.FunctionCall | llm.FunctionCallOutput)
        or item.call_id not in steps
    ]
    return seen, [tool for tool in tools if getattr(tool, "id", None) not in _CODE_STEPS]


def step_call(name: str, **arguments: str) -> llm.ChatChunk:
    """The chunk that has the framework run the code step `name`."""
    call_id = f"code_step_{uuid.uuid4().hex[:12]}"
    call = llm.FunctionToolCall(name=name, arguments=json.dumps(arguments), call_id=call_id)
    return llm.ChatChunk(id=call_id, delta=llm.ChoiceDelta(role="assistant", tool_calls=[call]))


def calls_a_tool(chunk: llm.ChatChunk | str | object) -> bool:
    return isinstance(chunk, llm.ChatChunk) and bool(chunk.delta and chunk.delta.tool_calls)
