"""Each task's gold tool calls, performed through the store's own operations on a fresh
store loaded from the benchmark's database, and what they left: every order and user
whose record differs from the database afterwards, in the benchmark's shape, and the
calls the store refused.

    python -m benchmarks.tau2 replay --out OUT.json [--db DB.json] [--tasks TASKS.json]
        [--database-url URL]

OUT[task_id] = {"orders": {id: record}, "users": {id: record}, "errors": [...]}; each
error names the gold action (`action_id`, `name`) and the store's reason.
"""

from __future__ import annotations

from typing import Any

from benchmarks.tau2.actions import ToolCall, ToolRefused, perform
from benchmarks.tau2.data import task_actions
from benchmarks.tau2.stores import FreshStores
from customer_service.store import Store

__all__ = ["changed_records", "perform_gold_actions", "replay_task", "replay_tasks"]


async def replay_tasks(
    db: dict[str, Any], tasks: list[dict[str, Any]], database_url: str | None = None
) -> dict[str, dict[str, Any]]:
    """What each task's gold actions leave, by task id (see the module's docstring)."""
    results: dict[str, dict[str, Any]] = {}
    async with FreshStores(db, database_url) as stores:
        for task in tasks:
            async with stores.fresh() as store:
                results[task["id"]] = await _replay_task(store, db, task)
    return results


async def _replay_task(store: Store, db: dict[str, Any], task: dict[str, Any]) -> dict[str, Any]:
    errors = await perform_gold_actions(store, task)
    return changed_records(db, await store.export_tau2()) | {"errors": errors}


async def replay_task(store: Store, task: dict[str, Any]) -> dict[str, Any]:
    """The store's records (`Store.export_tau2`) after the task's gold actions."""
    await perform_gold_actions(store, task)
    return await store.export_tau2()


async def perform_gold_actions(store: Store, task: dict[str, Any]) -> list[dict[str, str]]:
    """Performs the task's gold actions on `store`; the calls it refused, with why."""
    errors = []
    for action in task_actions(task):
        call = ToolCall(
            name=action["name"],
            arguments=action["arguments"],
            call_id=f"tau2-{task['id']}-{action['action_id']}",
        )
        try:
            await perform(store, call)
        except ToolRefused as refusal:
            errors.append(
                {"action_id": action["action_id"], "name": call.name, "error": str(refusal)}
            )
    return errors


def changed_records(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The orders and users of `after` whose record is not the one in `before`."""
    return {
        kind: {
            record_id: record
            for record_id, record in after[kind].items()
            if before[kind].get(record_id) != record
        }
        for kind in ("orders", "users")
    }
