"""`scenarios.yaml`: LiveKit's simulation scenario file, read and checked.

The file is LiveKit's format (a `name` and a list of `scenarios`, each with `label`,
`instructions`, `agent_expectations`, `tags` and `userdata`). What is ours lives in
`userdata`, which the simulator hands to the agent untouched: the store the call starts
from, the state it must leave, and the scripted caller of the offline replay.
"""

from __future__ import annotations

import json
import pkgutil
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from livekit.agents import simulation
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from customer_service import specialists
from customer_service.simulation.state import ExpectedState, StartState

__all__ = [
    "SCENARIOS_FILE",
    "SPECIALIST_TAG",
    "Scenario",
    "ScenarioFile",
    "ScenarioUserdata",
    "ScenariosInvalid",
    "load_scenarios",
    "specialist_names",
    "uncovered_specialists",
]

SCENARIOS_FILE = Path(__file__).resolve().parents[3] / "scenarios.yaml"
"""The project's scenario file, at the root of the checkout."""

SPECIALIST_TAG = "specialist"
"""The tag naming the specialist a scenario exercises: a module of
`customer_service.specialists`."""


class ScenariosInvalid(Exception):
    """The scenario file cannot be read or breaks a rule; the message says where."""


class ScenarioUserdata(BaseModel):
    """Our part of a scenario: where the store starts, where it must end, and the
    caller's lines for the offline replay (the simulator's caller follows
    `instructions` instead)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    start: StartState = StartState()
    expect: ExpectedState = ExpectedState()
    caller: tuple[str, ...] = ()


class Scenario(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = None
    """Given by LiveKit's CLI when it offers to number the file."""
    label: str = Field(min_length=1)
    instructions: str = Field(min_length=1)
    agent_expectations: str = Field(min_length=1)
    tags: dict[str, str]
    userdata: ScenarioUserdata

    @model_validator(mode="after")
    def _complete(self) -> Scenario:
        if SPECIALIST_TAG not in self.tags:
            raise ValueError(f"tags must name the {SPECIALIST_TAG!r} it exercises")
        if not self.userdata.caller:
            raise ValueError("userdata.caller must hold the replay's caller lines")
        return self

    @property
    def specialist(self) -> str:
        return self.tags[SPECIALIST_TAG]

    def to_livekit(self) -> simulation.Scenario:
        """The scenario as LiveKit's simulator sends it to the agent: `userdata` as the
        JSON string that `SimulationContext.userdata()` decodes."""
        return simulation.Scenario(
            id=self.id or "",
            label=self.label,
            instructions=self.instructions,
            agent_expectations=self.agent_expectations,
            tags=self.tags,
            userdata=json.dumps(self.userdata.model_dump(mode="json")),
        )


class ScenarioFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = None
    name: str = Field(min_length=1)
    scenarios: tuple[Scenario, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _labels_are_unique(self) -> ScenarioFile:
        counts = Counter(scenario.label for scenario in self.scenarios)
        repeated = sorted(label for label, count in counts.items() if count > 1)
        if repeated:
            raise ValueError(f"labels used more than once: {', '.join(repeated)}")
        unknown = sorted({s.specialist for s in self.scenarios} - set(specialist_names()))
        if unknown:
            raise ValueError(f"tags name specialists that do not exist: {', '.join(unknown)}")
        return self


def specialist_names() -> tuple[str, ...]:
    """Every specialist module, found rather than listed, so a new specialist's file
    is noticed by the coverage check the day it lands."""
    return tuple(sorted(module.name for module in pkgutil.iter_modules(specialists.__path__)))


def uncovered_specialists(scenario_file: ScenarioFile) -> list[str]:
    covered = {scenario.specialist for scenario in scenario_file.scenarios}
    return [name for name in specialist_names() if name not in covered]


def load_scenarios(path: Path = SCENARIOS_FILE) -> ScenarioFile:
    """Reads and checks a scenario file; raises `ScenariosInvalid` naming the problem."""
    try:
        raw: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise ScenariosInvalid(f"{path}: {error}") from error
    try:
        return ScenarioFile.model_validate(raw)
    except ValidationError as error:
        raise ScenariosInvalid(f"{path}: {error}") from error


def parse_userdata(userdata: dict[str, Any]) -> ScenarioUserdata:
    """A running simulation's scenario userdata, decoded by the framework."""
    return ScenarioUserdata.model_validate(userdata)
