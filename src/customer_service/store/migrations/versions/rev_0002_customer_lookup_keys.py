"""Customers get the keys a failed identity check finds them by, indexed: `name_key`
(the letters `names_match` compares), `email_key` (the address `emails_match`
compares) and `phone_tail` (the last digits of the number on file).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26

A failed identity check counts against every account with the name, the email address
or the phone number the caller gave. Without these columns that meant reading every
customer's name (about a second at 100,000 customers, on each wrong guess) and scanning
the table for the email and the phone; with them, each is an indexed equality.

Existing rows are filled with `customer_service.store.customers.lookup_keys`, the
function the store uses for new rows. If it ever changes, a later revision must
recompute the columns, or customers stored before the change would stop matching.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from customer_service.store.customers import lookup_keys

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 1000
"""Customers read and updated per round while filling the columns."""
_COLUMNS = {"name_key": sa.Text(), "email_key": sa.Text(), "phone_tail": sa.String(4)}


def upgrade() -> None:
    for name, column_type in _COLUMNS.items():
        op.add_column("customers", sa.Column(name, column_type, nullable=True))
    _fill_keys()
    # SQLite cannot add NOT NULL to a column in place: batch mode copies the table.
    with op.batch_alter_table("customers") as customers:
        for name, column_type in _COLUMNS.items():
            customers.alter_column(name, existing_type=column_type, nullable=False)
    for name in _COLUMNS:
        op.create_index(f"ix_customers_{name}", "customers", [name])


def downgrade() -> None:
    for name in _COLUMNS:
        op.drop_index(f"ix_customers_{name}", table_name="customers")
    with op.batch_alter_table("customers") as customers:
        for name in _COLUMNS:
            customers.drop_column(name)


def _fill_keys() -> None:
    connection = op.get_bind()
    customers = sa.table(
        "customers",
        sa.column("customer_id", sa.String()),
        sa.column("full_name", sa.String()),
        sa.column("email", sa.String()),
        sa.column("phone", sa.String()),
        *(sa.column(name, column_type) for name, column_type in _COLUMNS.items()),
    )
    update = (
        sa.update(customers)
        .where(customers.c.customer_id == sa.bindparam("id"))
        .values({name: sa.bindparam(f"new_{name}") for name in _COLUMNS})
    )
    after = ""
    while True:
        batch = connection.execute(
            sa.select(
                customers.c.customer_id,
                customers.c.full_name,
                customers.c.email,
                customers.c.phone,
            )
            .where(customers.c.customer_id > after)
            .order_by(customers.c.customer_id)
            .limit(_BATCH)
        ).all()
        if not batch:
            return
        connection.execute(
            update,
            [
                {
                    "id": customer_id,
                    **{
                        f"new_{name}": value
                        for name, value in lookup_keys(name_, email, phone).items()
                    },
                }
                for customer_id, name_, email, phone in batch
            ],
        )
        after = batch[-1][0]
