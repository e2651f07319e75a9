"""One registration per specialist: everything else about it is derived from this.

A specialist's module ends with its supervisor tool, decorated with `supervisor_tool`:
the tool's name, docstring and arguments are what the supervisor's model is offered,
its body runs the specialist's task, checks the result and writes it, and the decorator
adds what the supervisor says about it (`when_to_use`, a line of its instructions),
what the agent says it can do (`menu_phrase`), the audit event its write stores
(`writes`), what the report page calls it (`plain_name`, `explains`) and what a
scenario can expect of the store after it (`expects`). The
supervisor's tools and instructions, the package's exports and the report page's names
are built from these registrations (`SPECIALISTS` in `customer_service.specialists`,
found by looking through it), never listed by hand.

The tool's first parameter is the `Desk`: what the supervisor lends it (the history, the
verified caller for work on their account, the verified caller's order for work on an
order, the consent questions it owes the caller). The supervisor binds
each tool to itself like one of its own methods, so the model sees only the arguments
after the run context.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import textwrap
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Concatenate, ParamSpec, Protocol, TypeVar

from livekit.agents import RunContext, function_tool, llm
from livekit.agents.utils import misc
from pydantic import BaseModel, Field

from customer_service.call.guard import guarded
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.order_numbers import FORMS as ORDER_NUMBER_FORMS

if TYPE_CHECKING:
    from customer_service.call.consent_wording import ConsentTopic
    from customer_service.domain import Customer
    from customer_service.simulation.expectations import ScenarioExpectation

__all__ = [
    "PASS_ORDER_ID",
    "CallersOrderId",
    "Desk",
    "SpecialistRegistration",
    "registrations_in",
    "supervisor_tool",
]

P = ParamSpec("P")
R = TypeVar("R")

CallersOrderId = Annotated[
    str | None,
    Field(
        description=(
            f"The order number ({ORDER_NUMBER_FORMS}) if the caller already said it, or "
            'the order just discussed when they say "that order"; else omit.'
        )
    ),
]
"""A supervisor tool's `order_id` argument: the order the caller means, when they said
it; the tool passes it to `Desk.callers_order`."""

PASS_ORDER_ID = "Pass order_id when the caller has already said the number."
"""The end of the instruction line (`when_to_use`) of a tool that takes `CallersOrderId`."""


class Desk(Protocol):
    """What the supervisor lends a specialist's supervisor tool."""

    @property
    def chat_ctx(self) -> llm.ChatContext:
        """The supervisor's whole history: the caller's own words that asked for this."""
        ...

    def recent_history(self) -> llm.ChatContext:
        """The last few turns, for a specialist that may use details already given."""
        ...

    async def verified_caller(self, state: CallState) -> Customer:
        """The verified caller (verifying them first if needed), for a specialist that
        works on their account, not on an order: only ever the caller's own account, since
        nothing the model passes can name another. Raises a speakable `ToolError` when the
        caller cannot be verified."""
        ...

    async def callers_order(
        self, state: CallState, order_id: str | None, *, disclosing: bool = False
    ) -> tuple[Customer, OrderLookupResult]:
        """The verified caller (verifying them first if needed) and their order, checked,
        its disclosure recorded when `disclosing`. Raises a speakable `ToolError`."""
        ...

    def owe_question(
        self, topic: ConsentTopic, *, after_output_of: str | None = None, lead_in: str = ""
    ) -> None:
        """Puts the consent question on `topic` once a reply has played: right after the
        output of tool call `after_output_of`, said as `lead_in`, when given."""
        ...

    def asked_now(self, topic: ConsentTopic) -> None:
        """The question on `topic` is being asked now: it is no longer owed."""
        ...

    def answer_first(self, topic: ConsentTopic) -> None:
        """The caller talked over the question on `topic`: their words get a reply, then
        the question is put again."""
        ...


ToolBody = Callable[Concatenate[Desk, RunContext[CallState], P], Awaitable[R]]


@dataclass(frozen=True)
class SpecialistRegistration:
    """A specialist as the rest of the agent knows it."""

    task: type[Specialist[Any]]
    result: type[BaseModel]
    tool: llm.FunctionTool[Any, Any]
    """The supervisor tool, unbound: its first parameter is the `Desk`."""
    when_to_use: str
    """The supervisor's instruction line for the tool, after its name."""
    menu_phrase: str | None = None
    """What the agent says it can do ("cancel an order"), if it offers it by name."""
    writes: str | None = None
    """The kind of audit event its write stores: a change the caller came for, so a call
    that stored one is resolved (`reports.collect.SERVED`)."""
    plain_name: str | None = None
    """What the report page calls it ("Cancellation"), for an operator."""
    explains: str | None = None
    """The page's sentence on what it does, where the plain name alone does not say."""
    expects: ScenarioExpectation | None = None
    """What a scenario can expect of the store after it, when the fields every call
    shares (an order's status, address, items, payments) do not show its change."""

    @property
    def tool_name(self) -> str:
        return self.tool.info.name

    @property
    def task_id(self) -> str:
        """The id its task runs under, as the reports name it: the task's class name in
        snake case ("cancellation_task")."""
        return misc.camel_to_snake_case(self.task.__name__)

    @property
    def name(self) -> str:
        """The specialist's name: its module's ("cancellation"), which its offline-model
        module shares."""
        return self.task.__module__.rpartition(".")[2]

    @functools.cached_property
    def instruction_line(self) -> str:
        """Its line in the supervisor's instructions; wrapped once, not on every call."""
        line = f"- {self.tool_name}: {self.when_to_use}"
        return textwrap.fill(line, width=88, subsequent_indent="  ")

    def bound_to(self, desk: Desk) -> llm.FunctionTool[Any, Any]:
        # A function tool is a descriptor: bound like a method, its first parameter is
        # `desk` and the schema the model sees starts after the run context.
        return self.tool.__get__(desk, type(desk))


def supervisor_tool(
    task: type[Specialist[Any]],
    result: type[BaseModel],
    *,
    when_to_use: str,
    menu_phrase: str | None = None,
    writes: str | None = None,
    plain_name: str | None = None,
    explains: str | None = None,
    expects: ScenarioExpectation | None = None,
) -> Callable[[ToolBody[P, R]], SpecialistRegistration]:
    """Registers a specialist by its supervisor tool. The tool may start a specialist, so
    two sent in one reply run in turn (`guarded(one_at_a_time=True)`)."""

    def register(body: ToolBody[P, R]) -> SpecialistRegistration:
        tool = function_tool(guarded(one_at_a_time=True)(body))
        return SpecialistRegistration(
            task=task,
            result=result,
            tool=tool,
            when_to_use=when_to_use,
            menu_phrase=menu_phrase,
            writes=writes,
            plain_name=plain_name,
            explains=explains,
            expects=expects,
        )

    return register


def registrations_in(package: str, paths: Iterable[str]) -> tuple[SpecialistRegistration, ...]:
    """The registration of every module in the package, in module order: each module is
    one specialist and holds exactly one, so a new file is found without an edit."""
    found: list[SpecialistRegistration] = []
    for module_info in sorted(pkgutil.iter_modules(list(paths)), key=lambda info: info.name):
        module = importlib.import_module(f"{package}.{module_info.name}")
        registered = [
            value
            for value in vars(module).values()
            if isinstance(value, SpecialistRegistration)
            and value.tool.__module__ == module.__name__
        ]
        if len(registered) != 1:
            raise LookupError(
                f"{module.__name__} must register one supervisor tool, found {len(registered)}"
            )
        found.extend(registered)
    names = [registration.tool_name for registration in found]
    if len(set(names)) != len(names):
        raise LookupError(f"two specialists register the same supervisor tool: {names}")
    return tuple(found)
