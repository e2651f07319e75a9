"""`make scenarios`: every scenario of `scenarios.yaml` replayed offline with its scripted
caller and graded by the store it leaves; the table and the exit status say which fail."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from customer_service.simulation import replay as replay_module
from customer_service.simulation.replay import ReplayResult, print_table, replay_all
from customer_service.simulation.scenarios import SCENARIOS_FILE, load_scenarios


async def test_every_scenario_passes_offline(store_backend: str) -> None:
    results = await replay_all(load_scenarios().scenarios)
    failed = {result.label: (result.problems, result.transcript) for result in results}
    failed = {label: why for label, why in failed.items() if why[0]}
    assert failed == {}


def test_a_failing_scenario_fails_the_command_with_its_reason(
    store_backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = yaml.safe_load(SCENARIOS_FILE.read_text(encoding="utf-8"))
    [order_status] = [s for s in raw["scenarios"] if s["label"] == "Order status by number"]
    # Deliberately wrong: the lookup changes nothing, this expects 100101 cancelled.
    expects_cancelled = {"orders": {"100101": {"status": "cancelled"}}}
    wrong = order_status | {
        "label": "Expects what the call never does",
        "userdata": order_status["userdata"] | {"expect": expects_cancelled},
    }
    path = tmp_path / "scenarios.yaml"
    path.write_text(
        yaml.safe_dump({"name": "test", "scenarios": [order_status, wrong]}), encoding="utf-8"
    )
    assert replay_module.main(["--file", str(path)]) == 1
    table = capsys.readouterr().out.splitlines()
    assert table == [
        "pass  order_lookup  Order status by number",
        "FAIL  order_lookup  Expects what the call never does",
        "                    - order 100101: status is processed, expected cancelled",
        "1 passed, 1 failed, 2 scenarios",
    ]
    assert replay_module.main(["--file", str(path), "--label", "Order status by number"]) == 0


def test_the_table_lists_every_reason() -> None:
    out = io.StringIO()
    print_table(
        [
            ReplayResult("A", "consent", (), ""),
            ReplayResult("B", "identity", ("first reason", "second reason"), ""),
        ],
        out,
    )
    assert out.getvalue().splitlines() == [
        "pass  consent   A",
        "FAIL  identity  B",
        "                - first reason",
        "                - second reason",
        "1 passed, 1 failed, 2 scenarios",
    ]
