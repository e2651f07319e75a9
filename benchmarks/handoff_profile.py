"""Where a hand-off turn's CPU goes: a profile of the turns in which agents hand over.

    .venv/bin/python -m benchmarks.handoff_profile [--calls 20]

Runs `--calls` cancellation calls with everything said up front (one caller turn: the
identity check, the order read, the cancellation specialist's read-back: two hand-offs)
and then the caller's yes (the specialist hands back), each its own generated caller on
one store, under `cProfile` with the process CPU clock. Reported: CPU per call split by
whose code ran it (each function's own time, grouped by package), and the framework
functions that rebuild per agent or per tool call what does not change, with their
calls and CPU per call.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from benchmarks.callers import BenchPopulation, Intent, Variant, add_population, demo_caller
from benchmarks.common import machine, print_table, quiet_logs
from benchmarks.conversation import AgentKind, run_flow
from benchmarks.databases import empty_database
from customer_service.testing import open_demo_store

GROUPS = (
    ("customer_service/", "this project"),
    ("livekit/agents/voice/", "livekit-agents: voice (sessions, activities, tools)"),
    ("livekit/agents/llm/", "livekit-agents: llm (tool contexts, arguments, chat)"),
    ("livekit/agents/", "livekit-agents: other (telemetry, utils)"),
    ("opentelemetry/", "OpenTelemetry"),
    ("pydantic", "pydantic"),
    ("sqlalchemy/", "SQLAlchemy"),
    ("aiosqlite/", "aiosqlite"),
    ("asyncio/", "asyncio"),
)
WATCHED = {
    "find_function_tools": "tool discovery on each new agent or task (class introspection)",
    "_update_tools": "tool context rebuilt on each agent or task update",
    "validated_arguments": "argument model built for each tool call",
}


def group_of(filename: str) -> str:
    if filename == "~":
        return "built-ins and C methods (called from all of the above)"
    return next((name for marker, name in GROUPS if marker in filename), "other Python")


async def profile(calls: int) -> tuple[pstats.Stats, float, int]:
    population = BenchPopulation(customers=calls)
    with tempfile.TemporaryDirectory(prefix="cs-bench-profile-") as scratch:
        store = await open_demo_store(await empty_database("sqlite", Path(scratch)))
        async with store:
            await add_population(store, population)
            await run_flow(
                AgentKind.SUPERVISED,
                demo_caller(Intent.CANCEL),
                Intent.CANCEL,
                Variant.ASKED,
                measure=False,
            )  # untimed: first-use caches
            profiler = cProfile.Profile(time.process_time)
            completed = 0
            cpu_before = time.process_time()
            for index in range(calls):
                profiler.enable()
                run = await run_flow(
                    AgentKind.SUPERVISED,
                    population.caller(index),
                    Intent.CANCEL,
                    Variant.UP_FRONT,
                    store=store,
                    measure=False,
                    check=False,
                )
                profiler.disable()
                completed += run.succeeded
            cpu = time.process_time() - cpu_before
    return pstats.Stats(profiler), cpu, completed


def report(stats: pstats.Stats, cpu: float, completed: int) -> None:
    own: Counter[str] = Counter()
    watched: dict[str, tuple[int, float]] = {}
    raw = stats.stats  # type: ignore[attr-defined]
    for (filename, _, function), (_, calls, tottime, cumtime, _) in raw.items():
        own[group_of(filename)] += tottime
        if function in WATCHED and "livekit/agents" in filename:
            count, seconds = watched.get(function, (0, 0.0))
            watched[function] = (count + calls, seconds + cumtime)
    total = sum(own.values())
    print(
        f"{completed} calls completed; process CPU {cpu * 1000 / max(completed, 1):.1f} ms per call"
    )
    print_table(
        "CPU per call by whose code ran it (own time of each function, grouped)",
        ["code", "ms per call", "share"],
        (
            [name, f"{seconds * 1000 / max(completed, 1):.2f}", f"{seconds / total:.0%}"]
            for name, seconds in own.most_common()
        ),
    )
    print_table(
        "Framework work repeated per agent, update or tool call",
        ["function", "what", "calls per call", "CPU ms per call"],
        (
            [
                name,
                WATCHED[name],
                f"{count / max(completed, 1):.1f}",
                f"{seconds * 1000 / max(completed, 1):.2f}",
            ]
            for name, (count, seconds) in sorted(watched.items())
        ),
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=20, help="calls profiled (20)")
    args = parser.parse_args(argv)
    quiet_logs(verbose=False)
    print(f"Machine: {machine()}")
    report(*asyncio.run(profile(args.calls)))


if __name__ == "__main__":
    main()
