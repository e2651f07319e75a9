"""Databases as earlier versions of the store left them."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

CUSTOMER_COLUMNS_OF_REVISION_0002 = ("name_key", "email_key", "phone_tail")
TABLES_OF_LATER_REVISIONS = ("return_requests",)
"""Tables that revisions after the first create (0003 on), newest first."""


async def undo_revisions_after_the_first(connection: AsyncConnection) -> None:
    """Leaves the first revision's tables with their columns and drops the later ones'
    tables, which a database made before migrations cannot have (SQLite drops a column
    only once its index is gone)."""
    for table in TABLES_OF_LATER_REVISIONS:
        await connection.execute(text(f"DROP TABLE {table}"))
    for column in CUSTOMER_COLUMNS_OF_REVISION_0002:
        await connection.execute(text(f"DROP INDEX ix_customers_{column}"))
        await connection.execute(text(f"ALTER TABLE customers DROP COLUMN {column}"))
