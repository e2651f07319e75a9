"""The public seam for tests and evals: a real call, text only, with the model you choose.

    async with call_session(my_llm) as session:
        result = await session.run(user_input="Where is my order 100101?")
        result.expect.next_event().is_function_call(name="lookup_order")

The session runs the real supervisor, specialists and store; only the LLM is yours. It is
wrapped as in production, so a model that fails is heard as a spoken apology.

For the voice path (timed audio, interruptions, hang-ups) use
`customer_service.testing.voice.voice_call_session`, which runs the session the server
builds with fake speech models and a scripted caller.

Given neither `database_url` nor `store`, both open their demo store in a scratch
database of their own, removed afterwards: a temporary SQLite file, unless a block
`with scratch_databases(new_database):` says where new scratch databases come from (as
a test suite that runs its conversations on another database server does).

The stores they open run on the system's clock, unless `call_session` is given `clock=`
(a `customer_service.clock.FixedClock` pins every "now" and the demo orders' dates) or
either is opened inside a block `with pinned_clock(clock):`, as a test suite that must
not depend on the real date does.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import (
    AbstractAsyncContextManager,
    AsyncExitStack,
    asynccontextmanager,
    contextmanager,
)
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession, llm

from customer_service.call import audit
from customer_service.call.state import CallState
from customer_service.clock import Clock
from customer_service.pipeline.resilience import speak_failures
from customer_service.reports.live import log_metrics
from customer_service.settings import Settings, get_settings
from customer_service.store import Store
from customer_service.supervisor import CustomerServiceAgent


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


_pinned_clock: ContextVar[Clock | None] = ContextVar("pinned_clock", default=None)


@contextmanager
def pinned_clock(clock: Clock) -> Iterator[None]:
    """Inside the block (this context, and the tasks started from it), the stores the
    seams open without a `clock` of their own run on `clock`."""
    token = _pinned_clock.set(clock)
    try:
        yield
    finally:
        _pinned_clock.reset(token)


async def open_demo_store(database_url: str, *, clock: Clock | None = None) -> Store:
    """The test seams' store: migrated to the latest schema and seeded with the demo data,
    whatever the database and the SEED_DEMO_DATA and AUTO_MIGRATE settings. Its clock is
    `clock`, else the one `pinned_clock` set, else the system's."""
    return await Store.open(
        database_url,
        migrate=True,
        seed_demo_data=True,
        clock=clock or _pinned_clock.get(),
    )


NewDatabase = Callable[[], AbstractAsyncContextManager[str]]
"""Makes scratch databases: each call gives a context that yields the URL of a new
database, no other session's, and removes it when it ends. It may be empty or hold the
demo store already; a session migrates and seeds it either way (`open_demo_store`)."""

_new_scratch_database: ContextVar[NewDatabase | None] = ContextVar(
    "new_scratch_database", default=None
)


@contextmanager
def scratch_databases(new_database: NewDatabase) -> Iterator[None]:
    """Inside the block (this context, and the tasks started from it), a session given
    neither `database_url` nor `store` opens its demo store in a database that
    `new_database()` makes, instead of in a temporary SQLite file."""
    token = _new_scratch_database.set(new_database)
    try:
        yield
    finally:
        _new_scratch_database.reset(token)


@asynccontextmanager
async def scratch_database() -> AsyncIterator[str]:
    """The URL of a new database, removed when the block ends: an empty temporary SQLite
    file, or one that the factory given to `scratch_databases` makes."""
    new_database = _new_scratch_database.get()
    if new_database is not None:
        async with new_database() as database_url:
            yield database_url
        return
    with tempfile.TemporaryDirectory(prefix="customer-service-") as scratch:
        yield sqlite_url(Path(scratch) / "store.sqlite3")


@asynccontextmanager
async def call_session(
    llm: llm.LLM[Any],
    *,
    database_url: str | None = None,
    settings: Settings | None = None,
    store: Store | None = None,
    clock: Clock | None = None,
) -> AsyncIterator[AgentSession[CallState]]:
    """A started text-only `AgentSession` whose active agent is `CustomerServiceAgent`,
    its greeting already spoken.

    Without `database_url` the store is a scratch database seeded with the demo data,
    removed afterwards (`scratch_database`: a temporary SQLite file unless
    `scratch_databases` says otherwise). With it, the store is opened at that URL
    (migrated, and given the demo rows it lacks), so two sessions given the same URL
    share what they write.
    `settings` defaults to the process settings; its `database_url` is not used here.
    A `store` given is used as it is, neither seeded nor closed here (`chat` passes the
    store the settings configure). `clock` is the opened store's (`open_demo_store`); a
    `store` given brings its own.
    """
    if store is not None and clock is not None:
        raise ValueError("a store given brings its own clock: open it with `clock=` instead")
    settings = settings or get_settings()
    async with AsyncExitStack() as scratch:
        owned = store is None
        if store is None:
            if not database_url:
                database_url = await scratch.enter_async_context(scratch_database())
            store = await open_demo_store(database_url, clock=clock)
        try:
            state = CallState(store=store, settings=settings)
            session: AgentSession[CallState] = AgentSession(
                llm=speak_failures(llm, response_timeout_s=settings.llm_response_timeout_s),
                userdata=state,
                max_tool_steps=settings.session_max_tool_steps,
            )
            # As `server.build_session` does: a killed call loses at most its current turn.
            audit.write_kept_each_turn(session)
            log_metrics(session, call_id=state.call_id)
            # Waiting for the greeting's run keeps the first caller turn after it.
            greeting = await session.start(CustomerServiceAgent(), capture_run=True)
            await greeting
            try:
                yield session
            finally:
                await session.aclose()
                await audit.end_of_call(state)
        finally:
            if owned:
                await store.close()
