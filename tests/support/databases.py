"""Databases for tests: a new SQLite file, or a new database of its own on the
PostgreSQL server that TEST_POSTGRES_URL names (as `scripts/with-postgres` sets it).

`new_database` makes an empty one (for the store's own tests: migrations, seeding).
`new_demo_database` makes one as `open_demo_store` leaves it, migrated and seeded, by
copying a template prepared once per test session (per worker process under `pytest -n`):
faster than migrating and seeding each time, which the conversation tests (a store or
more each, hundreds of them per backend) would pay. `drop_templates` removes the
templates when the session (the worker's) ends.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from customer_service.clock import FixedClock
from customer_service.testing import open_demo_store, sqlite_url
from support.clock import TEST_NOW

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "")
POSTGRES_REQUIRED = os.environ.get("REQUIRE_POSTGRES_TESTS") == "1"
"""Set by CI: there a PostgreSQL test that cannot run fails instead of skipping."""
POSTGRES_SKIP_REASON = "TEST_POSTGRES_URL not set: PostgreSQL tests need a running server"
BACKENDS = ("sqlite", "postgresql")
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
"""This test process under `pytest -n` (gw0, gw1, ...), else `main`: each worker makes
and drops its own templates, and its names say whose a database left behind is."""


def backend_params() -> list[object]:
    """`pytest.param`s for a fixture parametrized by backend: PostgreSQL skips (with the
    reason) when no server is configured, unless CI requires it."""
    return [
        "sqlite",
        pytest.param(
            "postgresql",
            marks=pytest.mark.skipif(
                not POSTGRES_URL and not POSTGRES_REQUIRED, reason=POSTGRES_SKIP_REASON
            ),
        ),
    ]


def postgres_server_url() -> str:
    """TEST_POSTGRES_URL, or a test failure when CI requires PostgreSQL without one."""
    if not POSTGRES_URL:
        pytest.fail(
            "REQUIRE_POSTGRES_TESTS=1 but TEST_POSTGRES_URL is not set: run the tests "
            "under scripts/with-postgres, or point TEST_POSTGRES_URL at a server",
            pytrace=False,
        )
    return POSTGRES_URL


@asynccontextmanager
async def new_database(backend: str, folder: Path) -> AsyncIterator[str]:
    """The URL of a new, empty database, removed afterwards: a SQLite file under
    `folder` (in a subfolder not yet created), or a PostgreSQL database created on the
    TEST_POSTGRES_URL server for this test alone, so tests never see each other's rows."""
    if backend == "sqlite":
        yield sqlite_url(folder / "data" / "store.sqlite3")
        return
    async with _server_database() as url:
        yield url


@asynccontextmanager
async def new_demo_database(backend: str, folder: Path) -> AsyncIterator[str]:
    """The URL of a new database as `open_demo_store` leaves one (the latest schema, the
    demo data), removed afterwards; otherwise as `new_database`. It is a copy of a
    template made once per test session, so it is as fresh as a new one."""
    if backend == "sqlite":
        path = folder / "data" / "store.sqlite3"
        path.parent.mkdir(parents=True)
        shutil.copyfile(await _sqlite_template(), path)
        yield sqlite_url(path)
        return
    async with _server_database(template=await _postgres_template()) as url:
        yield url


def _seeding_clock() -> FixedClock:
    """The templates' demo data is dated from `TEST_NOW`, whichever test (its clock
    perhaps moved on) makes them first."""
    return FixedClock(TEST_NOW)


_templates: dict[str, str] = {}
"""Per backend, the session's demo template: a SQLite file, or a database name."""
_template_folder: Path | None = None


async def _sqlite_template() -> Path:
    global _template_folder
    if "sqlite" not in _templates:
        _template_folder = Path(tempfile.mkdtemp(prefix=f"customer-service-templates-{WORKER}-"))
        path = _template_folder / "demo.sqlite3"
        # Closed cleanly, the file holds everything: no -wal or -shm file to copy along.
        await (await open_demo_store(sqlite_url(path), clock=_seeding_clock())).close()
        _templates["sqlite"] = str(path)
    return Path(_templates["sqlite"])


async def _postgres_template() -> str:
    if "postgresql" not in _templates:
        server = make_url(postgres_server_url())
        name = f"cs_test_template_{WORKER}_{uuid.uuid4().hex[:16]}"
        await _admin(f'CREATE DATABASE "{name}"')
        url = server.set(database=name).render_as_string(hide_password=False)
        try:
            # Closed, so that nobody is connected to it, as CREATE DATABASE ... TEMPLATE needs.
            await (await open_demo_store(url, clock=_seeding_clock())).close()
        except BaseException:
            await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            raise
        _templates["postgresql"] = name
    return _templates["postgresql"]


async def drop_templates() -> None:
    """Removes the session's templates (made on first use)."""
    global _template_folder
    name = _templates.pop("postgresql", None)
    if name is not None:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _templates.pop("sqlite", None)
    if _template_folder is not None:
        shutil.rmtree(_template_folder, ignore_errors=True)
        _template_folder = None


@asynccontextmanager
async def _server_database(template: str | None = None) -> AsyncIterator[str]:
    """A new database on the TEST_POSTGRES_URL server, empty or a copy of `template`,
    dropped afterwards (its connections, if any are left, closed by force)."""
    server = make_url(postgres_server_url())
    name = f"cs_test_{WORKER}_{uuid.uuid4().hex[:16]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    await _admin(f'CREATE DATABASE "{name}"{copy}')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def _admin(statement: str) -> None:
    """Runs one statement outside a transaction (as CREATE and DROP DATABASE need) on the
    TEST_POSTGRES_URL server's own database."""
    admin = create_async_engine(postgres_server_url(), isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as connection:
            await connection.execute(text(statement))
    finally:
        await admin.dispose()
