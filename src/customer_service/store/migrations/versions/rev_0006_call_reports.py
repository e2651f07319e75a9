"""Call records: each call's masked report as one row, with the columns an operator
filters by (when the call started and ended, its outcome, the specialists that ran, its
estimated cost), so the reports of every agent server are in the one store.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "call_reports",
        sa.Column("call_id", sa.String(128), primary_key=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outcome", sa.String(32), nullable=False),
        sa.Column("specialists", sa.String(1000), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=True),
        sa.Column("report", sa.JSON(), nullable=False),
    )
    op.create_index("ix_call_reports_started_at", "call_reports", ["started_at"])
    op.create_index("ix_call_reports_ended_at", "call_reports", ["ended_at"])
    op.create_index("ix_call_reports_outcome", "call_reports", ["outcome"])


def downgrade() -> None:
    op.drop_table("call_reports")
