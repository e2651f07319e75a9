"""Columns the revisions share, written once.

A revision is a fixed record of one step: once a revision that uses a helper here has
shipped, the helper's output must never change (a different column gets a new helper),
or databases made by the old revision would differ from new ones made by the same
revision.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

__all__ = ["serial_id", "timestamp"]


def serial_id() -> sa.Column[int]:
    """An auto-incrementing key named `id`: SQLite only auto-increments an INTEGER
    primary key; PostgreSQL gets 64 bits. The same column as the models' `serial_id`
    (`customer_service.store.tables`)."""
    return sa.Column(
        "id",
        sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
        primary_key=True,
        autoincrement=True,
    )


def timestamp(name: str) -> sa.Column[dt.datetime]:
    """A required timezone-aware timestamp, as the models' `UTCDateTime` columns are."""
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)
