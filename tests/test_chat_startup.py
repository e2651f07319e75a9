"""What `make chat` says before the conversation: the model, what it understands, and a
store it cannot verify anyone against."""

from __future__ import annotations

import asyncio
from pathlib import Path

from customer_service.store.schema import migrate_database
from customer_service.testing import sqlite_url
from support.agent_process import run_agent

LIVEKIT_CREDENTIALS = {
    "LIVEKIT_URL": "ws://127.0.0.1:9",
    "LIVEKIT_API_KEY": "APIdummy",
    "LIVEKIT_API_SECRET": "dummy-secret-0123456789abcdef0123456789",
}


def test_the_offline_model_says_it_understands_english_only(tmp_path: Path) -> None:
    result = run_agent(tmp_path, "chat", stdin="")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first == (
        "Model: offline stand-in model (no provider keys configured), which understands "
        "English only. Type /quit to leave."
    )
    # The demo store has customers: nothing more is said.
    assert result.stderr == ""


def test_a_configured_model_is_named_once(tmp_path: Path) -> None:
    # The model is built, never asked: the piped input ends at once.
    result = run_agent(tmp_path, "chat", stdin="", env=LIVEKIT_CREDENTIALS)
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first == (
        "Model: LiveKit Inference (llm openai/gpt-4.1-mini), text only. Type /quit to leave."
    )


def test_a_store_without_customers_is_said_with_the_ways_to_fill_it(tmp_path: Path) -> None:
    database_url = sqlite_url(tmp_path / "empty.sqlite3")
    asyncio.run(migrate_database(database_url))
    result = run_agent(
        tmp_path, "chat", stdin="Where is my order 100101?\n", env={"DATABASE_URL": database_url}
    )
    assert result.returncode == 0, result.stderr
    [notice] = result.stderr.splitlines()
    assert notice.startswith("The store holds no customers, so no caller can be verified: ")
    assert "`make seed-demo` adds the demo ones" in notice
    assert "`python src/agent.py import-tau2 DB.json`" in notice
    # The conversation itself is unchanged, on stdout alone.
    assert (
        result.stdout.splitlines()[1]
        == "Agent: Hello, thanks for calling. How can I help you today?"
    )
