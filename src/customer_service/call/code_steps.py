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

Not offered is not enough: the framework runs any of the agent's tools a reply names,
offered or not. So a code step runs only for a call `step_call` made: its call id
carries a signature only this process can make, and the model never sees one. A model
that calls the step by name is refused, and nothing happens.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import secrets
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from livekit.agents import RunContext, ToolError, llm

__all__ = [
    "NOT_A_STEP_FOR_THE_MODEL",
    "calls_a_tool",
    "code_step",
    "for_the_model",
    "offered_to_the_model",
    "step_call",
]

NOT_A_STEP_FOR_THE_MODEL = "Nothing was done: that step is not one you can take."
"""A code step the model called by name: refused, and the model told so."""

_CODE_STEPS: set[str] = set()
_STEP_PREFIX = "code_step_"
_SIGNING_KEY = secrets.token_bytes(32)

P = ParamSpec("P")
R = TypeVar("R")
SelfT = TypeVar("SelfT")
StepMethod = Callable[Concatenate[SelfT, RunContext[Any], P], Awaitable[R]]


def code_step(method: StepMethod[SelfT, P, R]) -> StepMethod[SelfT, P, R]:
    """Marks an agent's tool method (under `function_tool`) as a step its code takes:
    never offered to the model, and refused unless `step_call` started it."""
    _CODE_STEPS.add(method.__name__)

    @functools.wraps(method)
    async def run(self: SelfT, context: RunContext[Any], *args: P.args, **kwargs: P.kwargs) -> R:
        if not _started_by_code(context.function_call.call_id):
            raise ToolError(NOT_A_STEP_FOR_THE_MODEL)
        return await method(self, context, *args, **kwargs)

    # functools.wraps keeps the signature and docstring the tool schema is built from.
    return cast("StepMethod[SelfT, P, R]", run)


def _signature(nonce: str) -> str:
    return hmac.new(_SIGNING_KEY, nonce.encode(), hashlib.sha256).hexdigest()[:24]


def _started_by_code(call_id: str) -> bool:
    nonce, _, signature = call_id.removeprefix(_STEP_PREFIX).partition("_")
    return call_id.startswith(_STEP_PREFIX) and hmac.compare_digest(signature, _signature(nonce))


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
    nonce = uuid.uuid4().hex[:12]
    call_id = f"{_STEP_PREFIX}{nonce}_{_signature(nonce)}"
    call = llm.FunctionToolCall(name=name, arguments=json.dumps(arguments), call_id=call_id)
    return llm.ChatChunk(id=call_id, delta=llm.ChoiceDelta(role="assistant", tool_calls=[call]))


def calls_a_tool(chunk: llm.ChatChunk | str | object) -> bool:
    return isinstance(chunk, llm.ChatChunk) and bool(chunk.delta and chunk.delta.tool_calls)
