"""Column shapes that revisions share. A revision is a fixed record of one step, so
what is here must not change once a revision uses it: a new shape gets a new function."""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["serial_id"]


def serial_id() -> sa.Column[int]:
    """An auto-incrementing key: SQLite only auto-increments an INTEGER primary key;
    PostgreSQL gets 64 bits."""
    return sa.Column(
        "id",
        sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
        primary_key=True,
        autoincrement=True,
    )
