"""The retail domain of τ²-bench: a catalog of products and variants, customers'
payment methods and default address, and orders whose items name a variant and its
price, with fulfilments, payment history and what a cancellation, exchange or return
asked for.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27

Existing orders move to the benchmark's states (processing is pending, shipped is
processed) and a tracking number becomes the order's one fulfilment. Order numbers may
be the benchmark's ("#W" and seven digits), so the columns that hold one widen.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STATUS_NOW = {"processing": "pending", "shipped": "processed"}
_ORDER_JSON = ("fulfilments", "payments")
_ADDRESS = ("street", "unit", "city", "region")


def upgrade() -> None:
    op.create_table(
        "products",
        sa.Column("product_id", sa.String(32), primary_key=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
    )
    op.create_table(
        "product_variants",
        sa.Column("item_id", sa.String(32), primary_key=True),
        sa.Column(
            "product_id", sa.String(32), sa.ForeignKey("products.product_id"), nullable=False
        ),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("available", sa.Boolean(), nullable=False),
        sa.Column("price_cents", sa.BigInteger(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
    )
    op.create_index("ix_product_variants_product_id", "product_variants", ["product_id"])
    op.create_table(
        "payment_methods",
        sa.Column(
            "customer_id",
            sa.String(32),
            sa.ForeignKey("customers.customer_id"),
            primary_key=True,
        ),
        sa.Column("method_id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("brand", sa.String(32), nullable=True),
        sa.Column("last_four", sa.String(4), nullable=True),
        sa.Column("balance_cents", sa.BigInteger(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
    )

    with op.batch_alter_table("customers") as customers:
        customers.alter_column("phone", existing_type=sa.String(32), nullable=True)
        for name in _ADDRESS:
            customers.add_column(sa.Column(name, sa.Text(), nullable=True))

    with op.batch_alter_table("orders") as orders:
        orders.add_column(sa.Column("position", sa.Integer(), nullable=True))
        for name in _ORDER_JSON:
            orders.add_column(sa.Column(name, sa.JSON(), nullable=True))
        orders.add_column(sa.Column("cancel_reason", sa.String(32), nullable=True))
        orders.add_column(sa.Column("exchange", sa.JSON(), nullable=True))
        orders.add_column(sa.Column("returned", sa.JSON(), nullable=True))
    _move_orders_to_the_benchmarks_states()
    with op.batch_alter_table("orders") as orders:
        orders.alter_column("order_id", existing_type=sa.String(6), type_=sa.String(16))
        orders.alter_column("status", existing_type=sa.String(16), type_=sa.String(32))
        orders.alter_column("placed_on", existing_type=sa.Date(), nullable=True)
        for name in _ORDER_JSON:
            orders.alter_column(name, existing_type=sa.JSON(), nullable=False)
        orders.drop_column("tracking_number")
    for table in ("address_changes", "return_requests"):
        with op.batch_alter_table(table) as referring:
            referring.alter_column("order_id", existing_type=sa.String(6), type_=sa.String(16))


def _move_orders_to_the_benchmarks_states() -> None:
    orders = sa.table(
        "orders",
        sa.column("order_id", sa.String()),
        sa.column("status", sa.String()),
        sa.column("tracking_number", sa.String()),
        sa.column("fulfilments", sa.JSON()),
        sa.column("payments", sa.JSON()),
    )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(orders.c.order_id, orders.c.status, orders.c.tracking_number)
    )
    for order_id, status, tracking_number in rows.all():
        fulfilments = (
            [{"tracking_ids": [tracking_number], "item_ids": []}] if tracking_number else []
        )
        connection.execute(
            orders.update()
            .where(orders.c.order_id == order_id)
            .values(
                status=_STATUS_NOW.get(status, status),
                fulfilments=fulfilments,
                payments=[],
            )
        )


def downgrade() -> None:
    for table in ("address_changes", "return_requests"):
        with op.batch_alter_table(table) as referring:
            referring.alter_column("order_id", existing_type=sa.String(16), type_=sa.String(6))
    with op.batch_alter_table("orders") as batch:
        batch.add_column(sa.Column("tracking_number", sa.String(64), nullable=True))
    orders = sa.table(
        "orders",
        sa.column("order_id", sa.String()),
        sa.column("status", sa.String()),
        sa.column("tracking_number", sa.String()),
        sa.column("fulfilments", sa.JSON()),
    )
    connection = op.get_bind()
    before = {now: then for then, now in _STATUS_NOW.items()}
    for order_id, status, fulfilments in connection.execute(
        sa.select(orders.c.order_id, orders.c.status, orders.c.fulfilments)
    ).all():
        tracking = next((f["tracking_ids"][0] for f in fulfilments if f["tracking_ids"]), None)
        connection.execute(
            orders.update()
            .where(orders.c.order_id == order_id)
            .values(status=before.get(status, status), tracking_number=tracking)
        )
    with op.batch_alter_table("orders") as orders_table:
        for name in ("returned", "exchange", "cancel_reason", *_ORDER_JSON, "position"):
            orders_table.drop_column(name)
        orders_table.alter_column("status", existing_type=sa.String(32), type_=sa.String(16))
        orders_table.alter_column("order_id", existing_type=sa.String(16), type_=sa.String(6))
    with op.batch_alter_table("customers") as customers:
        for name in _ADDRESS:
            customers.drop_column(name)
    op.drop_table("payment_methods")
    op.drop_index("ix_product_variants_product_id", table_name="product_variants")
    op.drop_table("product_variants")
    op.drop_table("products")
