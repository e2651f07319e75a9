"""Return requests: which items of a delivered order a caller sends back, why (a
category, never the caller's words), and the return number they were given.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26

One request per order (`order_id` is unique), so two calls asking at once store one.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from customer_service.store.migrations.helpers import serial_id, timestamp

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "return_requests",
        serial_id(),
        sa.Column("return_number", sa.String(8), nullable=False, unique=True),
        sa.Column(
            "order_id",
            sa.String(6),
            sa.ForeignKey("orders.order_id"),
            nullable=False,
            unique=True,
        ),
        sa.Column(
            "customer_id",
            sa.String(32),
            sa.ForeignKey("customers.customer_id"),
            nullable=False,
        ),
        sa.Column("item_count", sa.Integer(), nullable=False),
        sa.Column("item_indices", sa.JSON(), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("call_id", sa.String(128), nullable=False),
        timestamp("created_at"),
    )
    op.create_index("ix_return_requests_customer_id", "return_requests", ["customer_id"])
    op.create_index("ix_return_requests_call_id", "return_requests", ["call_id"])


def downgrade() -> None:
    op.drop_table("return_requests")
