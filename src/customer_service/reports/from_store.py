"""The store's side of `python src/agent.py report`: the call reports of every agent
server read from `call_reports` (`--database-url URL`), old ones pruned (`--prune DAYS`),
and a folder's reports left unstored by a failed write stored (`--store-unstored`).

The database is opened as it is (never migrated or seeded from here): a schema that is
behind is named with `python src/agent.py migrate`, like the agent's own start.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable, Collection
from pathlib import Path
from typing import TypeVar

from customer_service.reports.stored import store_unstored
from customer_service.reports.summary import Loaded, checked_reports
from customer_service.store import Store, StoreMisconfigured, StoreUnavailable
from customer_service.store.errors import shown_url, store_problem

__all__ = ["StoreProblem", "prune", "read_stored", "store_folder"]

T = TypeVar("T")


class StoreProblem(Exception):
    """The store could not be opened or read: one line saying which and what to do."""


def _with_store(database_url: str, work: Callable[[Store], Awaitable[T]]) -> T:
    async def run() -> T:
        try:
            store = await Store.open(database_url, migrate=False, seed_demo_data=False)
        except (StoreUnavailable, StoreMisconfigured) as error:
            raise StoreProblem(store_problem(error, database_url)) from error
        try:
            return await work(store)
        except StoreUnavailable as error:
            raise StoreProblem(store_problem(error, database_url)) from error
        finally:
            await store.close()

    return asyncio.run(run())


def read_stored(
    database_url: str, *, since: dt.datetime | None, outcomes: Collection[str]
) -> Loaded:
    """The stored reports that ended at or after `since`, of `outcomes` (all when none),
    checked as a folder's files are; `NoReports` when there are none."""

    async def read(store: Store) -> list[tuple[str, object]]:
        records = await store.call_reports(since=since, outcomes=outcomes)
        return [(record.call_id, record.report) for record in records]

    named = _with_store(database_url, read)
    return checked_reports(named, where=f"{shown_url(database_url)} (call_reports)")


def prune(database_url: str, *, ended_before: dt.datetime) -> int:
    """Deletes the stored reports of calls that ended before `ended_before`; how many."""

    async def delete(store: Store) -> int:
        return await store.prune_call_reports(ended_before=ended_before)

    return _with_store(database_url, delete)


def store_folder(database_url: str, directory: Path) -> int:
    """Stores every report of `directory` marked unstored; how many."""

    async def store_them(store: Store) -> int:
        return await store_unstored(store, directory)

    return _with_store(database_url, store_them)
