"""Prompt tokens a specialist and the supervisor receive as a call grows long.

    .venv/bin/python -m benchmarks.prompt_growth [--turns 5,20,50]

One long call: the caller verifies, then asks about one order after another, each
time with its number (the supervisor looks it up in code), except just before each
measured turn, where they ask without a number, so the order-lookup specialist asks
and the measured turn is their answer. At that turn both the specialist's request
(the lookup) and the supervisor's (relaying the result) are measured, as the scripted
model received them. The single-agent baseline serves the same caller words.

The call's guardrails are raised for this run only (repeated identical tool calls,
starts per specialist, delegations per call): a real caller asking this much would
be offered a colleague first. The bounds change when a call stops, not what a request
holds.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession

from benchmarks.callers import BenchPopulation, Caller, Intent, add_population
from benchmarks.common import (
    TOKENIZER_NOTE,
    MeasuredLLM,
    apologies_in,
    bench_settings,
    machine,
    print_table,
    quiet_logs,
    spoken_lines,
    verdict,
)
from benchmarks.models import single_agent_model, supervised_model
from benchmarks.single_agent import single_agent_session
from customer_service.settings import Settings
from customer_service.testing import call_session, open_demo_store, sqlite_url

TARGET = "A specialist's prompt at the 50th turn at most a third of the supervisor's"
DEFAULT_TURNS = (5, 20, 50)


@dataclass(frozen=True)
class Growth:
    turn: int
    specialist: int | None
    supervisor: int | None
    single: int | None


def long_call(caller_first: Caller, population: BenchPopulation, turns: Sequence[int]) -> list[str]:
    """What the caller says, turn by turn, up to the last measured turn."""
    orders = population.order_ids(0)
    asked_without_number = {turn - 1 for turn in turns}
    said: list[str] = [f"Hi, this is {caller_first.identity_words}. Where is my order {orders[0]}?"]
    said.append(caller_first.identity_words)
    next_order = 1
    for turn in range(3, max(turns) + 1):
        order = orders[next_order % len(orders)]
        if turn in asked_without_number:
            said.append("I'd like to check another order.")
            continue
        next_order += 1
        said.append(
            f"It's {order}." if turn - 1 in asked_without_number else f"Where is order {order}?"
        )
    return said


def _settings() -> Settings:
    return bench_settings(
        repeated_tool_call_limit=10, specialist_max_attempts=10, max_delegations_per_call=100
    )


async def _play(words: list[str], session: AgentSession[Any], model: MeasuredLLM) -> list[str]:
    for turn, said in enumerate(words, start=1):
        model.caller_turn = turn
        await session.run(user_input=said)
    return spoken_lines(session)


def _largest(model: MeasuredLLM, turn: int, tool: str | None) -> int | None:
    sizes = [
        request.tokens
        for request in model.requests
        if request.caller_turn == turn and (tool is None or tool in request.tool_names)
    ]
    return max(sizes) if sizes else None


async def measure(turns: Sequence[int]) -> list[Growth]:
    population = BenchPopulation(customers=1, orders_each=max(turns) + 10, first_order=600000)
    caller = population.caller(0)
    words = long_call(caller, population, turns)
    settings = _settings()
    with tempfile.TemporaryDirectory(prefix="cs-bench-") as scratch:
        store = await open_demo_store(sqlite_url(Path(scratch) / "store.sqlite3"))
        async with store:
            await add_population(store, population)
            supervised = MeasuredLLM(supervised_model(caller, Intent.LOOKUP), max_requests=400)
            async with call_session(
                supervised, settings=settings, store=store.for_call()
            ) as session:
                lines = await _play(words, session, supervised)
                call_id = session.userdata.call_id
            single = MeasuredLLM(single_agent_model(caller, Intent.LOOKUP), max_requests=400)
            async with single_agent_session(
                single, store=store.for_call(), settings=settings
            ) as baseline:
                single_lines = await _play(words, baseline, single)
                single_call_id = baseline.userdata.call_id
            for name, model, heard, call in (
                ("this agent", supervised, lines, call_id),
                ("the baseline", single, single_lines, single_call_id),
            ):
                _check_long_call(name, model, heard)
                disclosed = await store.audit_events(call_id=call, kind="order_disclosed")
                expected = len([w for w in words if "another order" not in w]) - 1
                if len(disclosed) != expected:
                    raise RuntimeError(
                        f"{name}: {len(disclosed)} orders disclosed in the long call, "
                        f"expected {expected}"
                    )
    return [
        Growth(
            turn=turn,
            specialist=_largest(supervised, turn, "lookup"),
            supervisor=_largest(supervised, turn, "lookup_order"),
            single=_largest(single, turn, None),
        )
        for turn in turns
    ]


def _check_long_call(name: str, model: MeasuredLLM, lines: list[str]) -> None:
    if model.overran:
        raise RuntimeError(f"{name}: the model made more requests than the long call needs")
    if heard := apologies_in(lines):
        raise RuntimeError(f"{name}: the caller heard an apology in the long call: {heard[0]!r}")


def report(growth: Sequence[Growth]) -> str:
    def cell(value: int | None) -> str:
        return "-" if value is None else str(value)

    rows = []
    for point in growth:
        ratio = (
            f"{point.specialist / point.supervisor:.2f}"
            if point.specialist and point.supervisor
            else "-"
        )
        rows.append(
            [point.turn, cell(point.specialist), cell(point.supervisor), ratio, cell(point.single)]
        )
    print_table(
        "Prompt tokens per request as the call grows (largest request at that caller turn)",
        ["caller turn", "specialist", "supervisor", "specialist/supervisor", "single agent"],
        rows,
    )
    print(f"\n{TOKENIZER_NOTE}.")
    at_50 = next((p for p in growth if p.turn == 50), None)
    if at_50 is None or not at_50.specialist or not at_50.supervisor:
        shown = "not measured (needs turn 50)"
    else:
        shown = verdict(at_50.specialist * 3 <= at_50.supervisor)
    print(f"Target: {TARGET}: {shown}")
    return shown


def parse_turns(text: str) -> list[int]:
    turns = sorted({int(part) for part in text.split(",") if part.strip()})
    if not turns or turns[0] < 4:
        raise argparse.ArgumentTypeError("measured turns start at 4 (the caller verifies first)")
    if any(later - earlier < 2 for earlier, later in itertools.pairwise(turns)):
        raise argparse.ArgumentTypeError("measured turns must be at least 2 apart")
    return turns


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=parse_turns, default=list(DEFAULT_TURNS))
    parser.add_argument("--verbose", action="store_true", help="show warnings and errors")
    args = parser.parse_args(argv)
    quiet_logs(args.verbose)
    print(f"Machine: {machine()}")
    report(asyncio.run(measure(args.turns)))


if __name__ == "__main__":
    main()
