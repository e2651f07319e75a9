"""A scripted stand-in for the LLM, so conversations run offline and deterministically.

Each LLM call takes the next step of the script. A step is a fixed decision (`Say` or
`Call`) or a rule: a function of the `Turn` (what the model was offered and shown) that
returns one. Every call is recorded, so tests can count round trips and see which
agent was active (by the tools it offered).
"""

from __future__ import annotations

import itertools
import json
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from livekit.agents import APIConnectOptions, llm
from livekit.agents.llm import ChatContext, Tool
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, NotGivenOr
from livekit.agents.utils import is_given

SUPERVISOR_TOOLS = frozenset({"verify_identity", "lookup_order", "transfer_to_human", "end_call"})
IDENTITY_TOOLS = frozenset({"check_identity", "give_up"})
ORDER_LOOKUP_TOOLS = frozenset({"lookup", "list_recent_orders", "give_up"})


@dataclass(frozen=True)
class Say:
    text: str


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    only_if_offered: bool = False
    """A step the model takes only if it is asked while the tool is offered: passed over
    when the agent's code did the work without asking (an identity check on details the
    caller said in one line)."""


@dataclass(frozen=True)
class Parallel:
    """Several tool calls in one reply, as models that call tools in parallel send them."""

    calls: tuple[Call, ...]


Decision = Say | Call | Parallel


@dataclass(frozen=True)
class Turn:
    """One LLM call as the model saw it."""

    tool_names: frozenset[str]
    chat_ctx: ChatContext
    tool_choice: object = None

    @property
    def must_answer(self) -> bool:
        """The framework asked for words only (its cap on tool steps was reached)."""
        return self.tool_choice == "none"

    @property
    def last_item(self) -> llm.ChatItem | None:
        return self.chat_ctx.items[-1] if self.chat_ctx.items else None

    @property
    def last_user_text(self) -> str:
        for item in reversed(self.chat_ctx.items):
            if isinstance(item, llm.ChatMessage) and item.role == "user":
                return item.text_content or ""
        return ""

    @property
    def instructions(self) -> str:
        """The instructions the model was given in this turn (its system and developer
        messages), one after another."""
        return "\n".join(
            item.text_content or ""
            for item in self.chat_ctx.items
            if isinstance(item, llm.ChatMessage) and item.role in ("system", "developer")
        )

    @property
    def last_tool_output(self) -> llm.FunctionCallOutput | None:
        item = self.last_item
        return item if isinstance(item, llm.FunctionCallOutput) else None

    def offers(self, tools: frozenset[str]) -> bool:
        return tools <= self.tool_names


Rule = Callable[[Turn], Decision]
Step = Decision | Rule


def relay_tool_output(turn: Turn) -> Decision:
    """What a well-behaved model does after a tool answers: say what it said."""
    output = turn.last_tool_output
    assert output is not None, f"expected a tool output, the model saw {turn.last_item!r}"
    return Say(output.output)


class ScriptedLLM(llm.LLM):
    def __init__(self, steps: Iterable[Step] = (), *, then: Rule | None = None) -> None:
        """`steps` run in order; after them `then` (if given) answers every further call."""
        super().__init__()
        self._steps: deque[Step] = deque(steps)
        self._then = then
        self._call_ids = itertools.count(1)
        self.turns: list[Turn] = []
        self.overran = False

    @property
    def model(self) -> str:
        return "scripted"

    @property
    def provider(self) -> str:
        return "tests"

    @property
    def steps_left(self) -> int:
        return len(self._steps)

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
        turn = Turn(
            tool_names=frozenset(tool.id for tool in tools or []),
            chat_ctx=chat_ctx.copy(),
            tool_choice=tool_choice if is_given(tool_choice) else None,
        )
        self.turns.append(turn)
        decision = self._decide(turn)
        return _ScriptedStream(
            self,
            decision=decision,
            call_id=f"call_{next(self._call_ids)}",
            chat_ctx=chat_ctx,
            tools=tools or [],
            conn_options=conn_options,
        )

    def _decide(self, turn: Turn) -> Decision:
        while (
            self._steps
            and isinstance(step := self._steps[0], Call)
            and step.only_if_offered
            and step.name not in turn.tool_names
        ):
            self._steps.popleft()
        if self._steps:
            step = self._steps.popleft()
        elif self._then is not None:
            step = self._then
        else:
            self.overran = True
            return Say("(the script has no more steps)")
        return step if isinstance(step, Say | Call | Parallel) else step(turn)


class _ScriptedStream(llm.LLMStream):
    def __init__(
        self,
        scripted: ScriptedLLM,
        *,
        decision: Decision,
        call_id: str,
        chat_ctx: ChatContext,
        tools: list[Tool],
        conn_options: APIConnectOptions,
    ) -> None:
        super().__init__(scripted, chat_ctx=chat_ctx, tools=tools, conn_options=conn_options)
        self._decision = decision
        self._call_id = call_id

    async def _run(self) -> None:
        if isinstance(self._decision, Say):
            delta = llm.ChoiceDelta(role="assistant", content=self._decision.text)
        else:
            calls = (
                self._decision.calls if isinstance(self._decision, Parallel) else (self._decision,)
            )
            delta = llm.ChoiceDelta(
                role="assistant",
                tool_calls=[
                    llm.FunctionToolCall(
                        name=call.name,
                        arguments=json.dumps(call.arguments),
                        call_id=f"{self._call_id}_{index}",
                    )
                    for index, call in enumerate(calls)
                ],
            )
        self._event_ch.send_nowait(llm.ChatChunk(id=self._call_id, delta=delta))
