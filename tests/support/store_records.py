"""A test store's records: written straight into it where an operation must start from a
state no demo order is in (items already changed, paid twice), and read whole to show
that a refused change changed nothing."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.domain import Customer, Order, PaymentMethod
from customer_service.store import Store
from customer_service.store.orders import OrderRow, order_to_row, set_order_fields
from customer_service.store.payments import method_rows

EVERY_ORDER = 1_000


async def save_orders(store: Store, *orders: Order) -> None:
    """Writes each order as given: a new one is added, an existing one overwritten."""
    async with AsyncSession(store.engine) as session, session.begin():
        for order in orders:
            row = await session.get(OrderRow, order.order_id)
            if row is None:
                session.add(order_to_row(order))
            else:
                set_order_fields(row, order)


async def save_payment_methods(store: Store, customer_id: str, *methods: PaymentMethod) -> None:
    """Adds payment methods to a customer's, after the ones they have."""
    async with AsyncSession(store.engine) as session, session.begin():
        have = len(await store.payment_methods(customer_id))
        for row in method_rows(customer_id, methods):
            row.position += have
            session.add(row)


async def stored_order(store: Store, order_id: str) -> Order:
    order = await store.get_order(order_id)
    assert order is not None
    return order


class CustomerRecords(NamedTuple):
    customer: Customer | None
    orders: list[Order]
    payment_methods: list[PaymentMethod]


async def change_order(database_url: str, order_id: str, **update: object) -> Order:
    """Stores the order `order_id` of the database at `database_url` with `update`
    (its status, items, payments) before a call, and returns it as stored."""
    async with await Store.open(database_url) as store:
        order = (await stored_order(store, order_id)).model_copy(update=update)
        await save_orders(store, order)
    return order


async def customer_records(store: Store, customer_id: str) -> CustomerRecords:
    """Everything the store holds of one customer: account, orders and payment methods."""
    return CustomerRecords(
        customer=await store.get_customer(customer_id),
        orders=await store.recent_orders(customer_id, EVERY_ORDER),
        payment_methods=await store.payment_methods(customer_id),
    )
