"""One registration per specialist: the supervisor's tools and instructions and the
package's exports come from the registrations, and a new specialist file is found
without an edit anywhere else."""

from __future__ import annotations

import sys
from pathlib import Path
from textwrap import dedent

import pytest
from livekit.agents import RunContext, ToolError, function_tool
from pydantic import BaseModel, ConfigDict

from customer_service import specialists, supervisor
from customer_service.call.delegation import delegate
from customer_service.call.registration import Desk, registrations_in, supervisor_tool
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.settings import Settings
from customer_service.specialists import SPECIALISTS
from customer_service.supervisor import CustomerServiceAgent
from customer_service.testing import call_session
from support.conversation import agent_lines, tool_outputs
from support.scripted_llm import Call, Decision, ScriptedLLM, Turn
from support.scripted_llm import relay_tool_output as relay

SPECIALIST_FILES = sorted(
    path.stem
    for path in Path(specialists.__file__).parent.iterdir()
    # A file, or a specialist that is a folder of its own files.
    if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").is_file()
)
COLOUR_QUESTION = "What's your favourite colour?"


class FavouriteColourResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    colour: str


class FavouriteColourTask(Specialist[FavouriteColourResult]):
    """A specialist that exists only in this test: one question, one answer."""

    def __init__(self) -> None:
        super().__init__(instructions="Ask for the caller's favourite colour.")

    async def opening(self) -> None:
        self.session.say(COLOUR_QUESTION)

    @function_tool()
    async def record_colour(self, context: RunContext[CallState], colour: str) -> None:
        """Record the caller's favourite colour.

        Args:
            colour: The colour, as the caller said it.
        """
        self.finish(FavouriteColourResult(colour=colour))


@supervisor_tool(
    FavouriteColourTask,
    FavouriteColourResult,
    when_to_use="the caller wants to tell us their favourite colour.",
    menu_phrase="note your favourite colour",
)
async def note_favourite_colour(desk: Desk, context: RunContext[CallState]) -> str:
    """Note the caller's favourite colour."""
    result = await delegate(context.userdata, FavouriteColourTask())
    if not FavouriteColourResult.model_validate(result).colour.strip():
        raise ToolError("I didn't catch a colour.")
    return f"Noted: {result.colour}."


def test_every_specialist_file_registers_one_supervisor_tool_of_its_own() -> None:
    names = [registration.tool_name for registration in SPECIALISTS]
    assert len(SPECIALISTS) == len(SPECIALIST_FILES)
    assert len(set(names)) == len(names)
    # Each one is declared in the file of the task it runs.
    assert [registration.tool.__module__.rsplit(".", 1)[-1] for registration in SPECIALISTS] == (
        SPECIALIST_FILES
    )
    assert [registration.task.__module__ for registration in SPECIALISTS] == [
        registration.tool.__module__ for registration in SPECIALISTS
    ]


def test_the_supervisor_offers_each_registered_tool_and_lists_it_in_its_instructions() -> None:
    agent = CustomerServiceAgent()
    offered = {tool.id for tool in agent.tools}
    instructions = str(agent.instructions)
    for registration in SPECIALISTS:
        assert registration.tool_name in offered
        assert registration.instruction_line in instructions
    # Its own tools are still its own, and listed after the specialists'.
    assert {"transfer_to_human", "end_call", "ask_owed_question"} <= offered
    assert instructions.index("- verify_identity:") < instructions.index("- transfer_to_human:")


def test_the_package_exports_each_registered_task_with_its_result() -> None:
    for registration in SPECIALISTS:
        for kind in (registration.task, registration.result):
            assert getattr(specialists, kind.__name__) is kind
            assert kind.__name__ in specialists.__all__


def _colour_turn(turn: Turn) -> Decision:
    # The supervisor's model is offered the new tool and told when to use it.
    assert "note_favourite_colour" in turn.tool_names
    assert (
        "- note_favourite_colour: the caller wants to tell us their favourite colour."
        in turn.instructions
    )
    return Call("note_favourite_colour")


async def test_a_registration_added_at_runtime_becomes_a_supervisor_tool_that_runs_its_task(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    registration = note_favourite_colour
    monkeypatch.setattr(supervisor, "SPECIALISTS", (*SPECIALISTS, registration))
    model = ScriptedLLM([_colour_turn, Call("record_colour", {"colour": "teal"}), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I want to tell you my favourite colour")
        assert agent_lines(session)[-1] == COLOUR_QUESTION
        answered = await session.run(user_input="Teal")
        answered.expect.contains_function_call(name="record_colour")
        outputs = tool_outputs(session, "note_favourite_colour")
        assert [output.output for output in outputs] == ["Noted: teal."]
        assert agent_lines(session)[-1] == "Noted: teal."
    assert model.steps_left == 0
    assert not model.overran


def test_a_new_specialist_file_is_found_without_an_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "more_specialists"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "colours.py").write_text(
        dedent(
            f"""
            from livekit.agents import RunContext

            from customer_service.call.registration import Desk, supervisor_tool
            from customer_service.call.state import CallState
            from {__name__} import FavouriteColourResult, FavouriteColourTask
            from {__name__} import note_favourite_colour as imported_elsewhere

            @supervisor_tool(FavouriteColourTask, FavouriteColourResult, when_to_use="colours.")
            async def ask_colour(desk: Desk, context: RunContext[CallState]) -> str:
                '''Ask the caller's favourite colour.'''
                return "asked"
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = registrations_in("more_specialists", [str(package)])
    # The module's own registration only, not one it imported.
    assert [registration.tool_name for registration in found] == ["ask_colour"]
    assert found[0].instruction_line == "- ask_colour: colours."

    (package / "helpers.py").write_text("SOMETHING = 1\n")
    with pytest.raises(LookupError, match="must register one supervisor tool"):
        registrations_in("more_specialists", [str(package)])
    sys.modules.pop("more_specialists.helpers", None)
    (package / "helpers.py").unlink()

    (package / "again.py").write_text((package / "colours.py").read_text())
    with pytest.raises(LookupError, match="the same supervisor tool"):
        registrations_in("more_specialists", [str(package)])
