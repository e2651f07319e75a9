"""`Store`: the agent's only way to the database."""

from __future__ import annotations

import asyncio
import copy
from types import TracebackType
from typing import Self

from sqlalchemy.exc import DBAPIError, IntegrityError

from customer_service.clock import Clock
from customer_service.store.addresses import AddressChangeStore
from customer_service.store.audit import AuditStore
from customer_service.store.balance_holds import PaymentMethodStore
from customer_service.store.call_reports import CallReportStore
from customer_service.store.catalog import CatalogStore
from customer_service.store.consents import ConsentStore
from customer_service.store.customers import CustomerStore
from customer_service.store.default_addresses import DefaultAddressStore
from customer_service.store.engine import (
    PoolSize,
    create_store_engine,
    is_sqlite_memory,
    store_url,
)
from customer_service.store.errors import StoreUnavailable, database_errors
from customer_service.store.escalations import EscalationStore
from customer_service.store.identity_failures import IdentityFailureStore
from customer_service.store.identity_release import IdentityReleaseStore
from customer_service.store.item_changes import ItemChangeStore
from customer_service.store.line_failures import LineFailureStore
from customer_service.store.orders import OrderStore
from customer_service.store.payment_changes import PaymentChangeStore
from customer_service.store.returns import ReturnRequestStore
from customer_service.store.schema import check_schema, upgrade_schema
from customer_service.store.seed import DemoDataAdded, add_missing_demo_data
from customer_service.store.tau2_data import Tau2DataStore

__all__ = ["Store"]

# Opening retries a SQLite file that fails for a moment (another process holding it
# beyond the busy timeout); a server that cannot be reached fails at once, since each
# attempt may wait for the connect timeout.
_SQLITE_OPEN_ATTEMPTS = 3
_OPEN_RETRY_DELAY_S = 0.05
# Two processes seeding the same new database race to insert the same rows on
# PostgreSQL; the loser fails once, then finds the work done.
_SEED_ATTEMPTS = 3


class Store(
    CustomerStore,
    DefaultAddressStore,
    CatalogStore,
    PaymentMethodStore,
    OrderStore,
    ItemChangeStore,
    PaymentChangeStore,
    AddressChangeStore,
    ConsentStore,
    EscalationStore,
    IdentityFailureStore,
    IdentityReleaseStore,
    LineFailureStore,
    ReturnRequestStore,
    Tau2DataStore,
    CallReportStore,
    AuditStore,
):
    """Every concern of the store (customers, orders, address changes, ...) behind one
    async interface.

    Every method opens its own short transaction. Any database or I/O failure is
    raised as `StoreUnavailable`, with the original error as its `__cause__`. Each
    concern's table, record and methods live in their own module, as one `StoreCore`
    part listed in the bases above (a test fails while a part of the package is left
    out; its records are imported from its module); this class is the one to use.
    """

    @classmethod
    async def open(
        cls,
        database_url: str,
        *,
        migrate: bool | None = None,
        seed_demo_data: bool | None = None,
        force_demo_data: bool = False,
        pool: PoolSize | None = None,
        clock: Clock | None = None,
    ) -> Store:
        """Connects and makes sure the schema is this version's latest.

        `migrate`: True upgrades the database to the latest revision (creating it when
        empty); False only checks it and raises `SchemaNotCurrent`, naming
        `python src/agent.py migrate`, when it is behind. An in-memory database is
        always migrated: nobody else could. `seed_demo_data`: True adds the demo
        customers and orders that are missing; `force_demo_data` adds them even next to
        other customers (see `seed_demo_data()`). For both `migrate` and
        `seed_demo_data`, None (the default) means yes for SQLite, a local file or
        memory, as tests and tools want, and no for a database server; the agent itself
        passes what its settings decide (`StoreConfig.from_settings`). `pool` sizes a
        server database's connection pool. `clock` is the store's every "now"
        (`Store.clock`, read by the calls on it too), the system's unless given.

        Safe to call again on the same database, from this or another process:
        migrations take a lock and the demo data is written once. Raises
        `StoreUnavailable` when the database cannot be reached, created or read, and
        `StoreMisconfigured` when it cannot be used as configured (no async driver, the
        driver not installed, a schema that is not current, demo data refused).
        """
        engine = create_store_engine(database_url, pool)
        url = store_url(database_url)
        in_memory = is_sqlite_memory(url)
        sqlite = url.get_backend_name() == "sqlite"
        migrate = sqlite if migrate is None else migrate
        seed_demo_data = sqlite if seed_demo_data is None else seed_demo_data
        store = cls(engine, serialize=in_memory, clock=clock)
        try:
            await store._prepare(
                migrate=migrate or in_memory,
                attempts=_SQLITE_OPEN_ATTEMPTS if sqlite else 1,
            )
            if seed_demo_data:
                await store.seed_demo_data(force=force_demo_data)
        except BaseException:
            await engine.dispose()
            raise
        return store

    async def seed_demo_data(self, *, force: bool = False) -> DemoDataAdded:
        """Adds the demo customers and orders the store lacks (see `seed.py`), in one
        transaction, and says how many of each it added: none when they are all there.
        The orders' dates count back from the store's clock's today.

        Raises `DemoDataRefused` (a `StoreMisconfigured`) instead of adding demo
        customers next to other customers, unless `force`."""
        for attempt in range(_SEED_ATTEMPTS):
            try:
                async with self._write_session("seed the demo data") as session:
                    return await add_missing_demo_data(
                        session, today=self.clock.today(), force=force
                    )
            except StoreUnavailable as exc:
                if not isinstance(exc.__cause__, IntegrityError) or attempt + 1 == _SEED_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def for_call(self) -> Store:
        """This store for one call: it shares the engine, its pool and its transaction
        turns, and closing it leaves them open for the others."""
        handle = copy.copy(self)
        handle._owns_engine = False
        return handle

    async def close(self) -> None:
        """Closes every pooled connection (for a `for_call` handle, nothing). The store is
        unusable afterwards."""
        if not self._owns_engine:
            return
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

    async def _prepare(self, *, migrate: bool, attempts: int) -> None:
        last_error: BaseException | None = None
        for attempt in range(attempts):
            if attempt:
                await asyncio.sleep(_OPEN_RETRY_DELAY_S * 2 ** (attempt - 1))
            try:
                with database_errors("open the database"):
                    if migrate:
                        await upgrade_schema(self._engine)
                    else:
                        await check_schema(self._engine)
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
