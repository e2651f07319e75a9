"""What τ²-bench's own tools leave for each retail task (computed with its code; see
data/README.md), in the form the store's records are compared with."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from benchmarks.tau2.data import DEFAULT_DB, DEFAULT_TASKS, load_json, task_actions

__all__ = ["DB", "EXPECTED", "TASKS", "VARIANTS", "comparable", "corrected"]

EXPECTED = load_json(Path(__file__).with_name("data") / "replay_by_tau2_bench.json.gz")
DB: dict[str, Any] = load_json(DEFAULT_DB)
TASKS: list[dict[str, Any]] = load_json(DEFAULT_TASKS)
VARIANTS = {
    item_id: variant
    for product in DB["products"].values()
    for item_id, variant in product["variants"].items()
}


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
