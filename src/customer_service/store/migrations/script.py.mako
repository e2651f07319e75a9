"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
Create Date: ${create_date}

The same revision runs on SQLite and PostgreSQL: portable types only, and table changes
that SQLite cannot ALTER in place inside `with op.batch_alter_table(...)`. Columns that
revisions share (`serial_id()`, `timestamp(name)`) come from
`customer_service.store.migrations.helpers`; `downgrade` undoes exactly what `upgrade`
does (tests make older databases with it).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
% if imports:
${imports}
% endif

revision: str = ${repr(up_revision)}
down_revision: str | Sequence[str] | None = ${repr(down_revision)}
branch_labels: str | Sequence[str] | None = ${repr(branch_labels)}
depends_on: str | Sequence[str] | None = ${repr(depends_on)}


def upgrade() -> None:
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    ${downgrades if downgrades else "pass"}
