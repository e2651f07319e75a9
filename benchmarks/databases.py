"""The databases a benchmark runs on: a SQLite file always, PostgreSQL when
TEST_POSTGRES_URL names a database the benchmark may empty (its tables are dropped;
`scripts/with-postgres make bench` makes a throwaway one)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from sqlalchemy import Connection, MetaData, text
from sqlalchemy.ext.asyncio import create_async_engine

from customer_service.testing import sqlite_url

POSTGRES_URL_VARIABLE = "TEST_POSTGRES_URL"


def postgres_url() -> str | None:
    return os.environ.get(POSTGRES_URL_VARIABLE) or None


def backends() -> list[str]:
    return ["sqlite", "postgresql"] if postgres_url() else ["sqlite"]


async def drop_tables(url: str) -> None:
    """Drops every table in the database, the store's and the migrations' record alike."""
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:

            def drop_all(sync: Connection) -> None:
                existing = MetaData()
                existing.reflect(sync)
                existing.drop_all(sync)

            await connection.run_sync(drop_all)
    finally:
        await engine.dispose()


async def empty_database(backend: str, scratch: Path) -> str:
    """The URL of an empty database: a new SQLite file under `scratch`, or the
    PostgreSQL database with the store's tables dropped."""
    if backend == "sqlite":
        return sqlite_url(scratch / f"store-{uuid.uuid4().hex[:8]}.sqlite3")
    url = postgres_url()
    if url is None:
        raise RuntimeError(f"{POSTGRES_URL_VARIABLE} is not set")
    await drop_tables(url)
    return url


async def postgres_max_connections(url: str) -> int | None:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            value = await connection.scalar(text("SHOW max_connections"))
            return int(value) if value is not None else None
    finally:
        await engine.dispose()
