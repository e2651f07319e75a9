"""What the offline model sees of a call, and what it can answer."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard

from livekit.agents import llm

__all__ = ["CallTool", "Conversation", "Reply", "Say"]


@dataclass(frozen=True)
class Say:
    """Speak these words, then make the call `then`, if any, in the same reply."""

    text: str
    then: CallTool | None = None


@dataclass(frozen=True)
class CallTool:
    """Call one offered tool with these arguments."""

    name: str
    arguments: Mapping[str, object] = field(default_factory=dict)


Reply = Say | CallTool

_RUNNING_MARK = "__lk_running_placeholder__"
"""How the framework marks the stand-in for a tool call still running
(`livekit.agents.voice.generation._inject_running_tool_calls`)."""

_Turn = llm.ChatMessage | llm.FunctionCall | llm.FunctionCallOutput


def _is_turn(item: llm.ChatItem) -> TypeGuard[_Turn]:
    if isinstance(item, llm.ChatMessage):
        return item.role in ("user", "assistant")
    return isinstance(item, llm.FunctionCall | llm.FunctionCallOutput)


@dataclass(frozen=True)
class Conversation:
    """The turns of one LLM request (caller and agent messages, tool calls and their
    outputs, in order) and the names of the tools offered with it.

    Instructions, handoff markers and configuration updates are left out: they are not
    turns of the conversation.
    """

    turns: tuple[_Turn, ...]
    tools: frozenset[str]
    instructions: str = ""
    running: frozenset[str] = frozenset()
    """Tools of this agent still running from an earlier turn: the framework shows each
    as a call with a stand-in output, which is no result to relay."""
    arguments: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """The argument names each offered tool takes, as its schema says: a model learns
    from them which details a tool wants."""

    @classmethod
    def of(
        cls,
        chat_ctx: llm.ChatContext,
        tool_names: Iterable[str],
        arguments: Mapping[str, frozenset[str]] | None = None,
    ) -> Conversation:
        offered = frozenset(tool_names)
        # A call to a tool this agent is not offered is another agent's work (the
        # supervisor's tool that started this specialist shows as still in progress):
        # left out, with its output.
        others = {
            item.call_id
            for item in chat_ctx.items
            if isinstance(item, llm.FunctionCall) and item.name not in offered
        }
        turns = tuple(
            item
            for item in chat_ctx.items
            if _is_turn(item)
            and (
                isinstance(item, llm.ChatMessage)
                or (item.call_id not in others and (not item.name or item.name in offered))
            )
        )
        running = {
            item.call_id
            for item in chat_ctx.items
            if isinstance(item, llm.FunctionCall) and item.extra.get(_RUNNING_MARK)
        }
        turns = tuple(
            turn
            for turn in turns
            if not (isinstance(turn, llm.FunctionCallOutput) and turn.call_id in running)
        )
        instructions = "\n".join(
            item.text_content or ""
            for item in chat_ctx.items
            if isinstance(item, llm.ChatMessage) and item.role in ("system", "developer")
        )
        return cls(
            turns=turns,
            tools=offered,
            instructions=instructions,
            running=frozenset(
                item.name
                for item in chat_ctx.items
                if isinstance(item, llm.FunctionCall) and item.call_id in running
            ),
            arguments=dict(arguments or {}),
        )

    def offers(self, tool: str) -> bool:
        return tool in self.tools

    def takes(self, tool: str, argument: str) -> bool:
        """Whether the offered `tool` has an argument named `argument`."""
        return argument in self.arguments.get(tool, frozenset())

    @property
    def last_turn(self) -> _Turn | None:
        return self.turns[-1] if self.turns else None

    def tool_name(self, output: llm.FunctionCallOutput) -> str:
        """The tool an output came from (older items may carry only the call id)."""
        if output.name:
            return output.name
        for turn in self.turns:
            if isinstance(turn, llm.FunctionCall) and turn.call_id == output.call_id:
                return turn.name
        return ""

    def caller_lines(self, *, after_call_to: str | None = None) -> list[str]:
        """What the caller said, oldest first; with `after_call_to`, only what they said
        after the last call to that tool (all of it when there was none)."""
        start = 0
        if after_call_to is not None:
            for index, turn in enumerate(self.turns):
                if isinstance(turn, llm.FunctionCall) and turn.name == after_call_to:
                    start = index + 1
        return [
            text
            for turn in self.turns[start:]
            if isinstance(turn, llm.ChatMessage)
            and turn.role == "user"
            and (text := (turn.text_content or "").strip())
        ]

    def agent_lines(self) -> list[str]:
        """What the agent said, oldest first."""
        return [
            text
            for turn in self.turns
            if isinstance(turn, llm.ChatMessage)
            and turn.role == "assistant"
            and (text := (turn.text_content or "").strip())
        ]

    def last_arguments(self, tool: str) -> dict[str, Any] | None:
        """The arguments of the last call to `tool`, or None if there was none (or they
        were not a JSON object)."""
        for turn in reversed(self.turns):
            if isinstance(turn, llm.FunctionCall) and turn.name == tool:
                try:
                    arguments = json.loads(turn.arguments or "{}")
                except json.JSONDecodeError:
                    return None
                return arguments if isinstance(arguments, dict) else None
        return None

    @property
    def last_caller_line(self) -> str | None:
        lines = self.caller_lines()
        return lines[-1] if lines else None

    def _before_last_caller_line(self) -> list[_Turn]:
        for index in range(len(self.turns) - 1, -1, -1):
            turn = self.turns[index]
            if isinstance(turn, llm.ChatMessage) and turn.role == "user":
                return list(self.turns[:index])
        return list(self.turns)

    def output_answered(self) -> llm.FunctionCallOutput | None:
        """The tool output the caller's last line answers, if the agent's last act
        before it was relaying a tool output."""
        for turn in reversed(self._before_last_caller_line()):
            if isinstance(turn, llm.FunctionCallOutput):
                return turn
            if isinstance(turn, llm.ChatMessage) and turn.role == "user":
                return None
        return None

    def agent_line_answered(self) -> str | None:
        """What the agent said just before the caller's last line."""
        for turn in reversed(self._before_last_caller_line()):
            if isinstance(turn, llm.ChatMessage):
                return (turn.text_content or "").strip() if turn.role == "assistant" else None
        return None

    def caller_spoke_during(self, output: llm.FunctionCallOutput) -> bool:
        """Whether the caller said something while the tool of `output` ran (their words
        inside a specialist it started come back into this history)."""
        started = next(
            (
                index
                for index, turn in enumerate(self.turns)
                if isinstance(turn, llm.FunctionCall) and turn.call_id == output.call_id
            ),
            None,
        )
        if started is None:
            return False
        return any(
            isinstance(turn, llm.ChatMessage) and turn.role == "user"
            for turn in self.turns[started + 1 :]
            if turn is not output
        )

    def output_not_relayed(self) -> llm.FunctionCallOutput | None:
        """A successful tool output the agent has said nothing about since it arrived."""
        for turn in reversed(self.turns):
            if isinstance(turn, llm.ChatMessage) and turn.role == "assistant":
                return None
            if isinstance(turn, llm.FunctionCallOutput):
                return None if turn.is_error else turn
        return None

    def request_of(
        self, output: llm.FunctionCallOutput
    ) -> tuple[str, tuple[llm.FunctionCall, ...]] | None:
        """The caller's line the call of `output` answered (the last they said before
        it), and every call made since that line, that one included; None when the call
        came before the caller said anything."""
        started = next(
            (
                index
                for index, turn in enumerate(self.turns)
                if isinstance(turn, llm.FunctionCall) and turn.call_id == output.call_id
            ),
            None,
        )
        if started is None:
            return None
        for index in range(started - 1, -1, -1):
            turn = self.turns[index]
            if isinstance(turn, llm.ChatMessage) and turn.role == "user":
                since = self.turns[index + 1 :]
                calls = tuple(call for call in since if isinstance(call, llm.FunctionCall))
                return (turn.text_content or "").strip(), calls
        return None

    def saying(self, line: str) -> Conversation:
        """This conversation with the caller's latest line read as `line`: one of the
        requests said in it, routed on its own."""
        for index in range(len(self.turns) - 1, -1, -1):
            turn = self.turns[index]
            if isinstance(turn, llm.ChatMessage) and turn.role == "user":
                said = llm.ChatMessage(role="user", content=[line], id=turn.id)
                turns = (*self.turns[:index], said, *self.turns[index + 1 :])
                return replace(self, turns=turns)
        return replace(self, turns=(*self.turns, llm.ChatMessage(role="user", content=[line])))
