"""Every tool runs inside the guard, which tells the framework its signature at once.

The framework reads a tool's signature each time the tool is read from an agent, and
every agent and specialist reads all of its tools as it is built. The guard stores the
signature on the method it wraps, so that read finds it instead of rebuilding it; the
schema the model sees is the method's own either way.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from livekit.agents import RunContext, function_tool, llm
from livekit.agents.llm.utils import function_arguments_to_pydantic_model

from customer_service.call.guard import guarded
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.specialists import SPECIALISTS
from customer_service.supervisor import CustomerServiceAgent


def _subclasses(kind: type[Any]) -> Iterator[type[Any]]:
    for subclass in kind.__subclasses__():
        yield subclass
        yield from _subclasses(subclass)


def _method_tools() -> list[tuple[str, llm.FunctionTool[Any, Any]]]:
    # The product's own agents: not the stand-ins other test modules may have defined.
    owners = [
        owner
        for owner in (CustomerServiceAgent, *_subclasses(Specialist))
        if owner.__module__.startswith("customer_service.")
    ]
    return [
        (f"{owner.__name__}.{name}", member)
        for owner in owners
        for name, member in vars(owner).items()
        if isinstance(member, llm.FunctionTool)
    ]


GUARDED_TOOLS = [
    *_method_tools(),
    *((f"supervisor tool {entry.tool.info.name}", entry.tool) for entry in SPECIALISTS),
]


def test_the_agents_have_tools_to_check() -> None:
    # Guards the parametrised test below against finding nothing to check.
    assert len(GUARDED_TOOLS) > len(SPECIALISTS) * 2


@pytest.mark.parametrize(
    "tool", [tool for _, tool in GUARDED_TOOLS], ids=[name for name, _ in GUARDED_TOOLS]
)
def test_a_tool_read_from_its_agent_finds_its_signature_stored(
    tool: llm.FunctionTool[Any, Any],
) -> None:
    wrapper = tool._func
    assert hasattr(wrapper, "__wrapped__"), "a tool that does not run inside the guard"
    method = inspect.unwrap(wrapper)
    stored = vars(method).get("__signature__")

    assert stored is not None, "the guard did not store the method's signature"
    # The framework's read returns the stored object instead of rebuilding it.
    assert inspect.signature(wrapper) is stored
    assert inspect.signature(tool.__get__(object())) == stored.replace(
        parameters=list(stored.parameters.values())[1:]
    )


class _Desk:
    @guarded()
    async def take_note(self, context: RunContext[CallState], note: str) -> str:
        """Take a note.

        Args:
            note: What to note.
        """
        return note


def test_a_tool_made_from_a_bound_guarded_method_takes_only_its_own_arguments() -> None:
    # As the confirmation and address-capture tools are made: `function_tool` given a
    # guarded method already bound to its owner.
    tool = function_tool(_Desk().take_note)

    arguments = function_arguments_to_pydantic_model(tool).model_json_schema()["properties"]

    assert list(inspect.signature(tool).parameters) == ["context", "note"]
    assert list(arguments) == ["note"]


@pytest.mark.parametrize(
    "tool", [tool for _, tool in GUARDED_TOOLS], ids=[name for name, _ in GUARDED_TOOLS]
)
def test_the_schema_the_model_sees_is_the_methods_own(
    tool: llm.FunctionTool[Any, Any],
) -> None:
    # As the framework builds it: from the tool bound to its agent (here, any object).
    owner = object()
    guarded = tool.__get__(owner)
    unguarded = llm.FunctionTool(inspect.unwrap(tool._func), tool.info).__get__(owner)
    from_wrapper = function_arguments_to_pydantic_model(guarded).model_json_schema()
    from_method = function_arguments_to_pydantic_model(unguarded).model_json_schema()

    assert from_wrapper == from_method
