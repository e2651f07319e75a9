"""The engine and the transactions that every part of `Store` is built on."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from customer_service.clock import Clock, SystemClock
from customer_service.store.errors import database_errors
from customer_service.telemetry.spans import store_transaction

__all__ = ["StoreCore"]


class StoreCore:
    """What the parts of `Store` share: one engine and its short transactions.

    `Store` is assembled from one class per concern (address changes, consents,
    escalations) on top of this one; use `Store`, not these parts.
    """

    def __init__(
        self, engine: AsyncEngine, *, serialize: bool = False, clock: Clock | None = None
    ) -> None:
        """Use `Store.open`; this wraps an engine whose schema already exists."""
        self._engine = engine
        self.clock: Clock = clock or SystemClock()
        """Every "now" the store writes or compares with, and the calls on it read."""
        # False for a per-call handle on an engine someone else disposes (`Store.for_call`).
        self._owns_engine = True
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        # An in-memory SQLite database is one shared connection: transactions from
        # concurrent coroutines would interleave on it, so they take turns.
        self._lock = asyncio.Lock() if serialize else None

    @property
    def engine(self) -> AsyncEngine:
        """The underlying engine, for diagnostics and tests (fault injection, raw SQL).

        The agent itself never needs it: everything it stores goes through `Store` methods.
        """
        return self._engine

    @contextlib.asynccontextmanager
    async def _session(self, action: str) -> AsyncIterator[AsyncSession]:
        """One transaction, committed when the block ends without an exception, in a
        span named by its action (`telemetry.spans`): every store write, in one place."""
        with store_transaction(action):
            async with self._turn():
                with database_errors(action):
                    async with self._sessions.begin() as session:
                        yield session

    @contextlib.asynccontextmanager
    async def _write_session(self, action: str) -> AsyncIterator[AsyncSession]:
        """A transaction that holds the database's write lock from its first read.

        For read-then-write decisions. PostgreSQL gets there with `SELECT ... FOR UPDATE`
        on the rows read. SQLite ignores FOR UPDATE, and its driver only begins a
        (deferred) transaction at the first write, so two writers could both read the
        old value: `BEGIN IMMEDIATE` takes the write lock first, and a second writer
        waits for it (up to the driver's busy timeout) instead.
        """
        async with self._session(action) as session:
            connection = await session.connection()
            if connection.dialect.name == "sqlite":
                await connection.exec_driver_sql("BEGIN IMMEDIATE")
            yield session

    @contextlib.asynccontextmanager
    async def _turn(self) -> AsyncIterator[None]:
        if self._lock is None:
            yield
        else:
            async with self._lock:
                yield
