"""`python src/agent.py report DIR`: a folder of call reports as tables."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from livekit.agents.metrics import LLMModelUsage, STTModelUsage, TTSModelUsage
from reports_folder import REPORTS, write_reports

from customer_service.log_privacy import uninstall_log_privacy
from customer_service.reports.summary import load, percentile, summarise
from customer_service.reports.turns import usage_entries
from customer_service.settings import PROJECT_ROOT, Settings

AGENT = PROJECT_ROOT / "src" / "agent.py"


@pytest.fixture(autouse=True)
def no_log_privacy_left_behind() -> Iterator[None]:
    yield
    # Loading the agent script installs log privacy (and LOG_LEVEL) on this process.
    uninstall_log_privacy()


def agent_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("customer_service_agent_script", AGENT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_summary_counts_outcomes_runs_latency_and_cost(tmp_path: Path) -> None:
    summary = summarise(load(write_reports(tmp_path / "reports")))
    assert summary.calls == 3
    assert dict(summary.outcomes) == {"resolved": 2, "locked": 1}
    assert dict(summary.delegations) == {
        ("verify_identity_task", "completed"): 2,
        ("verify_identity_task", "failed"): 1,
        ("address_update_task", "completed"): 1,
    }
    steps = {step.step: step for step in summary.latencies}
    assert list(steps) == ["end_of_utterance_delay_s", "llm_ttft_s", "tool_s", "specialist_s"]
    assert (steps["llm_ttft_s"].count, steps["llm_ttft_s"].median_s) == (5, 0.3)
    assert steps["llm_ttft_s"].p95_s == 1.0
    assert (steps["end_of_utterance_delay_s"].median_s, steps["tool_s"].p95_s) == (0.7, 0.7)
    assert (steps["specialist_s"].median_s, steps["specialist_s"].p95_s) == (5.0, 30.0)
    [model] = summary.usage
    assert model.amounts == {"input_tokens": 4500, "output_tokens": 450}
    assert model.cost_usd == pytest.approx(0.875)
    assert summary.cost_usd == pytest.approx(0.875)


def test_the_report_command_prints_the_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_reports(tmp_path / "reports")
    assert agent_script().main(["report", str(directory)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("3 calls\n")
    lines = printed.splitlines()
    assert "resolved      2    67%" in lines
    assert "locked        1    33%" in lines
    assert "verify_identity_task  failed        1" in lines
    assert "llm_ttft_s                      5     0.300   1.000" in lines
    assert "specialist_s                    4     5.000  30.000" in lines
    assert (
        "llm   openai/gpt-4.1-mini          4500            450  -           -        $0.8750"
        in lines
    )
    assert "estimated cost: $0.8750" in printed


def test_a_folder_without_reports_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert agent_script().main(["report", str(tmp_path)]) == 1
    assert "holds no call report" in capsys.readouterr().err


def test_a_model_without_a_price_is_not_counted_as_free(tmp_path: Path) -> None:
    reports = load(write_reports(tmp_path / "reports"))
    reports[0]["usage"][0]["cost_usd"] = None
    [model] = summarise(reports).usage
    assert model.cost_usd is None


def test_the_total_cost_names_the_models_without_a_price(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_reports(tmp_path / "reports")
    unpriced = {"kind": "llm", "provider": "acme", "model": "unknown", "cost_usd": None}
    (directory / "call-4.json").write_text(
        json.dumps({**REPORTS[0], "call_id": "call-4", "usage": [unpriced]})
    )
    assert agent_script().main(["report", str(directory)]) == 0
    assert (
        "estimated cost: $0.8750 for the priced models; not priced: acme/unknown"
        in capsys.readouterr().out.splitlines()
    )


def test_a_total_of_models_without_a_price_is_not_priced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "reports"
    directory.mkdir()
    unpriced = {"kind": "llm", "provider": "acme", "model": "unknown", "cost_usd": None}
    (directory / "call-1.json").write_text(json.dumps({**REPORTS[0], "usage": [unpriced]}))
    assert agent_script().main(["report", str(directory)]) == 0
    printed = capsys.readouterr().out
    assert "estimated cost: not priced" in printed.splitlines()
    assert "$0.0000" not in printed


def test_the_default_prices_cover_the_default_models() -> None:
    settings = Settings()
    entries = usage_entries(
        [
            LLMModelUsage(
                provider="openai",
                model="gpt-4.1-mini",
                input_tokens=1_000_000,
                output_tokens=500_000,
            ),
            STTModelUsage(provider="deepgram", model="nova-3", audio_duration=120.0),
            TTSModelUsage(provider="cartesia", model="sonic-3", characters_count=10_000),
            LLMModelUsage(provider="acme", model="unknown"),
        ],
        settings.price_table,
    )
    assert [entry["cost_usd"] for entry in entries] == [
        pytest.approx(1.2),
        pytest.approx(0.0154),
        pytest.approx(0.5),
        None,
    ]


def test_the_nearest_rank_percentile_is_a_measured_value() -> None:
    assert percentile([0.2, 0.1], 0.95) == 0.2
    assert percentile([float(n) for n in range(1, 101)], 0.95) == 95.0
