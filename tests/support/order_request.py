"""How the tests of an order-bound specialist reach it: the caller's request for an
order, their identity details, the model's steps up to the specialist's first question,
its confirm, a call at its first question (`at_question`), and a refusal before the task
starts. A specialist's test module declares one `OrderRequest` and keeps only its cases."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from livekit.agents import AgentSession

from customer_service.call.state import CallState
from customer_service.clock import Clock
from customer_service.settings import Settings
from customer_service.specialists import SPECIALISTS
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.testing import call_session

from .confirming import Confirming
from .conversation import agent_lines, ask_then_verify, audit_events, tool_outputs, verifying_for
from .own_tests import OfflineChat
from .scripted_llm import Call, Decision, ScriptedLLM, Step
from .scripted_llm import relay_tool_output as relay


@dataclass(frozen=True)
class OrderRequest:
    """A caller asking one specialist for its work on an order, by default `order_id`
    asked by `caller` (who says `says` when asked to verify)."""

    supervisor_tool: str
    asking: str
    """The caller's request, with `{order_id}` for the order they name."""
    order_id: str
    caller: dict[str, Any]
    says: str
    task_tools: frozenset[str]
    """The tools its task offers: none may be offered when it is refused before it."""
    confirm_tool: str

    @property
    def confirm(self) -> list[Step]:
        """The model's confirm after the caller's yes, and its relay of what was said."""
        return [Call(self.confirm_tool), relay]

    @property
    def writes(self) -> str:
        """The audit event its write stores (its registration's)."""
        (kind,) = [r.writes for r in SPECIALISTS if r.tool_name == self.supervisor_tool]
        assert kind is not None
        return kind

    def until_question(
        self, order_id: str | None = None, details: dict[str, Any] | None = None
    ) -> list[Step]:
        """The model's steps: the supervisor tool for the order, then the identity check."""
        return [
            *verifying_for(self.supervisor_tool, order_id or self.order_id, details or self.caller)
        ]

    async def reach_question(
        self,
        session: AgentSession[CallState],
        order_id: str | None = None,
        says: str | None = None,
    ) -> None:
        """The caller's request, then their identity details when the agent asks."""
        request = self.asking.format(order_id=order_id or self.order_id)
        await ask_then_verify(session, request, says or self.says)

    @asynccontextmanager
    async def at_question(
        self,
        settings: Settings,
        *steps: Step,
        order_id: str | None = None,
        details: dict[str, Any] | None = None,
        says: str | None = None,
        clock: Clock | None = None,
    ) -> AsyncIterator[AgentSession[CallState]]:
        """A call on the demo store at the specialist's first question: the caller has
        asked for `order_id` and given their details, and the model, past
        `until_question`, takes `steps` after. The model must not have been asked for more
        than that by the end of the call."""
        model = ScriptedLLM([*self.until_question(order_id, details), *steps])
        async with call_session(model, settings=settings, clock=clock) as session:
            await self.reach_question(session, order_id, says)
            yield session
        assert not model.overran

    @asynccontextmanager
    async def at_question_on(
        self,
        database_url: str,
        settings: Settings,
        *steps: Step,
        order_id: str | None = None,
        details: dict[str, Any] | None = None,
        says: str | None = None,
    ) -> AsyncIterator[AgentSession[CallState]]:
        """`at_question` on the store at `database_url`, as a test has prepared it."""
        model = ScriptedLLM([*self.until_question(order_id, details), *steps])
        async with call_session(model, settings=settings, database_url=database_url) as session:
            await self.reach_question(session, order_id, says)
            yield session
        assert not model.overran

    def confirming(
        self,
        said: str,
        record: Step,
        *,
        changed: Callable[[AgentSession[CallState]], Awaitable[bool]],
        nothing_changed: str,
        other_than_read_back: tuple[str, Decision],
        **more: Any,
    ) -> Confirming:
        """Its `CONFIRMING` for the suites every confirming specialist runs
        (support/confirming.py): this caller asks for the order, gives their details and
        says `said`, which the model records with `record`, bringing the read-back;
        `more` are `Confirming`'s other fields."""
        return Confirming(
            supervisor_tool=self.supervisor_tool,
            confirm=Call(self.confirm_tool),
            caller=self.caller,
            lines_to_read_back=(self.asking.format(order_id=self.order_id), self.says, said),
            steps_to_read_back=(*self.until_question(), record),
            changed=changed,
            nothing_changed=nothing_changed,
            other_than_read_back=other_than_read_back,
            order_tool_for=self.order_id,
            **more,
        )

    def offline_chat(self, *after: str) -> OfflineChat:
        """Its `OFFLINE_CHAT` (support/own_tests.py): this caller asks for the order, gives
        their details, then types `after`."""
        return OfflineChat((self.asking.format(order_id=self.order_id), self.says, *after))

    async def nothing_written(self, session: AgentSession[CallState]) -> bool:
        """Whether the call stored no event of the specialist's write."""
        return await audit_events(session, kind=self.writes) == []

    async def refused_before_the_task(
        self,
        settings: Settings,
        database_url: str,
        order_id: str,
        details: dict[str, Any],
        says: str,
    ) -> str:
        """What the caller hears when the order is refused once they are verified: said
        right after the identity question, with nothing stored and the task never run."""
        model = ScriptedLLM([*self.until_question(order_id, details), relay])
        async with call_session(model, settings=settings, database_url=database_url) as session:
            await self.reach_question(session, order_id, says)
            (output,) = tool_outputs(session, self.supervisor_tool)
            assert output.is_error
            assert agent_lines(session)[-2:] == [IDENTITY_QUESTION, output.output]
            assert await audit_events(session, kind=self.writes) == []
        assert not any(turn.offers(self.task_tools) for turn in model.turns)
        assert not model.overran
        return output.output
