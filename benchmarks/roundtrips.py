"""Round trips per completed intent: this agent against the single-agent baseline.

    .venv/bin/python -m benchmarks.roundtrips [--intent lookup|address|cancel|consent]

For every intent, with the caller's details given up front and only when asked, both
agents serve the same simulated caller on a fresh demo store. Counted per completed
intent: LLM round trips (each is hundreds of milliseconds of silence on a real call),
caller turns, and prompt tokens (approximate, see `common.TOKENIZER_NOTE`). A flow
whose store end state is wrong is printed as FAILED and counts nothing.

The same conversations also count the database work per completed intent
(`customer_service.testing.database_work`):
SQL statements, transactions, and write transactions (those that executed an INSERT,
UPDATE or DELETE), from the session's start until it has closed, so the audit events
this agent writes at the call's end are included. BEGIN and PRAGMA statements are not
in the statement count; they are shown apart ("BEGIN").
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.callers import Intent, Variant, demo_caller
from benchmarks.common import TOKENIZER_NOTE, machine, print_table, quiet_logs, verdict
from benchmarks.conversation import AgentKind, FlowRun, run_flow
from customer_service.testing.database_work import DatabaseWork

TARGET = (
    "Supervised flows: no more LLM round trips and no more caller turns than the "
    "single-agent baseline in every flow and both variants"
)
INTENT_NAMES = {
    "lookup": Intent.LOOKUP,
    "address": Intent.ADDRESS,
    "cancel": Intent.CANCEL,
    "consent": Intent.CONSENT,
}


@dataclass(frozen=True)
class Comparison:
    intent: Intent
    variant: Variant
    supervised: FlowRun
    single: FlowRun

    @property
    def both_succeeded(self) -> bool:
        return self.supervised.succeeded and self.single.succeeded

    @property
    def no_worse(self) -> bool:
        return (
            self.both_succeeded
            and self.supervised.round_trips <= self.single.round_trips
            and self.supervised.caller_turns <= self.single.caller_turns
        )


async def compare(intents: Sequence[Intent], variants: Sequence[Variant]) -> list[Comparison]:
    comparisons = []
    for intent in intents:
        caller = demo_caller(intent)
        for variant in variants:
            supervised = await run_flow(
                AgentKind.SUPERVISED, caller, intent, variant, count_database=True
            )
            single = await run_flow(AgentKind.SINGLE, caller, intent, variant, count_database=True)
            comparisons.append(Comparison(intent, variant, supervised, single))
    return comparisons


def _figures(run: FlowRun) -> list[object]:
    if not run.succeeded:
        return ["FAILED", "-", "-"]
    return [run.round_trips, run.caller_turns, run.prompt_tokens]


def _database_figures(run: FlowRun) -> list[object]:
    work = run.database
    if not run.succeeded or work is None:
        return ["-", "-", "-", "-"]
    return [work.statements, work.transactions, work.writes, work.control]


def _database_totals(runs: Sequence[FlowRun]) -> DatabaseWork | None:
    works = [run.database for run in runs if run.succeeded and run.database is not None]
    if not works or len(works) != len(runs):
        return None
    return DatabaseWork([transaction for work in works for transaction in work.transactions_ended])


def report_database_work(comparisons: Sequence[Comparison]) -> None:
    """The database work table; nothing when the runs were not counted."""
    if not any(c.supervised.database or c.single.database for c in comparisons):
        return
    print_table(
        "Database work per completed intent (this agent | single-agent baseline): SQL "
        "statements, transactions, write transactions, BEGIN/PRAGMA statements apart",
        [
            "flow",
            "details",
            "stmts",
            "txns",
            "writes",
            "BEGIN",
            "base stmts",
            "base txns",
            "base writes",
            "base BEGIN",
        ],
        (
            [
                c.intent.value,
                c.variant.value,
                *_database_figures(c.supervised),
                *_database_figures(c.single),
            ]
            for c in comparisons
        ),
    )
    ours = _database_totals([c.supervised for c in comparisons])
    base = _database_totals([c.single for c in comparisons])
    if ours is not None and base is not None:
        print(
            f"\nAll {len(comparisons)} flows: this agent {ours.statements} statements in "
            f"{ours.transactions} transactions ({ours.writes} writes); the baseline "
            f"{base.statements} in {base.transactions} ({base.writes} writes)."
        )
    print(
        "Counted on the store's engine from the session's start until it closed (audit "
        "events kept for the call's end included); a write transaction executed an "
        "INSERT, UPDATE or DELETE; BEGIN counts SQLite's BEGIN IMMEDIATE (before a "
        "read-then-write) and any PRAGMA, which are not in stmts."
    )


def _remark(comparison: Comparison) -> str:
    problems = [
        f"{name} FAILED: {run.failure}"
        for name, run in (("this", comparison.supervised), ("baseline", comparison.single))
        if run.failure
    ]
    if problems:
        return "; ".join(problems)
    worse = []
    if comparison.supervised.round_trips > comparison.single.round_trips:
        worse.append("more round trips")
    if comparison.supervised.caller_turns > comparison.single.caller_turns:
        worse.append("more caller turns")
    return ", ".join(worse) or "ok"


def report(comparisons: Sequence[Comparison]) -> str:
    print_table(
        "Round trips per completed intent (this agent | single-agent baseline)",
        [
            "flow",
            "details",
            "trips",
            "turns",
            "tokens",
            "base trips",
            "base turns",
            "base tokens",
            "vs baseline",
        ],
        (
            [
                c.intent.value,
                c.variant.value,
                *_figures(c.supervised),
                *_figures(c.single),
                _remark(c),
            ]
            for c in comparisons
        ),
    )
    shown = verdict(all(c.no_worse for c in comparisons))
    print(f"\n{TOKENIZER_NOTE}.")
    print(f"Target: {TARGET}: {shown}")
    report_database_work(comparisons)
    return shown


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--intent", choices=sorted(INTENT_NAMES), action="append")
    parser.add_argument("--verbose", action="store_true", help="show warnings and errors")
    args = parser.parse_args(argv)
    quiet_logs(args.verbose)
    intents = [INTENT_NAMES[name] for name in args.intent] if args.intent else list(Intent)
    print(f"Machine: {machine()}")
    report(asyncio.run(compare(intents, list(Variant))))


if __name__ == "__main__":
    main()
