"""A scenario's own store, and its grade by the state the call left.

Each scenario's call runs on a scratch store of its own: the demo data with the
scenario's starting changes (`StartState`). When the call ends, the store is read and
compared with the scenario's expected state (`state.differences`). On LiveKit Cloud,
`on_simulation_end` turns the differences into `SimulationContext.fail(reason)`; the
offline replay prints them. Production calls never come here: the entrypoint opens a
scenario store only for a job the simulator dispatched.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from livekit.agents import JobContext
from livekit.agents.simulation import SimulationContext
from pydantic import ValidationError
from sqlalchemy import event
from sqlalchemy.engine import Connection

from customer_service.simulation.scenarios import ScenarioUserdata, parse_userdata
from customer_service.simulation.state import (
    StoreState,
    differences,
    prepare_start,
    read_state,
)
from customer_service.store import Store

__all__ = ["ScenarioStore", "on_simulation_end", "simulation_store"]

logger = logging.getLogger(__name__)


class ScenarioStore:
    """A scenario's scratch store: opened seeded and changed as the scenario starts,
    read back at the end. Use `open`."""

    def __init__(
        self,
        store: Store,
        userdata: ScenarioUserdata,
        start: StoreState,
        cleanup: Callable[[], None],
    ) -> None:
        self.store = store
        self.userdata = userdata
        self.start = start
        self._cleanup = cleanup
        self._end_outage: Callable[[], None] | None = None
        self._closed = False
        self._final: list[str] | None = None

    @classmethod
    async def open(
        cls,
        userdata: ScenarioUserdata,
        database_url: str,
        *,
        cleanup: Callable[[], None] = lambda: None,
    ) -> ScenarioStore:
        store = await Store.open(database_url, migrate=True, seed_demo_data=True)
        await prepare_start(store, userdata.start)
        start = await read_state(store, tuple(userdata.expect.orders))
        scenario_store = cls(store, userdata, start, cleanup)
        if userdata.start.store_outage:
            scenario_store._end_outage = _fail_every_statement(store)
        return scenario_store

    async def differences(self) -> list[str]:
        """How the store now differs from what the scenario expects (empty: it matches).
        A store outage ends first, so the state can be read."""
        if self._end_outage is not None:
            self._end_outage()
        end = await read_state(self.store, tuple(self.userdata.expect.orders))
        return differences(self.userdata.expect, self.start, end)

    async def settle(self) -> list[str]:
        """The differences as the call left them, then the store closed; the same list
        every time after. The job's shutdown and the simulation's end both settle, in
        whichever order the framework runs them."""
        if self._final is None:
            try:
                self._final = await self.differences()
            finally:
                await self.close()
        return self._final

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await self.store.close()
        finally:
            self._cleanup()


def _fail_every_statement(store: Store) -> Callable[[], None]:
    """Makes every statement of `store` fail as a locked database does, at the driver,
    so the store and everything above it meet the outage as they would a real one.
    Returns the function that ends it."""
    engine = store.engine.sync_engine

    def fail(connection: Connection, *_: Any) -> None:
        raise connection.dialect.loaded_dbapi.OperationalError("database is locked")

    event.listen(engine, "before_cursor_execute", fail)

    def end() -> None:
        if event.contains(engine, "before_cursor_execute", fail):
            event.remove(engine, "before_cursor_execute", fail)

    return end


_simulated_calls: weakref.WeakKeyDictionary[JobContext, ScenarioStore] = weakref.WeakKeyDictionary()


_unreadable_userdata: weakref.WeakKeyDictionary[JobContext, str] = weakref.WeakKeyDictionary()


async def simulation_store(ctx: JobContext, simulation: SimulationContext) -> Store:
    """The store of a simulated call: a scratch SQLite file prepared as the dispatched
    scenario says, removed when the job ends. Returns the call's handle on it. A
    scenario whose userdata cannot be read still gets its call, on the demo data, and
    fails at its end saying why."""
    try:
        userdata = parse_userdata(simulation.userdata())
    except (ValueError, ValidationError) as error:
        _unreadable_userdata[ctx] = str(error)
        userdata = ScenarioUserdata()
    scratch = Path(tempfile.mkdtemp(prefix="customer-service-scenario-"))
    scenario_store = await ScenarioStore.open(
        userdata,
        f"sqlite+aiosqlite:///{scratch / 'store.sqlite3'}",
        cleanup=lambda: shutil.rmtree(scratch, ignore_errors=True),
    )
    _simulated_calls[ctx] = scenario_store

    async def settle() -> None:
        await scenario_store.settle()

    ctx.add_shutdown_callback(settle)
    return scenario_store.store.for_call()


async def on_simulation_end(simulation: SimulationContext) -> None:
    """Grades a simulated call by the state it left: `fail(reason)` on any difference
    from the scenario's expected state. Passing leaves the simulator's verdict to stand."""
    ctx = simulation.job_context
    scenario_store = _simulated_calls.pop(ctx, None)
    if scenario_store is None:
        simulation.fail("the call never started, so its store was not prepared")
        return
    problems = await scenario_store.settle()
    unreadable = _unreadable_userdata.pop(ctx, None)
    if unreadable is not None:
        simulation.fail(f"the scenario's userdata cannot be read: {unreadable}")
        return
    if not simulation.scenario.userdata:
        # A scenario that is not ours (one LiveKit generated, say) says nothing about
        # the store: the simulator's verdict alone stands.
        return
    logger.info(
        "simulation graded by state",
        extra={"scenario": simulation.scenario.label, "differences": len(problems)},
    )
    if problems:
        simulation.fail("; ".join(problems))
