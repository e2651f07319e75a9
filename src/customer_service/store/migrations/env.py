"""Alembic's environment: where a migration runs.

The agent (`python src/agent.py migrate`, and `Store.open` where it migrates) hands over
its own connection, already in a transaction that holds the migration lock
(`customer_service.store.schema`). Alembic's command line, for people writing
revisions, gets an async engine of its own for DATABASE_URL (or `-x url=...`), or
prints SQL with `--sql`.
"""

from __future__ import annotations

import asyncio
import logging.config

from alembic import context
from sqlalchemy.engine import Connection

from customer_service.settings import get_settings
from customer_service.store.engine import create_store_engine, store_url
from customer_service.store.schema import lock_for_migration, migration_options


def _url() -> str:
    return context.get_x_argument(as_dictionary=True).get("url") or get_settings().database_url


def _migrate(connection: Connection) -> None:
    context.configure(connection=connection, **migration_options())
    context.run_migrations()


async def _migrate_with_own_engine() -> None:
    engine = create_store_engine(_url())
    try:
        async with engine.begin() as connection:
            await connection.run_sync(lock_for_migration)
            await connection.run_sync(_migrate)
    finally:
        await engine.dispose()


def _main() -> None:
    shared: Connection | None = context.config.attributes.get("connection")
    if shared is not None:
        _migrate(shared)
        return
    if context.config.config_file_name is not None:
        logging.config.fileConfig(context.config.config_file_name, disable_existing_loggers=False)
    if context.is_offline_mode():
        context.configure(url=store_url(_url()), literal_binds=True, **migration_options())
        with context.begin_transaction():
            context.run_migrations()
        return
    asyncio.run(_migrate_with_own_engine())


_main()
