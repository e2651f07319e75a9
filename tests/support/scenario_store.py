"""A scenario's store on its own, for tests of what a scenario expects: the demo data with
the scenario's starting changes, graded by `differences()` as a simulation is."""

from __future__ import annotations

from pathlib import Path

from customer_service.simulation.grading import ScenarioStore
from customer_service.simulation.scenarios import ScenarioUserdata
from customer_service.testing import sqlite_url


def scenario(**userdata: object) -> ScenarioUserdata:
    """A scenario's userdata: `expect`, `start` and the like; a caller line of its own."""
    return ScenarioUserdata.model_validate({"caller": ["hello"], **userdata})


async def opened(tmp_path: Path, userdata: ScenarioUserdata) -> ScenarioStore:
    return await ScenarioStore.open(userdata, sqlite_url(tmp_path / "store.sqlite3"))
