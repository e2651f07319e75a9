"""Time the application adds per caller turn, with zero-latency models.

    .venv/bin/python -m benchmarks.turn_time [--repeats 5]

Every intent in both variants, `--repeats` times, through this agent and the
single-agent baseline (fresh SQLite store each), and as many turns through a bare
agent (one `Agent`, no tools, no store: the framework's own floor), all in this run,
interleaved. A turn is one `session.run(user_input=...)`, from the caller's words to
the agent's last reply of that turn. Only turns of flows that succeeded count.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmarks.callers import Intent, Variant, demo_caller
from benchmarks.common import machine, median, ms, percentile, print_table, quiet_logs
from benchmarks.conversation import AgentKind, FlowRun, run_bare, run_flow

BARE_TURNS_PER_CALL = 5


@dataclass
class TurnTimes:
    agent: AgentKind
    seconds: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def add(self, run: FlowRun) -> None:
        if run.succeeded:
            self.seconds.extend(run.turn_seconds)
        else:
            self.failures.append(f"{run.intent} {run.variant}: {run.failure}")

    @property
    def median(self) -> float:
        return median(self.seconds)

    @property
    def p95(self) -> float:
        return percentile(self.seconds, 0.95)


async def measure(repeats: int) -> dict[AgentKind, TurnTimes]:
    times = {agent: TurnTimes(agent) for agent in AgentKind}
    # One untimed round first: imports and first-use caches are not per-turn costs.
    for agent in (AgentKind.SUPERVISED, AgentKind.SINGLE):
        await run_flow(agent, demo_caller(Intent.LOOKUP), Intent.LOOKUP, Variant.ASKED)
    await run_bare(BARE_TURNS_PER_CALL)
    for _ in range(repeats):
        for intent in Intent:
            for variant in Variant:
                for agent in (AgentKind.SUPERVISED, AgentKind.SINGLE):
                    run = await run_flow(agent, demo_caller(intent), intent, variant, measure=False)
                    times[agent].add(run)
                times[AgentKind.BARE].add(await run_bare(BARE_TURNS_PER_CALL))
    return times


def report(times: dict[AgentKind, TurnTimes]) -> None:
    bare = times[AgentKind.BARE]
    rows = []
    for agent in AgentKind:
        measured = times[agent]
        added_median = measured.median - bare.median
        added_p95 = measured.p95 - bare.p95
        rows.append(
            [
                agent.value,
                len(measured.seconds),
                ms(measured.median),
                ms(measured.p95),
                "-" if agent is AgentKind.BARE else ms(added_median),
                "-" if agent is AgentKind.BARE else ms(added_p95),
                len(measured.failures),
            ]
        )
    print_table(
        "Time per caller turn, zero-latency model (ms)",
        ["agent", "turns", "median", "p95", "added median", "added p95", "failed flows"],
        rows,
    )
    print("\nadded = this figure minus the bare agent's (the framework's floor), same run.")
    for measured in times.values():
        for failure in measured.failures[:5]:
            print(f"FAILED ({measured.agent.value}): {failure}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--verbose", action="store_true", help="show warnings and errors")
    args = parser.parse_args(argv)
    quiet_logs(args.verbose)
    print(f"Machine: {machine()}")
    report(asyncio.run(measure(args.repeats)))


if __name__ == "__main__":
    main()
