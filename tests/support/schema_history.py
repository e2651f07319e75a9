"""Databases as earlier versions of the store left them, made by the revisions themselves:
what a revision adds, its downgrade takes away, so a new revision needs nothing here."""

from __future__ import annotations

from collections.abc import Iterable

from alembic import command
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from customer_service.store import schema
from customer_service.store.schema import FIRST_REVISION

ORIGINAL_TABLES = frozenset({"customers", "orders", "audit_events"})
"""The tables every database made before migrations has (`schema.py` adopts no fewer)."""


def _downgrade_to_the_first_revision(connection: Connection) -> None:
    # Looked up when called: a test may add a revision (`support.new_table`).
    command.downgrade(schema.migrations_config(connection), FIRST_REVISION)


async def made_before_migrations(connection: AsyncConnection, lacking: Iterable[str] = ()) -> None:
    """Turns a database at the latest revision into one as `Store.open` made it before
    migrations: the first revision's tables and columns, less `lacking` (first-revision
    tables a version before migrations did not have yet), no migration history. The rows
    of what remains are kept."""
    await connection.run_sync(_downgrade_to_the_first_revision)
    for table in (*sorted(lacking), "alembic_version"):
        await connection.execute(text(f"DROP TABLE {table}"))
