"""The public seam for tests and evals: a real call, text only, with the model you choose.

    async with call_session(my_llm) as session:
        result = await session.run(user_input="Where is my order 100101?")
        result.expect.next_event().is_function_call(name="lookup_order")

The session runs the real supervisor, specialists and store; only the LLM is yours. It is
wrapped as in production, so a model that fails is heard as a spoken apology.

For the voice path (timed audio, interruptions, hang-ups) use
`customer_service.testing.voice.voice_call_session`, which runs the session the server
builds with fake speech models and a scripted caller.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession, llm

from customer_service.call.state import CallState
from customer_service.pipeline.resilience import speak_failures
from customer_service.settings import Settings, get_settings
from customer_service.store import Store
from customer_service.supervisor import CustomerServiceAgent


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


async def open_demo_store(database_url: str) -> Store:
    """The test seams' store: migrated to the latest schema and seeded with the demo data,
    whatever the database and the SEED_DEMO_DATA and AUTO_MIGRATE settings."""
    return await Store.open(database_url, migrate=True, seed_demo_data=True)


@asynccontextmanager
async def call_session(
    llm: llm.LLM[Any],
    *,
    database_url: str | None = None,
    settings: Settings | None = None,
    store: Store | None = None,
) -> AsyncIterator[AgentSession[CallState]]:
    """A started text-only `AgentSession` whose active agent is `CustomerServiceAgent`,
    its greeting already spoken.

    Without `database_url` the store is a fresh temporary SQLite database seeded with
    the demo data, removed afterwards. With it, the store is opened at that URL
    (migrated, and given the demo rows it lacks), so two sessions given the same URL
    share what they write.
    `settings` defaults to the process settings; its `database_url` is not used here.
    A `store` given is used as it is, neither seeded nor closed here (`chat` passes the
    store the settings configure).
    """
    settings = settings or get_settings()
    with tempfile.TemporaryDirectory(prefix="customer-service-") as scratch:
        owned = store is None
        if store is None:
            database_url = database_url or sqlite_url(Path(scratch) / "store.sqlite3")
            store = await open_demo_store(database_url)
        try:
            state = CallState(store=store, settings=settings)
            session: AgentSession[CallState] = AgentSession(
                llm=speak_failures(llm, response_timeout_s=settings.llm_response_timeout_s),
                userdata=state,
                max_tool_steps=settings.session_max_tool_steps,
            )
            # Waiting for the greeting's run keeps the first caller turn after it.
            greeting = await session.start(CustomerServiceAgent(), capture_run=True)
            await greeting
            try:
                yield session
            finally:
                await session.aclose()
        finally:
            if owned:
                await store.close()
