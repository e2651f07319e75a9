"""The store's operations leave what τ²-bench's own tools leave, for all 114 retail tasks.

Each task's gold tool calls run through the store (`benchmarks.tau2.replay`) on a fresh
store loaded from the benchmark's database; the orders and users that differ afterwards,
and the calls refused, must be those τ²-bench's tools leave and refuse
(`data/replay_by_tau2_bench.json.gz`, computed with τ²-bench's code; see its README).

Two differences are the store's on purpose, and are checked to be no more than that:
- money is exact cents: τ²-bench's item-change difference is a float sum (68.92000000000004),
  so amounts compare to the cent;
- an item change writes each changed item's own price and options: τ²-bench's writes the
  last new variant's onto every item of the change (5 tasks change several items at once),
  so the expected records are corrected there, and the test checks that the correction
  touches exactly those tasks and that τ²-bench's value is the last variant's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.tau2.data import task_actions
from benchmarks.tau2.replay import replay_tasks

from support.databases import new_database

from .expected import DB, EXPECTED, TASKS, VARIANTS, comparable, corrected

TASKS_WHERE_TAU2_MISPRICES_CHANGED_ITEMS = {"20", "21", "36", "37", "100"}
CHUNKS = 4
"""The tasks are replayed in this many groups, so test workers share them."""


def test_the_correction_is_tau2s_last_variant_defect_and_only_there() -> None:
    tasks_corrected = set()
    for task in TASKS:
        expected = EXPECTED[task["id"]]
        fixed = corrected(task, expected)
        if fixed == expected:
            continue
        tasks_corrected.add(task["id"])
        [change] = [a for a in task_actions(task) if a["name"] == "modify_pending_order_items"]
        last = VARIANTS[change["arguments"]["new_item_ids"][-1]]
        for order_id, order in expected["orders"].items():
            for item, fixed_item in zip(
                order["items"], fixed["orders"][order_id]["items"], strict=True
            ):
                if item != fixed_item:
                    assert (item["price"], item["options"]) == (last["price"], last["options"])
    assert tasks_corrected == TASKS_WHERE_TAU2_MISPRICES_CHANGED_ITEMS


@pytest.mark.parametrize("chunk", range(CHUNKS))
async def test_every_task_leaves_the_records_tau2_bench_leaves(
    chunk: int, store_backend: str, tmp_path: Path
) -> None:
    tasks = TASKS[chunk::CHUNKS]
    async with new_database(store_backend, tmp_path) as url:
        replayed = await replay_tasks(DB, tasks, None if store_backend == "sqlite" else url)
    for task in tasks:
        expected, ours = EXPECTED[task["id"]], replayed[task["id"]]
        assert [e["action_id"] for e in ours["errors"]] == [
            e["action_id"] for e in expected["errors"]
        ], task["id"]
        fixed = corrected(task, expected)
        for kind in ("orders", "users"):
            assert comparable(ours[kind]) == comparable(fixed[kind]), (task["id"], kind)
