"""`Store`: the agent's only way to the database."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import StaticPool

from customer_service.domain import Customer, Order
from customer_service.normalize import normalize_postal_code
from customer_service.store.addresses import AddressChangeStore
from customer_service.store.consents import ConsentStore
from customer_service.store.convert import (
    customer_from_row,
    customer_to_row,
    event_from_row,
    event_to_row,
    order_from_row,
    order_to_row,
)
from customer_service.store.errors import StoreUnavailable, database_errors
from customer_service.store.escalations import EscalationStore
from customer_service.store.events import AuditEvent
from customer_service.store.schema import AuditEventRow, Base, CustomerRow, OrderRow
from customer_service.store.seed import DEMO_CUSTOMERS, DEMO_ORDERS

__all__ = ["Store"]

# Opening retries because two processes opening the same new database race to create
# the tables and seed them; the loser fails once, then finds the work done.
_OPEN_ATTEMPTS = 5
_OPEN_RETRY_DELAY_S = 0.05


class Store(AddressChangeStore, ConsentStore, EscalationStore):
    """Customers, orders, address changes, consents, escalations and audit events
    behind one async interface.

    Every method opens its own short transaction. Any database or I/O failure is
    raised as `StoreUnavailable`, with the original error as its `__cause__`. The
    methods of each further concern live in their own module (`addresses`,
    `consents`, `escalations`); this class is the one to use.
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
        engine = create_async_engine(url, **engine_options)
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

    async def customers_with_postal_code(self, postal_code: str) -> list[Customer]:
        """Customers whose postal code is `postal_code` (a `normalize_postal_code` value).

        A nine-digit US ZIP+4 also finds customers filed under its five-digit ZIP.
        """
        code = normalize_postal_code(postal_code)
        if not code:
            return []
        condition: ColumnElement[bool] = CustomerRow.postal_code_key == code
        if len(code) == 9 and code.isdigit():
            condition = or_(
                condition,
                and_(CustomerRow.postal_code_key == code[:5], CustomerRow.country == "US"),
            )
        statement = select(CustomerRow).where(condition).order_by(CustomerRow.customer_id)
        async with self._session("look up customers") as session:
            rows = await session.scalars(statement)
            return [customer_from_row(row) for row in rows]

    async def get_customer(self, customer_id: str) -> Customer | None:
        async with self._session("read a customer") as session:
            row = await session.get(CustomerRow, customer_id)
            return None if row is None else customer_from_row(row)

    async def get_order(self, order_id: str) -> Order | None:
        """The order, whoever owns it: the caller's ownership check is policy, not storage."""
        async with self._session("read an order") as session:
            row = await session.get(OrderRow, order_id)
            return None if row is None else order_from_row(row)

    async def recent_orders(self, customer_id: str, limit: int) -> list[Order]:
        """The customer's `limit` newest orders: latest `placed_on` first, then order number."""
        if limit < 1:
            return []
        statement = (
            select(OrderRow)
            .where(OrderRow.customer_id == customer_id)
            .order_by(OrderRow.placed_on.desc(), OrderRow.order_id.desc())
            .limit(limit)
        )
        async with self._session("read recent orders") as session:
            rows = await session.scalars(statement)
            return [order_from_row(row) for row in rows]

    async def add_audit_event(self, event: AuditEvent) -> None:
        async with self._session("write an audit event") as session:
            session.add(event_to_row(event))

    async def audit_events(
        self, *, call_id: str | None = None, kind: str | None = None
    ) -> list[AuditEvent]:
        """Audit events, oldest first, optionally only one call's and/or one kind."""
        statement = select(AuditEventRow).order_by(AuditEventRow.created_at, AuditEventRow.id)
        if call_id is not None:
            statement = statement.where(AuditEventRow.call_id == call_id)
        if kind is not None:
            statement = statement.where(AuditEventRow.kind == kind)
        async with self._session("read audit events") as session:
            rows = await session.scalars(statement)
            return [event_from_row(row) for row in rows]

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
