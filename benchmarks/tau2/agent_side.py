"""The agent as the benchmark's user meets it: a call answered by the real supervisor,
specialists and policy on a store of the benchmark's database, spoken to one line at a
time. `text_agent` is a text-only call (`call_session`); `benchmarks.tau2.voice_side`
gives the same over the voice seam.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from livekit.agents import AgentSession, CloseEvent, llm
from livekit.agents.voice.run_result import RunResult

from customer_service.call.state import CallState
from customer_service.settings import Settings
from customer_service.store import Store
from customer_service.testing import call_session

__all__ = ["AgentSide", "AgentTurn", "TextAgent", "text_agent"]


@dataclass(frozen=True)
class AgentTurn:
    """What the agent said after one of the caller's lines."""

    said: str
    """Every word the caller heard, in order, until the agent stopped to listen."""
    wait_s: float | None
    """Seconds from the end of the caller's line to the agent's first word; None when
    the agent said nothing."""


class AgentSide(Protocol):
    """One call with the agent, as the benchmark's user lives it."""

    @property
    def state(self) -> CallState: ...

    @property
    def ended(self) -> bool:
        """The call is over: the agent hung up, or put the caller through to a person."""
        ...

    def greeting(self) -> str:
        """What the agent said on answering."""
        ...

    async def answer(self, line: str) -> AgentTurn:
        """Says `line` as the caller and returns once the agent waits for the next."""
        ...


class TextAgent:
    """`AgentSide` over a text-only call."""

    def __init__(self, session: AgentSession[CallState]) -> None:
        self._session = session
        self._closed = False
        session.on("close", self._on_close)

    @property
    def state(self) -> CallState:
        return self._session.userdata

    @property
    def ended(self) -> bool:
        # A goodbye in text is heard in full as it is sent: the hang-up it starts ends the
        # call a moment after the turn.
        return self._closed or self.state.ending or self.state.escalated

    def greeting(self) -> str:
        return _said(self._session.history.items)

    async def answer(self, line: str) -> AgentTurn:
        started = time.time()
        result: RunResult[None] = await self._session.run(user_input=line)
        messages = [
            event.item
            for event in result.events
            if isinstance(event.item, llm.ChatMessage) and event.item.role == "assistant"
        ]
        said = _said(messages)
        if not said:
            return AgentTurn("", None)
        # Text has no first audio: the wait is to the first reply, complete.
        first = next(message for message in messages if message.text_content)
        return AgentTurn(said, max(0.0, first.created_at - started))

    def _on_close(self, _: CloseEvent) -> None:
        self._closed = True


def _said(items: list[Any]) -> str:
    return " ".join(
        item.text_content
        for item in items
        if isinstance(item, llm.ChatMessage) and item.role == "assistant" and item.text_content
    )


@asynccontextmanager
async def text_agent(
    model: llm.LLM[Any], store: Store, settings: Settings
) -> AsyncIterator[TextAgent]:
    """A text-only call answered on `store`, its greeting spoken, closed afterwards."""
    async with call_session(model, store=store, settings=settings) as session:
        yield TextAgent(session)
