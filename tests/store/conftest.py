"""Databases for the store tests: SQLite always, PostgreSQL when TEST_POSTGRES_URL is set."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from customer_service.store import Store
from customer_service.store.tables import Base
from customer_service.testing import open_demo_store

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "")
POSTGRES_REQUIRED = os.environ.get("REQUIRE_POSTGRES_TESTS") == "1"
"""Set by CI: there a PostgreSQL test that cannot run fails instead of skipping."""
POSTGRES_SKIP_REASON = "TEST_POSTGRES_URL not set: PostgreSQL store tests need a running server"


async def _drop_tables(url: str) -> None:
    """Drops the store's tables and its migration history."""
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.drop_all)
            await connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    finally:
        await engine.dispose()


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param(
            "postgresql",
            marks=pytest.mark.skipif(
                not POSTGRES_URL and not POSTGRES_REQUIRED, reason=POSTGRES_SKIP_REASON
            ),
        ),
    ]
)
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A URL of an empty database: a new SQLite file (in a folder not yet created) or the
    PostgreSQL database of TEST_POSTGRES_URL with the store's tables and migration
    history dropped."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'data' / 'store.sqlite3'}"
        return
    if not POSTGRES_URL:
        pytest.fail("REQUIRE_POSTGRES_TESTS=1 but TEST_POSTGRES_URL is not set")
    await _drop_tables(POSTGRES_URL)
    yield POSTGRES_URL
    await _drop_tables(POSTGRES_URL)


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[Store]:
    opened = await open_demo_store(database_url)
    yield opened
    await opened.close()
