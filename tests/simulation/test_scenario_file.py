"""`scenarios.yaml`: LiveKit's format, every scenario complete, labels unique, every
specialist exercised, and the behaviours issue 18 names all present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from customer_service.simulation.scenarios import (
    SCENARIOS_FILE,
    ScenarioFile,
    ScenariosInvalid,
    load_scenarios,
    specialist_names,
    uncovered_specialists,
)


def test_the_project_file_is_valid_and_covers_every_specialist() -> None:
    scenario_file = load_scenarios()
    assert len(scenario_file.scenarios) >= 20
    assert set(specialist_names()) >= {
        "identity",
        "order_lookup",
        "address_update",
        "cancellation",
        "consent",
    }
    assert uncovered_specialists(scenario_file) == []


def test_the_project_file_holds_the_behaviours_the_issue_names() -> None:
    scenarios = load_scenarios().scenarios
    kinds = [scenario.tags.get("kind") for scenario in scenarios]
    for kind in ("failure", "angry_caller", "topic_switch", "talks_over_agent"):
        assert kind in kinds
    assert kinds.count("adversarial") >= 3
    assert any(s.userdata.start.store_outage for s in scenarios)
    expected = [scenario.userdata.expect for scenario in scenarios]
    assert any(3 in (e.of_specialist("identity_failures") or {}).values() for e in expected)
    topics = {c.topic for e in expected for c in e.of_specialist("consents") or ()}
    assert topics == {"order_updates_sms", "call_recording"}


def test_every_scenario_reaches_the_agent_as_livekit_sends_it() -> None:
    for scenario in load_scenarios().scenarios:
        sent = scenario.to_livekit()
        assert (sent.label, dict(sent.tags)) == (scenario.label, scenario.tags)
        assert json.loads(sent.userdata) == scenario.userdata.model_dump(mode="json")


def write(tmp_path: Path, scenarios: list[dict[str, object]]) -> Path:
    path = tmp_path / "scenarios.yaml"
    path.write_text(yaml.safe_dump({"name": "test", "scenarios": scenarios}), encoding="utf-8")
    return path


def a_scenario(label: str = "one", **changes: object) -> dict[str, object]:
    scenario: dict[str, object] = {
        "label": label,
        "instructions": "Ask where order 100101 is.",
        "agent_expectations": "The agent verifies the caller first.",
        "tags": {"specialist": "order_lookup"},
        "userdata": {"caller": ["Where is my order 100101?"]},
    }
    return scenario | changes


@pytest.mark.parametrize(
    ("scenarios", "problem"),
    [
        ([a_scenario("same"), a_scenario("same")], "labels used more than once: same"),
        ([a_scenario(tags={"kind": "happy_path"})], "tags must name the 'specialist'"),
        (
            [a_scenario(tags={"specialist": "refunds"})],
            "tags name specialists that do not exist: refunds",
        ),
        ([a_scenario(userdata={"caller": []})], "userdata.caller must hold the replay's"),
        ([a_scenario(instructions="")], "instructions"),
        ([a_scenario(agent_expectations=None)], "agent_expectations"),
        (
            [a_scenario(userdata={"caller": ["hi"], "expect": {"order": {}}})],
            "expect.order",
        ),
        ([], "scenarios"),
    ],
)
def test_a_file_breaking_a_rule_is_refused_saying_which(
    tmp_path: Path, scenarios: list[dict[str, object]], problem: str
) -> None:
    path = write(tmp_path, scenarios)
    with pytest.raises(ScenariosInvalid) as refused:
        load_scenarios(path)
    assert str(refused.value).startswith(str(path))
    assert problem in str(refused.value)


def test_a_specialist_without_a_scenario_is_reported(tmp_path: Path) -> None:
    scenario_file = load_scenarios(write(tmp_path, [a_scenario()]))
    assert "consent" in uncovered_specialists(scenario_file)
    assert "order_lookup" not in uncovered_specialists(scenario_file)


def test_the_file_is_the_one_at_the_project_root() -> None:
    assert Path(__file__).resolve().parents[2] / "scenarios.yaml" == SCENARIOS_FILE
    assert isinstance(load_scenarios(SCENARIOS_FILE), ScenarioFile)
