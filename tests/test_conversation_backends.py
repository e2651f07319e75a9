"""Where a call's store is when the test gives it none: a scratch database on the test's
backend (see `tests/conftest.py`), or, outside the suite, a temporary SQLite file."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from customer_service.offline_llm import OfflineLLM
from customer_service.testing import call_session, scratch_database, scratch_databases
from customer_service.testing.voice import voice_call_session


@pytest.mark.reports_skipped_backends
async def test_a_calls_default_store_is_made_on_the_tests_backend(store_backend: str) -> None:
    """Without a PostgreSQL server, this test's PostgreSQL variant is the one that skips,
    saying why, for all the conversation tests that then run on SQLite only."""
    async with call_session(OfflineLLM()) as session:
        store = session.userdata.store
        assert store.engine.dialect.name == store_backend
        assert await store.get_customer("C-1001") is not None  # the demo data
    async with voice_call_session(OfflineLLM()) as call:
        assert call.state.store.engine.dialect.name == store_backend
        assert call.state.store.engine.url != store.engine.url  # a database of its own


async def test_scratch_databases_says_where_a_calls_store_is_made(demo_database_url: str) -> None:
    made: list[str] = []

    @asynccontextmanager
    async def given() -> AsyncIterator[str]:
        made.append(demo_database_url)
        yield demo_database_url

    with scratch_databases(given):
        async with call_session(OfflineLLM()) as session:
            url = session.userdata.store.engine.url
            assert url.render_as_string(hide_password=False) == demo_database_url
    assert made == [demo_database_url]


def test_by_default_a_scratch_database_is_a_temporary_sqlite_file() -> None:
    async def made() -> tuple[str, bool]:
        async with scratch_database() as url:
            folder = Path(make_url(url).database or "").parent
            return url, folder.is_dir()

    # In a context of its own: none of the suite's `scratch_databases` applies there.
    url, existed = contextvars.Context().run(asyncio.run, made())
    assert url.startswith("sqlite+aiosqlite:///")
    assert existed
    assert not Path(make_url(url).database or "").parent.exists()  # removed afterwards
