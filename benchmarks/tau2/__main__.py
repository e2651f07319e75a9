"""`python -m benchmarks.tau2 run|replay|coverage`: see `benchmarks/tau2/__init__.py`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.tau2.command import add_run_command, run_command
from benchmarks.tau2.coverage import coverage_table
from benchmarks.tau2.data import DEFAULT_DB, DEFAULT_TASKS, load_json
from benchmarks.tau2.replay import replay_tasks
from customer_service.settings import Settings


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tau2")
    commands = parser.add_subparsers(dest="command", required=True)
    add_run_command(commands)
    replay = commands.add_parser(
        "replay",
        help="run each task's gold tool calls through the store's operations",
        description="Runs each task's gold tool calls through the store's own operations, "
        "each task on a fresh store loaded from DB, and writes the orders and users that "
        "differ from DB afterwards, and the calls the store refused, by task id.",
    )
    replay.add_argument("--out", type=Path, required=True, help="where the JSON goes")
    replay.add_argument("--db", type=Path, default=DEFAULT_DB, help="τ²-bench's db.json")
    replay.add_argument("--tasks", type=Path, default=DEFAULT_TASKS, help="its tasks.json")
    replay.add_argument(
        "--database-url",
        help="an empty PostgreSQL database to load DB into (a copy of it is made per "
        "task); SQLite files in a temporary folder when not given",
    )
    coverage = commands.add_parser(
        "coverage", help="which tasks' writes the store performs, as a Markdown table"
    )
    coverage.add_argument("--tasks", type=Path, default=DEFAULT_TASKS, help="its tasks.json")
    arguments = parser.parse_args(argv)
    if arguments.command == "run":
        try:
            settings = Settings()
        except ValueError as problem:
            print(f"benchmarks.tau2 run: a setting is not valid: {problem}", file=sys.stderr)
            return 2
        return run_command(arguments, settings)

    tasks = load_json(arguments.tasks)
    if arguments.command == "coverage":
        print(coverage_table(tasks))
        return 0
    results = asyncio.run(replay_tasks(load_json(arguments.db), tasks, arguments.database_url))
    arguments.out.write_text(json.dumps(results, indent=1, sort_keys=True), encoding="utf-8")
    refused = sum(len(result["errors"]) for result in results.values())
    print(f"{len(results)} tasks replayed, {refused} calls refused: {arguments.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
