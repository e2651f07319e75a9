"""The store's schema as it stood when migrations began: every table the models created.

Revision ID: 0001
Revises:
Create Date: 2026-11-24

Written out, not generated: a revision is a fixed record of one step, whatever the models
say later. Each table has its own function, so that a database made before migrations,
which may lack tables added to the models later, can be given exactly the ones it
misses (`customer_service.store.schema` adopts such a database at this revision).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import op

from customer_service.store.migrations.helpers import serial_id, timestamp

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def create_customers() -> None:
    op.create_table(
        "customers",
        sa.Column("customer_id", sa.String(32), primary_key=True),
        sa.Column("full_name", sa.String(200), nullable=False),
        sa.Column("phone", sa.String(32), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("postal_code", sa.String(16), nullable=False),
        sa.Column("postal_code_key", sa.String(16), nullable=False),
        sa.Column("country", sa.String(2), nullable=False),
    )
    op.create_index("ix_customers_postal_code_key", "customers", ["postal_code_key"])


def create_orders() -> None:
    op.create_table(
        "orders",
        sa.Column("order_id", sa.String(6), primary_key=True),
        sa.Column(
            "customer_id",
            sa.String(32),
            sa.ForeignKey("customers.customer_id"),
            nullable=False,
        ),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("items", sa.JSON(), nullable=False),
        sa.Column("placed_on", sa.Date(), nullable=False),
        sa.Column("carrier", sa.String(64), nullable=True),
        sa.Column("tracking_number", sa.String(64), nullable=True),
        sa.Column("delivered_on", sa.Date(), nullable=True),
        sa.Column("ship_street", sa.Text(), nullable=False),
        sa.Column("ship_unit", sa.Text(), nullable=True),
        sa.Column("ship_city", sa.Text(), nullable=False),
        sa.Column("ship_region", sa.Text(), nullable=False),
        sa.Column("ship_postal_code", sa.Text(), nullable=False),
        sa.Column("ship_country", sa.String(2), nullable=False),
    )
    op.create_index("ix_orders_customer_placed_on", "orders", ["customer_id", "placed_on"])


def create_audit_events() -> None:
    op.create_table(
        "audit_events",
        serial_id(),
        sa.Column("call_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("customer_id", sa.String(32), nullable=True),
        sa.Column("order_id", sa.String(32), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=False),
        timestamp("created_at"),
    )
    op.create_index("ix_audit_events_call_id", "audit_events", ["call_id"])
    op.create_index("ix_audit_events_kind", "audit_events", ["kind"])
    op.create_index("ix_audit_events_created_at", "audit_events", ["created_at"])


def create_address_changes() -> None:
    op.create_table(
        "address_changes",
        serial_id(),
        sa.Column("change_key", sa.String(128), nullable=False, unique=True),
        sa.Column("order_id", sa.String(6), sa.ForeignKey("orders.order_id"), nullable=False),
        sa.Column(
            "customer_id",
            sa.String(32),
            sa.ForeignKey("customers.customer_id"),
            nullable=False,
        ),
        sa.Column("call_id", sa.String(128), nullable=False),
        sa.Column("old_address", sa.JSON(), nullable=False),
        sa.Column("new_address", sa.JSON(), nullable=False),
        timestamp("changed_at"),
    )
    op.create_index("ix_address_changes_order_id", "address_changes", ["order_id"])
    op.create_index("ix_address_changes_call_id", "address_changes", ["call_id"])


def create_consents() -> None:
    op.create_table(
        "consents",
        serial_id(),
        sa.Column("topic", sa.String(64), nullable=False),
        sa.Column("granted", sa.Boolean(), nullable=False),
        sa.Column("wording_version", sa.String(32), nullable=False),
        timestamp("asked_at"),
        sa.Column("call_id", sa.String(128), nullable=False),
        sa.Column("customer_id", sa.String(32), nullable=True),
    )
    op.create_index(
        "ix_consents_topic_customer_asked_at", "consents", ["topic", "customer_id", "asked_at"]
    )
    op.create_index("ix_consents_topic_call_asked_at", "consents", ["topic", "call_id", "asked_at"])


def create_escalations() -> None:
    op.create_table(
        "escalations",
        sa.Column("escalation_id", sa.String(64), primary_key=True),
        sa.Column("call_id", sa.String(128), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("verified", sa.Boolean(), nullable=False),
        sa.Column("customer_id", sa.String(32), nullable=True),
        sa.Column("collected", sa.JSON(), nullable=False),
        sa.Column("failed_specialist", sa.String(64), nullable=True),
        sa.Column("failure", sa.Text(), nullable=True),
        sa.Column("summary", sa.String(2000), nullable=False),
        timestamp("created_at"),
    )
    op.create_index("ix_escalations_call_id", "escalations", ["call_id"])
    op.create_index("ix_escalations_created_at", "escalations", ["created_at"])


def create_identity_failures() -> None:
    op.create_table(
        "identity_failures",
        serial_id(),
        sa.Column("customer_id", sa.String(32), nullable=False),
        timestamp("failed_at"),
        sa.Column("call_id", sa.String(128), nullable=False),
    )
    op.create_index("ix_identity_failures_failed_at", "identity_failures", ["failed_at"])
    op.create_index(
        "ix_identity_failures_customer_failed_at",
        "identity_failures",
        ["customer_id", "failed_at"],
    )


TABLES: dict[str, Callable[[], None]] = {
    "customers": create_customers,
    "orders": create_orders,
    "audit_events": create_audit_events,
    "address_changes": create_address_changes,
    "consents": create_consents,
    "escalations": create_escalations,
    "identity_failures": create_identity_failures,
}
"""Each table and the function that creates it, in an order that honours foreign keys."""


def upgrade() -> None:
    for create in TABLES.values():
        create()


def downgrade() -> None:
    for table in reversed(TABLES):
        op.drop_table(table)
