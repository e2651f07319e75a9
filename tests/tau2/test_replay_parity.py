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

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from benchmarks.tau2.data import DEFAULT_DB, DEFAULT_TASKS, load_json, task_actions
from benchmarks.tau2.replay import replay_tasks

from support.databases import new_database

EXPECTED = load_json(Path(__file__).with_name("data") / "replay_by_tau2_bench.json.gz")
DB: dict[str, Any] = load_json(DEFAULT_DB)
TASKS: list[dict[str, Any]] = load_json(DEFAULT_TASKS)
VARIANTS = {
    item_id: variant
    for product in DB["products"].values()
    for item_id, variant in product["variants"].items()
}
TASKS_WHERE_TAU2_MISPRICES_CHANGED_ITEMS = {"20", "21", "36", "37", "100"}
CHUNKS = 4
"""The tasks are replayed in this many groups, so test workers share them."""


def comparable(value: Any) -> Any:
    """`value` with amounts to the cent and unset optional fields left out."""
    if isinstance(value, float):
        return Decimal(str(round(value, 2)))
    if isinstance(value, dict):
        return {key: comparable(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


def corrected(task: dict[str, Any], records: dict[str, Any]) -> dict[str, Any]:
    """τ²-bench's records for `task` with each item its item change named given that
    variant's own price and options."""
    changed_to = {
        (action["arguments"]["order_id"], new_id)
        for action in task_actions(task)
        if action["name"] == "modify_pending_order_items"
        for new_id in action["arguments"]["new_item_ids"]
    }
    orders = {}
    for order_id, order in records["orders"].items():
        items = [
            item
            | {
                "price": VARIANTS[item["item_id"]]["price"],
                "options": VARIANTS[item["item_id"]]["options"],
            }
            if (order_id, item["item_id"]) in changed_to
            else item
            for item in order["items"]
        ]
        orders[order_id] = order | {"items": items}
    return records | {"orders": orders}


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
