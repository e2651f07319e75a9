"""A fresh store per task, each as loading the benchmark's database leaves it.

Loading 1,000 orders takes seconds, so the database is loaded once and copied for each
task: a SQLite file is copied, a PostgreSQL database is made from it as a template.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from customer_service.store import Store
from customer_service.testing import sqlite_url

__all__ = ["FreshStores"]


class FreshStores:
    """`async with FreshStores(db, database_url) as stores:` then, per task,
    `async with stores.fresh() as store:`.

    `database_url`: None for SQLite files in a temporary folder; a PostgreSQL URL names
    an empty database on a server where new databases may be created (its name is the
    prefix of theirs; all are dropped afterwards).
    """

    def __init__(self, db: dict[str, Any], database_url: str | None = None) -> None:
        self._db = db
        self._url = database_url
        self._folder: Path | None = None

    async def __aenter__(self) -> FreshStores:
        if self._url is None:
            self._folder = Path(tempfile.mkdtemp(prefix="tau2-replay-"))
            self._url = sqlite_url(self._folder / "loaded.sqlite3")
        store = await Store.open(self._url, migrate=True, seed_demo_data=False)
        try:
            await store.import_tau2(self._db)
        finally:
            await store.close()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    @asynccontextmanager
    async def fresh(self) -> AsyncIterator[Store]:
        """A store holding the benchmark's database as loaded, removed afterwards."""
        assert self._url is not None, "use FreshStores in `async with`"
        if self._folder is not None:
            copy = self._folder / f"task-{uuid.uuid4().hex[:8]}.sqlite3"
            shutil.copyfile(self._folder / "loaded.sqlite3", copy)
            url = sqlite_url(copy)
            try:
                async with await Store.open(url, migrate=False, seed_demo_data=False) as store:
                    yield store
            finally:
                copy.unlink(missing_ok=True)
            return
        async with (
            _copy_of_postgres_database(self._url) as url,
            await Store.open(url, migrate=False, seed_demo_data=False) as store,
        ):
            yield store


@asynccontextmanager
async def _copy_of_postgres_database(template_url: str) -> AsyncIterator[str]:
    template = make_url(template_url)
    name = f"{template.database}_{uuid.uuid4().hex[:8]}"
    server = create_async_engine(
        template.set(database="postgres"), isolation_level="AUTOCOMMIT", poolclass=NullPool
    )
    try:
        async with server.connect() as connection:
            await connection.execute(
                text(f'CREATE DATABASE "{name}" TEMPLATE "{template.database}"')
            )
        try:
            yield template.set(database=name).render_as_string(hide_password=False)
        finally:
            async with server.connect() as connection:
                await connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
    finally:
        await server.dispose()
