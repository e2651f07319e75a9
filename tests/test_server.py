"""The LiveKit entrypoint, run in process under the framework's fake job context."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from livekit.agents.testing import fake_job_context

from customer_service import server
from customer_service.call.state import CallState
from customer_service.settings import get_settings
from customer_service.supervisor import CustomerServiceAgent
from customer_service.testing import sqlite_url


@pytest.fixture
def offline_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Process settings as a fresh machine without keys would read them."""
    database = tmp_path / "store.sqlite3"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MODEL_PROVIDER", "offline")
    monkeypatch.setenv("DATABASE_URL", sqlite_url(database))
    get_settings.cache_clear()
    yield database
    get_settings.cache_clear()


def test_prewarm_loads_silero_once_per_process() -> None:
    process = SimpleNamespace(userdata={})
    server.prewarm(process)  # type: ignore[arg-type]
    assert type(process.userdata[server.VAD_KEY]).__module__.startswith("livekit.plugins.silero")


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


def test_typed_text_is_taken_alongside_voice(offline_environment: Path) -> None:
    settings = get_settings()
    voice = server.room_options(settings, text_only=False, call_id="call-1")
    assert voice.get_text_input_options() is not None
    assert voice.get_audio_input_options() is not None
    assert voice.audio_output is True
    text = server.room_options(settings, text_only=True, call_id="call-1")
    assert text.get_text_input_options() is not None
    assert text.get_audio_input_options() is None
