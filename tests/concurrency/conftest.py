"""A fresh database for each concurrency test: a SQLite file, or a PostgreSQL database of
its own when TEST_POSTGRES_URL names a server (skipped, with the reason, without one)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from support.databases import backend_params, new_database


@pytest.fixture(params=backend_params())
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with new_database(request.param, tmp_path) as url:
        yield url
