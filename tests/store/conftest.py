"""Databases for the store tests: SQLite always, PostgreSQL when TEST_POSTGRES_URL is set."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from customer_service.store import Store
from customer_service.testing import open_demo_store
from support.databases import backend_params, new_database
from support.new_table import new_table


@pytest.fixture(params=backend_params())
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A URL of a new, empty database, removed afterwards: a SQLite file (in a folder not
    yet created) or a PostgreSQL database of its own on the TEST_POSTGRES_URL server."""
    async with new_database(request.param, tmp_path) as url:
        yield url


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[Store]:
    opened = await open_demo_store(database_url)
    yield opened
    await opened.close()


@pytest.fixture
def new_table_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A new table's module in the store package, listed nowhere, without its revision."""
    with new_table(tmp_path, monkeypatch, with_revision=False) as table:
        yield table


@pytest.fixture
def new_table_with_its_revision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A new table as the recipe adds it: its module and its revision, nothing else."""
    with new_table(tmp_path, monkeypatch, with_revision=True) as table:
        yield table
