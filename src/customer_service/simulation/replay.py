"""`make scenarios`: every scenario of `scenarios.yaml` replayed offline.

Each scenario's scripted caller (`userdata.caller`) talks to the real agent on the
offline model through `chat.converse`, as `make chat` runs it, on a scratch store
prepared as the scenario starts; the store it leaves is graded by the same comparison
that grades a simulation on LiveKit Cloud. Prints a pass/fail table with the reason for
each failure; the exit status is 1 when any scenario fails.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from customer_service.chat import converse
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import ModelProvider, Settings
from customer_service.simulation.grading import ScenarioStore
from customer_service.simulation.scenarios import (
    SCENARIOS_FILE,
    Scenario,
    ScenariosInvalid,
    load_scenarios,
)
from customer_service.testing import scratch_database

__all__ = ["ReplayResult", "main", "print_table", "replay", "replay_all"]


_REPLAY_SETTINGS = Settings.model_validate({"model_provider": ModelProvider.OFFLINE})
"""The defaults, whatever the developer's environment says: a replay is the same on
every machine. (`model_validate` reads no environment variables or files.)"""


@dataclass(frozen=True)
class ReplayResult:
    label: str
    specialist: str
    problems: tuple[str, ...]
    transcript: str

    @property
    def passed(self) -> bool:
        return not self.problems


async def replay(scenario: Scenario) -> ReplayResult:
    """One scenario's scripted call on a scratch store, graded by the state it left."""
    userdata = scenario.userdata
    out = io.StringIO()
    async with scratch_database() as database_url:
        scenario_store = await ScenarioStore.open(userdata, database_url)
        try:
            await converse(
                OfflineLLM(),
                database_url=database_url,
                lines=io.StringIO("".join(f"{line}\n" for line in userdata.caller)),
                out=out,
                echo_caller=True,
                store=scenario_store.store.for_call(),
                settings=_REPLAY_SETTINGS,
            )
            problems = await scenario_store.differences()
        finally:
            await scenario_store.close()
    return ReplayResult(scenario.label, scenario.specialist, tuple(problems), out.getvalue())


async def replay_all(scenarios: Sequence[Scenario]) -> list[ReplayResult]:
    """Every scenario, one after the other (each call has its own store)."""
    return [await replay(scenario) for scenario in scenarios]


def print_table(results: Sequence[ReplayResult], out: TextIO) -> None:
    """One row per scenario: the verdict, the specialist, the label, and for a failure
    each reason on its own line beneath."""
    width = max((len(result.specialist) for result in results), default=0)
    for result in results:
        verdict = "pass" if result.passed else "FAIL"
        print(f"{verdict}  {result.specialist:<{width}}  {result.label}", file=out)
        for problem in result.problems:
            print(f"{'':6}{'':<{width}}  - {problem}", file=out)
    failed = sum(not result.passed for result in results)
    print(f"{len(results) - failed} passed, {failed} failed, {len(results)} scenarios", file=out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m customer_service.simulation",
        description="Replay every scenario offline and grade each by the store it leaves.",
    )
    parser.add_argument("--file", type=Path, default=SCENARIOS_FILE, help="scenario file")
    parser.add_argument("--label", action="append", help="only this scenario (repeatable)")
    parser.add_argument(
        "--show", action="store_true", help="print each failing scenario's conversation"
    )
    args = parser.parse_args(argv)
    # The table is the output: the agent's own logs would bury it.
    logging.basicConfig(level=logging.CRITICAL)
    try:
        scenario_file = load_scenarios(args.file)
    except ScenariosInvalid as error:
        print(error, file=sys.stderr)
        return 2
    scenarios = [s for s in scenario_file.scenarios if not args.label or s.label in args.label]
    if not scenarios:
        print("no scenario has that label", file=sys.stderr)
        return 2
    results = asyncio.run(replay_all(scenarios))
    print_table(results, sys.stdout)
    if args.show:
        for result in results:
            if not result.passed:
                print(f"\n--- {result.label}\n{result.transcript}", file=sys.stdout)
    return 0 if all(result.passed for result in results) else 1
