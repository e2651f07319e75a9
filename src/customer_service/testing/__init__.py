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


@asynccontextmanager
async def call_session(
    llm: llm.LLM[Any],
    *,
    database_url: str | None = None,
    settings: Settings | None = None,
) -> AsyncIterator[AgentSession[CallState]]:
    """A started text-only `AgentSession` whose active agent is `CustomerServiceAgent`,
    its greeting already spoken.

    Without `database_url` the store is a fresh temporary SQLite database seeded with
    the demo data, removed afterwards. With it, the store is opened (and seeded when
    empty) at that URL, so two sessions given the same URL share what they write.
    `settings` defaults to the process settings; its `database_url` is not used here.
    """
    settings = settings or get_settings()
    with tempfile.TemporaryDirectory(prefix="customer-service-") as scratch:
        store = await Store.open(database_url or sqlite_url(Path(scratch) / "store.sqlite3"))
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
            await store.close()
