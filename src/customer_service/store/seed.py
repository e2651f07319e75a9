"""The demo data (the table in ARCHITECTURE.md and README), and the one way it is written.

Who gets it is the caller's decision (`SEED_DEMO_DATA`; `python src/agent.py seed-demo`);
writing it is idempotent, and it is never added next to other customers unless forced.
The orders' dates count back from the day the store is seeded (`demo_orders(today)`), so
the demo never ages: the delivered order was always delivered 17 days before.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.domain import (
    Customer,
    Fulfilment,
    Order,
    OrderItem,
    OrderStatus,
    PostalAddress,
    Transaction,
    TransactionKind,
)
from customer_service.store.catalog import ProductRow, add_products
from customer_service.store.customers import CustomerRow, customer_to_row
from customer_service.store.demo_catalog import DEMO_PAYMENT_METHODS, DEMO_PRODUCTS, demo_variant
from customer_service.store.errors import DemoDataRefused
from customer_service.store.orders import OrderRow, order_to_row
from customer_service.store.payments import PaymentMethodRow, method_rows

__all__ = [
    "DEMO_CUSTOMERS",
    "DEMO_ORDER_IDS",
    "DemoDataAdded",
    "add_missing_demo_data",
    "demo_orders",
]

_JORDAN_ADDRESS = PostalAddress(
    street="500 Howard St",
    unit="Apt 4B",
    city="San Francisco",
    region="CA",
    postal_code="94107",
    country="US",
)
_PRIYA_ADDRESS = PostalAddress(
    street="350 5th Ave",
    city="New York",
    region="NY",
    postal_code="10001",
    country="US",
)
_MARIA_ADDRESS = PostalAddress(
    street="Calle de Alcalá 45",
    unit="2º izquierda",
    city="Madrid",
    region="M",  # ISO 3166-2:ES-M, the Community of Madrid
    postal_code="28013",
    country="ES",
)

DEMO_CUSTOMERS: tuple[Customer, ...] = (
    Customer(
        customer_id="C-1001",
        full_name="Jordan Lee",
        phone="+14155550134",
        email="jordan.lee@example.com",
        postal_code="94107",
        country="US",
        address=_JORDAN_ADDRESS,
    ),
    Customer(
        customer_id="C-1002",
        full_name="Priya Natarajan",
        phone="+12125550188",
        email="priya.n@example.com",
        postal_code="10001",
        country="US",
        address=_PRIYA_ADDRESS,
    ),
    Customer(
        customer_id="C-1003",
        full_name="María García",
        phone="+34911234567",
        email="maria.garcia@example.es",
        postal_code="28013",
        country="ES",
        address=_MARIA_ADDRESS,
    ),
)


def _line(name: str, item_id: str, quantity: int = 1) -> OrderItem:
    variant = demo_variant(item_id)
    return OrderItem(
        name=name,
        quantity=quantity,
        product_id=variant.product_id,
        item_id=item_id,
        options=variant.options,
        price=variant.price,
    )


def _paid(method_id: str, *items: OrderItem) -> tuple[Transaction, ...]:
    total = sum((item.price or Decimal(0)) * item.quantity for item in items)
    return (Transaction(kind=TransactionKind.PAYMENT, amount=total, method_id=method_id),)


def _shipped(tracking_id: str, *items: OrderItem) -> tuple[Fulfilment, ...]:
    return (
        Fulfilment(
            tracking_ids=(tracking_id,),
            item_ids=tuple(item.item_id or "" for item in items for _ in range(item.quantity)),
        ),
    )


def demo_orders(today: dt.date) -> tuple[Order, ...]:
    """The demo orders as seeded on `today`: each date is so many days before it.

    Order numbers grow with placed_on, so "newest first" reads the same either way.
    """

    def days_ago(days: int) -> dt.date:
        return today - dt.timedelta(days=days)

    headphones = _line("Wireless noise-cancelling headphones", "9000000101")
    cables = _line("USB-C charging cable", "9000000201", 2)
    coffee_set = _line("Ceramic pour-over coffee set", "9000000301")
    mat = _line("Cork yoga mat", "9000000401")
    blocks = _line("Yoga block", "9000000501", 2)
    bottles = _line("Stainless steel water bottle", "9000000601", 3)
    duvet_cover = _line("Linen duvet cover, double", "9000000701")
    pillows = _line("Feather pillow", "9000000801", 2)
    return (
        Order(
            order_id="100101",
            customer_id="C-1001",
            status=OrderStatus.PROCESSED,
            items=(headphones, cables),
            placed_on=days_ago(24),
            carrier="UPS",
            shipping_address=_JORDAN_ADDRESS,
            fulfilments=_shipped("1Z999AA10123456784", headphones, cables),
            payments=_paid("credit_card_9000101", headphones, cables),
        ),
        Order(
            order_id="100102",
            customer_id="C-1001",
            status=OrderStatus.PENDING,
            items=(coffee_set,),
            placed_on=days_ago(22),
            shipping_address=_JORDAN_ADDRESS,
            payments=_paid("credit_card_9000101", coffee_set),
        ),
        Order(
            order_id="200201",
            customer_id="C-1002",
            status=OrderStatus.DELIVERED,
            items=(mat, blocks),
            placed_on=days_ago(21),
            delivered_on=days_ago(17),
            shipping_address=_PRIYA_ADDRESS,
            fulfilments=_shipped("9400111899223344556677", mat, blocks),
            payments=_paid("paypal_9000201", mat, blocks),
        ),
        Order(
            order_id="200202",
            customer_id="C-1002",
            status=OrderStatus.PENDING,
            items=(bottles,),
            placed_on=days_ago(10),
            shipping_address=_PRIYA_ADDRESS,
            payments=_paid("gift_card_9000202", bottles),
        ),
        Order(
            order_id="300301",
            customer_id="C-1003",
            status=OrderStatus.PENDING,
            items=(duvet_cover, pillows),
            placed_on=days_ago(8),
            shipping_address=_MARIA_ADDRESS,
            payments=_paid("credit_card_9000301", duvet_cover, pillows),
        ),
    )


# The ids do not depend on the day.
DEMO_ORDER_IDS: tuple[str, ...] = tuple(
    order.order_id for order in demo_orders(dt.date(2000, 1, 1))
)


class DemoDataAdded(NamedTuple):
    customers: int
    orders: int


async def add_missing_demo_data(
    session: AsyncSession, *, today: dt.date, force: bool = False
) -> DemoDataAdded:
    """Adds the demo customers and orders that are not in the store, the orders dated as
    seeded on `today`; changes no row that is.

    Raises `DemoDataRefused` when a demo customer would be added to a store that holds
    anyone else, unless `force`: their details are published, and a real customer's
    database is no place for them. A demo order goes in only under its own demo
    customer: where a customer with a demo customer's id exists under another name, that
    id is someone else's, and the demo orders for it are left out rather than given to
    them.
    """
    demo_customers = {customer.customer_id: customer for customer in DEMO_CUSTOMERS}
    present = {
        row.customer_id: row.full_name
        for row in await session.scalars(
            select(CustomerRow).where(CustomerRow.customer_id.in_(demo_customers))
        )
    }
    new_customers = [c for c in DEMO_CUSTOMERS if c.customer_id not in present]
    if new_customers and not force and await _holds_other_customers(session, present):
        raise DemoDataRefused()
    ours = {c.customer_id for c in new_customers} | {
        customer_id
        for customer_id, full_name in present.items()
        if full_name == demo_customers[customer_id].full_name
    }
    session.add_all([customer_to_row(customer) for customer in new_customers])
    await _add_missing_products(session)
    # Orders reference customers; without relationship() the flush order is not derived
    # from the foreign key, so customers go first explicitly.
    await session.flush()
    await _add_missing_payment_methods(session, ours)
    statement = select(OrderRow.order_id).where(OrderRow.order_id.in_(DEMO_ORDER_IDS))
    present_orders = set(await session.scalars(statement))
    new_orders = [
        order
        for order in demo_orders(today)
        if order.order_id not in present_orders and order.customer_id in ours
    ]
    session.add_all([order_to_row(order, position=int(order.order_id)) for order in new_orders])
    return DemoDataAdded(customers=len(new_customers), orders=len(new_orders))


async def _holds_other_customers(session: AsyncSession, present: dict[str, str]) -> bool:
    """Whether anyone but the demo customers is in the store: another id, or a demo id
    under another name (`present`: the demo ids found, with their names)."""
    demo_names = {customer.customer_id: customer.full_name for customer in DEMO_CUSTOMERS}
    if any(demo_names[customer_id] != name for customer_id, name in present.items()):
        return True
    others = select(CustomerRow.customer_id).where(CustomerRow.customer_id.not_in(demo_names))
    return (await session.scalars(others.limit(1))).first() is not None


async def _add_missing_products(session: AsyncSession) -> None:
    """The demo catalog's products that are not in the store, each with its variants."""
    present = set(
        await session.scalars(
            select(ProductRow.product_id).where(
                ProductRow.product_id.in_([product.product_id for product in DEMO_PRODUCTS])
            )
        )
    )
    await add_products(
        session,
        [(index, p) for index, p in enumerate(DEMO_PRODUCTS) if p.product_id not in present],
    )


async def _add_missing_payment_methods(session: AsyncSession, ours: set[str]) -> None:
    """The demo payment methods that the demo customers in `ours` lack (all of them for a
    new customer; those of a store seeded before the demo had payment methods, too)."""
    present = set(
        await session.scalars(
            select(PaymentMethodRow.method_id).where(PaymentMethodRow.customer_id.in_(ours))
        )
    )
    for customer_id in sorted(ours):
        session.add_all(
            method_rows(
                customer_id,
                [m for m in DEMO_PAYMENT_METHODS[customer_id] if m.method_id not in present],
                start=len(present),
            )
        )
