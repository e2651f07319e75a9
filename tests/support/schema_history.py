"""Databases as earlier versions of the store left them."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

CUSTOMER_COLUMNS_OF_REVISION_0002 = ("name_key", "email_key", "phone_tail")


async def drop_columns_added_after_the_first_revision(connection: AsyncConnection) -> None:
    """Leaves `customers` with the first revision's columns (SQLite drops a column only
    once its index is gone)."""
    for column in CUSTOMER_COLUMNS_OF_REVISION_0002:
        await connection.execute(text(f"DROP INDEX ix_customers_{column}"))
        await connection.execute(text(f"ALTER TABLE customers DROP COLUMN {column}"))
