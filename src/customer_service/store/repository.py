"""`Store`: the agent's only way to the database."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from sqlalchemy import func, select
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import StaticPool

from customer_service.store.addresses import AddressChangeStore
from customer_service.store.audit import AuditStore
from customer_service.store.consents import ConsentStore
from customer_service.store.customers import CustomerRow, CustomerStore, customer_to_row
from customer_service.store.errors import StoreUnavailable, database_errors
from customer_service.store.escalations import EscalationStore
from customer_service.store.identity_failures import IdentityFailureStore
from customer_service.store.orders import OrderStore, order_to_row
from customer_service.store.seed import DEMO_CUSTOMERS, DEMO_ORDERS
from customer_service.store.tables import Base

__all__ = ["Store"]

# Opening retries because two processes opening the same new database race to create
# the tables and seed them; the loser fails once, then finds the work done.
_OPEN_ATTEMPTS = 5
_OPEN_RETRY_DELAY_S = 0.05


class Store(
    CustomerStore,
    OrderStore,
    AddressChangeStore,
    ConsentStore,
    EscalationStore,
    IdentityFailureStore,
    AuditStore,
):
    """Customers, orders, address changes, consents, escalations, failed identity checks
    and audit events behind one async interface.

    Every method opens its own short transaction. Any database or I/O failure is
    raised as `StoreUnavailable`, with the original error as its `__cause__`. Each
    concern's table, record and methods live in their own module (`customers`,
    `orders`, `addresses`, `consents`, `escalations`, `identity_failures`, `audit`); this
    class is the one to use.
    """

    @classmethod
    async def open(cls, database_url: str) -> Store:
        """Connects, creates missing tables and seeds the demo data into an empty store.

        Missing tables include those added to the schema after the database was
        created, so an older database gains them here; existing tables are left as
        they are (there are no migrations yet).

        Safe to call again on the same database, from this or another process: the
        demo data is written once. Raises `StoreUnavailable` when the database cannot be
        reached, created or read; a malformed URL or a missing driver raise as they are,
        since those are configuration mistakes rather than outages.
        """
        url = make_url(database_url)
        in_memory = _is_sqlite_memory(url)
        engine_options: dict[str, Any] = {}
        if in_memory:
            engine_options["poolclass"] = StaticPool
        else:
            # Notice a server restart between calls instead of failing the next query.
            engine_options["pool_pre_ping"] = True
            with database_errors("create the database directory"):
                _create_sqlite_directory(url)
        # Errors and SQL log lines would otherwise quote the bound values: caller data.
        engine = create_async_engine(url, hide_parameters=True, **engine_options)
        store = cls(engine, serialize=in_memory)
        try:
            await store._prepare()
        except BaseException:
            await engine.dispose()
            raise
        return store

    async def close(self) -> None:
        """Closes every pooled connection. The store is unusable afterwards."""
        with database_errors("close the database"):
            await self._engine.dispose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def _prepare(self) -> None:
        last_error: BaseException | None = None
        for attempt in range(_OPEN_ATTEMPTS):
            if attempt:
                await asyncio.sleep(_OPEN_RETRY_DELAY_S * 2 ** (attempt - 1))
            try:
                await self._create_and_seed()
            except StoreUnavailable as exc:
                last_error = exc.__cause__
            except (DBAPIError, OSError) as exc:
                last_error = exc
            else:
                return
        # aiosqlite (0.22) stops the worker thread of a connection that failed to open
        # without waiting for it; if the event loop closes first (a test ends, a process
        # exits on this error), that thread dies printing "Event loop is closed".
        await asyncio.sleep(_OPEN_RETRY_DELAY_S)
        raise StoreUnavailable("The store could not open the database.") from last_error

    async def _create_and_seed(self) -> None:
        async with self._engine.begin() as connection:
            await connection.run_sync(Base.metadata.create_all)
        async with self._session("seed the demo data") as session:
            customers = await session.scalar(select(func.count()).select_from(CustomerRow))
            if customers:
                return
            session.add_all([customer_to_row(customer) for customer in DEMO_CUSTOMERS])
            # Orders reference customers; without relationship() the flush order is
            # not derived from the foreign key, so customers go first explicitly.
            await session.flush()
            session.add_all([order_to_row(order) for order in DEMO_ORDERS])


def _is_sqlite_memory(url: URL) -> bool:
    return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")


def _create_sqlite_directory(url: URL) -> None:
    """Creates the folder of a SQLite file; SQLite creates the file but not its folder."""
    if url.get_backend_name() != "sqlite" or not url.database:
        return
    if url.database.startswith("file:"):
        # A URI filename (uri=true) may carry query parameters; leave it to SQLite.
        return
    Path(url.database).parent.mkdir(parents=True, exist_ok=True)
