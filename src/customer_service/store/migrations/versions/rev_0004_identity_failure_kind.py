"""Each counted identity failure keeps whether it was made of the name and postal code
alone (`label_only`): the two details printed on every parcel label, which hold an
account only at a higher count than near misses that include the phone or email.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27

Failures counted before this revision read as false: the stricter kind, so no account
held before the upgrade is let go by it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "identity_failures",
        sa.Column("label_only", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    # SQLite drops a column by copying the table: batch mode does it.
    with op.batch_alter_table("identity_failures") as identity_failures:
        identity_failures.drop_column("label_only")
