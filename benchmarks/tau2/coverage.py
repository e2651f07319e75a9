"""Which of the benchmark's tasks the store can complete: those whose every write (a gold
tool call that changes the database) is one of the store's operations."""

from __future__ import annotations

from collections import Counter
from typing import Any

from benchmarks.tau2.actions import WRITES
from benchmarks.tau2.data import task_actions

__all__ = ["coverage_table"]

_WRITE_TOOLS = (
    "cancel_pending_order",
    "modify_pending_order_address",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "exchange_delivered_order_items",
    "return_delivered_order_items",
    "modify_user_address",
)
"""Every tool of τ²-bench's retail domain that changes its database."""


def coverage_table(tasks: list[dict[str, Any]]) -> str:
    """A Markdown table: per write tool, the tasks that need it and the store operation
    that performs it; then the tasks whose every write the store performs."""
    needing: Counter[str] = Counter()
    covered = 0
    for task in tasks:
        writes = {action["name"] for action in task_actions(task)} & set(_WRITE_TOOLS)
        needing.update(writes)
        covered += writes <= WRITES.keys()
    rows = [f"| `{tool}` | {needing[tool]} | {_performed_by(tool)} |" for tool in _WRITE_TOOLS]
    return "\n".join(
        [
            "| τ²-bench write | tasks that need it | performed by |",
            "|---|---|---|",
            *rows,
            "",
            f"τ²-bench retail tasks whose every write the store performs: "
            f"**{covered} of {len(tasks)}**.",
        ]
    )


def _performed_by(tool: str) -> str:
    return f"`Store.{WRITES[tool].store_method}`" if tool in WRITES else "nothing"
