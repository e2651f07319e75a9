"""A small account shaped like τ²-bench's retail data, beside the demo data, for store
tests: orders hold one entry per unit (quantity 1, the same item id twice for two alike),
with ten-digit item ids and "#W" order numbers, and the customer has a gift card with a
small balance and a credit card."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.domain import (
    Customer,
    Order,
    OrderItem,
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    PostalAddress,
    Product,
    Transaction,
    TransactionKind,
    Variant,
)
from customer_service.store import AuditEvent, Store
from customer_service.store.catalog import add_products
from customer_service.store.customers import customer_to_row
from customer_service.store.money import amount_from_cents
from customer_service.store.orders import order_to_row
from customer_service.store.payments import PaymentMethodRow, method_rows

__all__ = [
    "CREDIT_CARD",
    "CUSTOMER_ID",
    "DELIVERED",
    "GIFT_CARD",
    "KETTLE_CERAMIC",
    "KETTLE_GLASS",
    "KETTLE_IRON",
    "KETTLE_STEEL",
    "MUG_RED",
    "MUG_WHITE",
    "PENDING",
    "PENDING_KETTLES",
    "add_retail_account",
    "balance",
    "every_record",
    "stored_balance",
    "unit",
]

CUSTOMER_ID = "ada_lovelace_1815"
GIFT_CARD = "gift_card_8000001"
CREDIT_CARD = "credit_card_8000002"
PENDING = "#W8000001"
"""Pending: two glass kettles and a red mug, each its own entry, paid by credit card."""
DELIVERED = "#W8000003"
"""Delivered: as PENDING, paid by credit card."""
PENDING_KETTLES = ("#W8000002", "#W8000004", "#W8000005")
"""Pending, each one glass kettle, paid by credit card."""


def _variant(
    item_id: str, product_id: str, price: str, available: bool = True, **options: str
) -> Variant:
    return Variant(
        item_id=item_id,
        product_id=product_id,
        options=options,
        available=available,
        price=Decimal(price),
    )


KETTLE_GLASS = _variant("8000000101", "8000000100", "94.80", material="glass")
KETTLE_STEEL = _variant("8000000102", "8000000100", "100.00", material="steel")
KETTLE_CERAMIC = _variant("8000000103", "8000000100", "80.00", material="ceramic")
KETTLE_IRON = _variant("8000000104", "8000000100", "120.00", available=False, material="iron")
MUG_RED = _variant("8000000201", "8000000200", "12.50", color="red")
MUG_WHITE = _variant("8000000202", "8000000200", "10.00", color="white")

PRODUCTS = (
    Product(
        product_id="8000000100",
        name="Tea Kettle",
        variants=(KETTLE_GLASS, KETTLE_STEEL, KETTLE_CERAMIC, KETTLE_IRON),
    ),
    Product(product_id="8000000200", name="Coffee Mug", variants=(MUG_RED, MUG_WHITE)),
)
_NAMES = {product.product_id: product.name for product in PRODUCTS}

_ADDRESS = PostalAddress(
    street="12 Analytical Row", city="New York", region="NY", postal_code="10001", country="US"
)


def unit(variant: Variant) -> OrderItem:
    """One entry of a τ²-bench order: one unit of `variant` at its price."""
    return OrderItem(
        name=_NAMES[variant.product_id],
        product_id=variant.product_id,
        item_id=variant.item_id,
        options=variant.options,
        price=variant.price,
    )


def _order(order_id: str, status: OrderStatus, *variants: Variant) -> Order:
    total = sum((variant.price for variant in variants), Decimal(0))
    return Order(
        order_id=order_id,
        customer_id=CUSTOMER_ID,
        status=status,
        items=tuple(unit(variant) for variant in variants),
        shipping_address=_ADDRESS,
        payments=(Transaction(kind=TransactionKind.PAYMENT, amount=total, method_id=CREDIT_CARD),),
    )


async def add_retail_account(store: Store, gift_card_balance: str = "10.00") -> None:
    """Adds the catalog, the customer, their payment methods and orders."""
    customer = Customer(
        customer_id=CUSTOMER_ID,
        full_name="Ada Lovelace",
        email="ada.lovelace@example.com",
        postal_code=_ADDRESS.postal_code,
        country=_ADDRESS.country,
        address=_ADDRESS,
    )
    methods: tuple[PaymentMethod, ...] = (
        PaymentMethod(
            method_id=GIFT_CARD, kind=PaymentKind.GIFT_CARD, balance=Decimal(gift_card_balance)
        ),
        PaymentMethod(
            method_id=CREDIT_CARD, kind=PaymentKind.CREDIT_CARD, brand="visa", last_four="1111"
        ),
    )
    orders = (
        _order(PENDING, OrderStatus.PENDING, KETTLE_GLASS, KETTLE_GLASS, MUG_RED),
        *(_order(order_id, OrderStatus.PENDING, KETTLE_GLASS) for order_id in PENDING_KETTLES),
        _order(DELIVERED, OrderStatus.DELIVERED, KETTLE_GLASS, KETTLE_GLASS, MUG_RED),
    )
    async with AsyncSession(store.engine) as session, session.begin():
        await add_products(session, enumerate(PRODUCTS, start=1000))
        session.add(customer_to_row(customer))
        # Without relationship() the flush order is not derived from the foreign keys.
        await session.flush()
        session.add_all(method_rows(CUSTOMER_ID, methods))
        session.add_all(order_to_row(order) for order in orders)


ALL_CUSTOMERS = ("C-1001", "C-1002", "C-1003", CUSTOMER_ID)
"""The demo customers and this account's."""


async def every_record(store: Store) -> tuple[list[Order], list[PaymentMethod], list[AuditEvent]]:
    """Every order and payment method of the demo customers and this account (whichever
    of them the store holds), and every audit event: what a refusal leaves as it was."""
    orders: list[Order] = []
    methods: list[PaymentMethod] = []
    for customer_id in ALL_CUSTOMERS:
        orders.extend(await store.recent_orders(customer_id, 100))
        methods.extend(await store.payment_methods(customer_id))
    return orders, methods, await store.audit_events()


async def balance(store: Store, customer_id: str, method_id: str) -> Decimal | None:
    """The balance free to spend, as a caller hears it (a gift card's less its holds)."""
    methods = {method.method_id: method for method in await store.payment_methods(customer_id)}
    return methods[method_id].balance


async def stored_balance(store: Store, customer_id: str, method_id: str) -> Decimal | None:
    """The balance on the card's row, holds not taken off: the money that moved."""
    statement = select(PaymentMethodRow.balance_cents).where(
        PaymentMethodRow.customer_id == customer_id, PaymentMethodRow.method_id == method_id
    )
    async with store.engine.connect() as connection:
        value = (await connection.execute(statement)).scalar_one()
    return None if value is None else amount_from_cents(value)
