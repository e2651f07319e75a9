"""The store as the settings configure it, and one engine per worker process.

A LiveKit worker runs its calls in job processes. Each process opens its database once,
on its first call: one engine and one pool of connections, sized by
`DATABASE_POOL_SIZE` and `DATABASE_MAX_OVERFLOW`, which every call in that process
shares through a `Store.for_call()` handle. Closing a call's handle leaves the engine
to the next call; the engine is disposed when the process's event loop shuts down (the
framework ends a job process by cancelling what is left on its loop, as `asyncio.run`
does), or by `SharedStore.close()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from customer_service.settings import Settings
from customer_service.store.engine import PoolSize
from customer_service.store.errors import StoreUnavailable
from customer_service.store.repository import Store

__all__ = ["SHARED_STORES_KEY", "SharedStore", "StoreConfig", "shared_store"]

logger = logging.getLogger(__name__)

SHARED_STORES_KEY = "customer_service.store.shared"
"""Where `shared_store` keeps a process's stores in the process's userdata."""


@dataclass(frozen=True)
class StoreConfig:
    """How the agent opens its store: which database, whether opening migrates it and
    seeds the demo data, and the pool's size."""

    database_url: str
    migrate: bool
    seed_demo_data: bool
    pool: PoolSize
    force_demo_data: bool = False
    """Seed even a database that holds other customers (SEED_DEMO_DATA=force)."""

    @classmethod
    def from_settings(cls, settings: Settings, *, database_url: str | None = None) -> StoreConfig:
        """The settings' store, or the one at `database_url` under the same rules (the
        embedded default store alone migrates and seeds itself unless told otherwise)."""
        if database_url is not None and database_url != settings.database_url:
            settings = settings.model_copy(update={"database_url": database_url})
        return cls(
            database_url=settings.database_url,
            migrate=settings.migrates_on_open,
            seed_demo_data=settings.seeds_demo_data,
            force_demo_data=settings.forces_demo_data,
            pool=PoolSize(
                size=settings.database_pool_size, max_overflow=settings.database_max_overflow
            ),
        )

    async def open(self) -> Store:
        """A store of its own (closing it disposes its engine); see `Store.open`."""
        return await Store.open(
            self.database_url,
            migrate=self.migrate,
            seed_demo_data=self.seed_demo_data,
            force_demo_data=self.force_demo_data,
            pool=self.pool,
        )


class SharedStore:
    """One engine and pool for every call of a worker process."""

    def __init__(self, config: StoreConfig) -> None:
        self.config = config
        self._opening = asyncio.Lock()
        self._store: Store | None = None
        self._closer: asyncio.Task[None] | None = None

    async def for_call(self) -> Store:
        """A handle for one call, on the process's engine; the first call opens it
        (checking or migrating the schema, seeding as configured). A failed open is
        raised to that call and tried again by the next."""
        async with self._opening:
            if self._store is None:
                self._store = await self.config.open()
                self._closer = asyncio.get_running_loop().create_task(
                    self._close_with_the_loop(), name="customer-service-store-closer"
                )
            return self._store.for_call()

    async def close(self) -> None:
        """Disposes the engine now; a later call opens a new one."""
        closer, self._closer = self._closer, None
        if closer is not None:
            closer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await closer

    async def _close_with_the_loop(self) -> None:
        try:
            await asyncio.get_running_loop().create_future()
        finally:
            store, self._store = self._store, None
            if store is not None:
                try:
                    await store.close()
                except StoreUnavailable:
                    logger.warning("the store's connections could not be closed cleanly")


def shared_store(userdata: MutableMapping[Any, Any], config: StoreConfig) -> SharedStore:
    """The process's `SharedStore` for `config.database_url`, made on first use and kept
    in `userdata` (the framework's per-process `JobProcess.userdata`)."""
    stores: dict[str, SharedStore] = userdata.setdefault(SHARED_STORES_KEY, {})
    store = stores.get(config.database_url)
    if store is None:
        store = stores[config.database_url] = SharedStore(config)
    return store
