"""The LiveKit entrypoint, run in process under the framework's fake job context."""

from __future__ import annotations

import asyncio
import gc
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from livekit.agents.testing import fake_job_context
from sqlalchemy.pool import Pool

from customer_service import server
from customer_service.call import audit
from customer_service.call.state import CallState
from customer_service.settings import get_settings
from customer_service.store import PoolSize
from customer_service.store.shared import StoreConfig, shared_store
from customer_service.supervisor import CustomerServiceAgent
from customer_service.testing import sqlite_url


@pytest.fixture
def offline_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Process settings as a fresh machine without keys would read them: the embedded
    default store, in a data folder of this test's own."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MODEL_PROVIDER", "offline")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield tmp_path / "data" / "customer-service-agent" / "store.sqlite3"
    get_settings.cache_clear()


def test_prewarm_loads_silero_once_per_process() -> None:
    process = SimpleNamespace(userdata={})
    try:
        server.prewarm(process)  # type: ignore[arg-type]
        assert type(process.userdata[server.VAD_KEY]).__module__.startswith(
            "livekit.plugins.silero"
        )
        # What it loaded is kept out of every later collection in the job process.
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_job_processes_share_the_agents_modules_from_the_forkserver() -> None:
    assert server.server._preload_modules == server.PRELOADED_MODULES
    assert "customer_service.server" in server.PRELOADED_MODULES
    # The forkserver imports them in a fresh interpreter: each must import cleanly alone.
    for module in server.PRELOADED_MODULES:
        completed = subprocess.run(
            [sys.executable, "-c", f"import {module}"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert completed.returncode == 0, completed.stderr


def test_every_countrys_address_rules_are_read_before_any_call() -> None:
    from customer_service.addresses import country_rules
    from customer_service.addresses.every_country import COUNTRIES_LOADED

    # Read already: a call's first address finds them in the cache.
    assert COUNTRIES_LOADED > 200
    assert country_rules.country_rules.cache_info().currsize >= COUNTRIES_LOADED


async def test_entrypoint_starts_the_supervised_call_on_the_configured_store(
    offline_environment: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with fake_job_context(job_id="job-123") as ctx:
        ctx.proc.userdata[server.VAD_KEY] = None
        with caplog.at_level(logging.INFO, logger="customer_service"):
            await server.entrypoint(ctx)
        session = ctx._primary_agent_session  # the one AgentSession the entrypoint started
        assert session is not None
        try:
            assert isinstance(session.current_agent, CustomerServiceAgent)
            state = session.userdata
            assert isinstance(state, CallState)
            assert state.call_id == "call-job-123"
            assert state.store.engine.url.database == str(offline_environment)
            assert await state.store.get_customer("C-1001") is not None  # seeded on first use
            assert any("offline" in record.getMessage() for record in caplog.records)

            result = await session.run(user_input="Where is my order 100101?")
            result.expect.next_event().is_function_call(
                name="lookup_order", arguments={"order_id": "100101"}
            )
        finally:
            await session.aclose()

        caplog.clear()
        with caplog.at_level(logging.INFO, logger="customer_service"):
            await server.report_session_end(ctx)
        (ended,) = [r for r in caplog.records if r.getMessage() == "call ended"]
        assert ended.call_id == "call-job-123"  # type: ignore[attr-defined]
        assert ended.history_items >= 3  # type: ignore[attr-defined]

        # The job's shutdown writes the audit events the call kept for a next write.
        await audit.record_later(state, "delegation", specialist="verify_identity_task")
        assert await state.store.audit_events(call_id=state.call_id) == []
        for shutdown_callback in ctx._shutdown_callbacks:
            await shutdown_callback("test over")
        [kept] = await state.store.audit_events(call_id=state.call_id)
        assert kept.kind == "delegation"


def test_typed_text_is_taken_alongside_voice(offline_environment: Path) -> None:
    settings = get_settings()
    voice = server.room_options(settings, text_only=False, call_id="call-1")
    assert voice.get_text_input_options() is not None
    assert voice.get_audio_input_options() is not None
    assert voice.audio_output is True
    text = server.room_options(settings, text_only=True, call_id="call-1")
    assert text.get_text_input_options() is not None
    assert text.get_audio_input_options() is None


# The store: one engine per worker process, shared by its calls


async def test_calls_in_one_process_share_one_engine(offline_environment: Path) -> None:
    with fake_job_context(job_id="job-1") as first_ctx:
        first_ctx.proc.userdata[server.VAD_KEY] = None
        await server.entrypoint(first_ctx)
        first = first_ctx._primary_agent_session
        assert first is not None
        with fake_job_context(job_id="job-2") as second_ctx:
            # The second call in the same process: its userdata is the first's.
            second_ctx.proc.userdata.update(first_ctx.proc.userdata)
            await server.entrypoint(second_ctx)
            second = second_ctx._primary_agent_session
            assert second is not None
            try:
                first_store = first.userdata.store
                second_store = second.userdata.store
                assert first_store is not second_store
                assert first_store.engine is second_store.engine
                pool = first_store.engine.sync_engine.pool

                # The first call ends: its shutdown closes its handle, not the engine.
                await first.aclose()
                await first_store.close()
                assert second_store.engine.sync_engine.pool is pool
                assert await second_store.get_customer("C-1001") is not None
            finally:
                await second.aclose()
                config = StoreConfig.from_settings(get_settings())
                await shared_store(second_ctx.proc.userdata, config).close()
        assert first_store.engine.sync_engine.pool is not pool  # disposed by close()


def test_the_processs_engine_is_disposed_when_its_event_loop_ends(tmp_path: Path) -> None:
    userdata: dict[str, object] = {}
    config = StoreConfig(
        database_url=sqlite_url(tmp_path / "store.sqlite3"),
        migrate=True,
        seed_demo_data=True,
        pool=PoolSize(),
    )
    pools: list[Pool] = []

    async def a_call() -> None:
        store = await shared_store(userdata, config).for_call()
        assert await store.get_customer("C-1001") is not None
        await store.close()
        pools.append(store.engine.sync_engine.pool)
        assert pools[-1].checkedin() == 1  # kept for the next call

    # The framework ends a job process's loop as asyncio.run does: what is left is cancelled.
    asyncio.run(a_call())
    assert pools[0].checkedin() == 0
    # A process that goes on (a new loop) opens the engine again.
    asyncio.run(a_call())
    assert pools[1] is not pools[0]


async def test_a_call_that_cannot_open_the_store_ends_with_one_log_line(
    offline_environment: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://agent:s3cret@127.0.0.1:1/store")
    get_settings.cache_clear()
    with fake_job_context(job_id="job-down") as ctx:
        ctx.proc.userdata[server.VAD_KEY] = None
        with caplog.at_level(logging.INFO, logger="customer_service"):
            await server.entrypoint(ctx)
        assert ctx._primary_agent_session is None
        with caplog.at_level(logging.INFO, logger="customer_service"):
            await server.report_session_end(ctx)  # the framework still calls it
    [failure] = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert failure.getMessage().startswith(
        "the call cannot start: DATABASE_URL=postgresql+asyncpg://agent:***@127.0.0.1:1/store "
        "cannot be used: nothing accepts connections"
    )
    assert failure.exc_info is None
