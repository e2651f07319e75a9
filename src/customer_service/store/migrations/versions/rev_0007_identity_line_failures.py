"""Failed identity checks counted per calling line (`identity_line_failures`): a keyed
digest (HMAC-SHA256) of the number the phone network presented, when, and the call.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from customer_service.store.migrations.helpers import serial_id, timestamp

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "identity_line_failures",
        serial_id(),
        sa.Column("line_key", sa.String(64), nullable=False),
        timestamp("failed_at"),
        sa.Column("call_id", sa.String(128), nullable=False),
    )
    op.create_index(
        "ix_identity_line_failures_line_failed_at",
        "identity_line_failures",
        ["line_key", "failed_at"],
    )


def downgrade() -> None:
    op.drop_index("ix_identity_line_failures_line_failed_at", "identity_line_failures")
    op.drop_table("identity_line_failures")
