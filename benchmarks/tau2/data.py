"""The benchmark's files: vendored here, or wherever `--db` and `--tasks` point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from customer_service.store.tau2_records import read_json as load_json

__all__ = ["DEFAULT_DB", "DEFAULT_SPLITS", "DEFAULT_TASKS", "load_json", "task_actions"]

DATA = Path(__file__).with_name("data")
DEFAULT_DB = DATA / "db.json.gz"
DEFAULT_TASKS = DATA / "tasks.json.gz"
DEFAULT_SPLITS = DATA / "split_tasks.json.gz"


def task_actions(task: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool calls a correct agent makes for `task`, in order (its gold actions)."""
    criteria = task.get("evaluation_criteria") or {}
    return list(criteria.get("actions") or [])
