"""Revision 0005 moves a store of the demo's first shape into τ²-bench's retail domain:
the states become the benchmark's, a tracking number becomes a fulfilment, and the
demo data gains what it lacks without a row being repeated."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from alembic.command import upgrade as alembic_upgrade
from sqlalchemy.engine import Connection

from customer_service.domain import OrderStatus
from customer_service.store import Store
from customer_service.store.customers import lookup_keys
from customer_service.store.engine import create_store_engine
from customer_service.store.schema import head_revision, migrate_database, migrations_config
from customer_service.store.seed import DEMO_CUSTOMERS, demo_orders

TODAY = dt.date(2026, 11, 27)
OLD_STATUS = {"pending": "processing", "processed": "shipped"}
SHIP_FIELDS = ("street", "unit", "city", "region", "postal_code", "country")


def _revision_0004_store_with_the_old_demo_data(connection: Connection) -> None:
    """The demo data as revision 0004 held it: names and quantities, the old states, a
    tracking number column."""
    alembic_upgrade(migrations_config(connection), "0004")
    for customer in DEMO_CUSTOMERS:
        connection.execute(
            sa.text(
                "INSERT INTO customers (customer_id, full_name, phone, email, postal_code, "
                "postal_code_key, country, name_key, email_key, phone_tail) VALUES (:id, "
                ":name, :phone, :email, :code, :code_key, :country, :name_key, :email_key, "
                ":phone_tail)"
            ),
            {
                "id": customer.customer_id,
                "name": customer.full_name,
                "phone": customer.phone,
                "email": customer.email,
                "code": customer.postal_code,
                "code_key": customer.postal_code,
                "country": customer.country,
                **lookup_keys(customer.full_name, customer.email, customer.phone),
            },
        )
    orders = sa.table(
        "orders",
        *(sa.column(name) for name in ("order_id", "customer_id", "status", "placed_on")),
        sa.column("items", sa.JSON()),
        *(sa.column(name) for name in ("carrier", "tracking_number", "delivered_on")),
        *(sa.column(f"ship_{name}") for name in SHIP_FIELDS),
    )
    for order in demo_orders(TODAY):
        address = order.shipping_address
        connection.execute(
            orders.insert().values(
                order_id=order.order_id,
                customer_id=order.customer_id,
                status=OLD_STATUS.get(order.status.value, order.status.value),
                placed_on=order.placed_on,
                items=[{"name": item.name, "quantity": item.quantity} for item in order.items],
                carrier=order.carrier,
                tracking_number=order.tracking_number,
                delivered_on=order.delivered_on,
                **{f"ship_{name}": getattr(address, name) for name in SHIP_FIELDS},
            )
        )


async def test_the_old_demo_store_moves_to_the_benchmarks_states(database_url: str) -> None:
    engine = create_store_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_revision_0004_store_with_the_old_demo_data)
    finally:
        await engine.dispose()

    upgrade = await migrate_database(database_url)
    assert upgrade.before == "0004"
    assert upgrade.after == head_revision()

    async with await Store.open(database_url, migrate=False, seed_demo_data=False) as store:
        statuses = {o.order_id: o.status for o in await store.recent_orders("C-1001", 5)}
        statuses |= {o.order_id: o.status for o in await store.recent_orders("C-1002", 5)}
        assert statuses == {
            "100101": OrderStatus.PROCESSED,
            "100102": OrderStatus.PENDING,
            "200201": OrderStatus.DELIVERED,
            "200202": OrderStatus.PENDING,
        }
        shipped = await store.get_order("100101")
        assert shipped is not None
        assert shipped.tracking_number == "1Z999AA10123456784"
        assert [item.name for item in shipped.items] == [
            "Wireless noise-cancelling headphones",
            "USB-C charging cable",
        ]
        assert shipped.payments == ()

        # Seeding again adds the catalog and the payment methods, and repeats nothing.
        added = await store.seed_demo_data()
        assert (added.customers, added.orders) == (0, 0)
        assert len(await store.products()) == 8
        assert [m.method_id for m in await store.payment_methods("C-1002")] == [
            "paypal_9000201",
            "gift_card_9000202",
        ]
        await store.seed_demo_data()
        assert len(await store.products()) == 8
        assert len(await store.payment_methods("C-1002")) == 2
