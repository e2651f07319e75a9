"""The demo data every fresh store starts with (the table in ARCHITECTURE.md and README)."""

from __future__ import annotations

import datetime as dt

from customer_service.domain import Customer, Order, OrderItem, OrderStatus, PostalAddress

__all__ = ["DEMO_CUSTOMERS", "DEMO_ORDERS"]

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
    ),
    Customer(
        customer_id="C-1002",
        full_name="Priya Natarajan",
        phone="+12125550188",
        email="priya.n@example.com",
        postal_code="10001",
        country="US",
    ),
    Customer(
        customer_id="C-1003",
        full_name="María García",
        phone="+34911234567",
        email="maria.garcia@example.es",
        postal_code="28013",
        country="ES",
    ),
)

# Order numbers grow with placed_on, so "newest first" reads the same either way.
DEMO_ORDERS: tuple[Order, ...] = (
    Order(
        order_id="100101",
        customer_id="C-1001",
        status=OrderStatus.SHIPPED,
        items=(
            OrderItem(name="Wireless noise-cancelling headphones", quantity=1),
            OrderItem(name="USB-C charging cable", quantity=2),
        ),
        placed_on=dt.date(2026, 11, 2),
        carrier="UPS",
        tracking_number="1Z999AA10123456784",
        shipping_address=_JORDAN_ADDRESS,
    ),
    Order(
        order_id="100102",
        customer_id="C-1001",
        status=OrderStatus.PROCESSING,
        items=(OrderItem(name="Ceramic pour-over coffee set", quantity=1),),
        placed_on=dt.date(2026, 11, 4),
        shipping_address=_JORDAN_ADDRESS,
    ),
    Order(
        order_id="200201",
        customer_id="C-1002",
        status=OrderStatus.DELIVERED,
        items=(
            OrderItem(name="Cork yoga mat", quantity=1),
            OrderItem(name="Yoga block", quantity=2),
        ),
        placed_on=dt.date(2026, 11, 5),
        delivered_on=dt.date(2026, 11, 9),
        shipping_address=_PRIYA_ADDRESS,
    ),
    Order(
        order_id="200202",
        customer_id="C-1002",
        status=OrderStatus.PROCESSING,
        items=(OrderItem(name="Stainless steel water bottle", quantity=3),),
        placed_on=dt.date(2026, 11, 16),
        shipping_address=_PRIYA_ADDRESS,
    ),
    Order(
        order_id="300301",
        customer_id="C-1003",
        status=OrderStatus.PROCESSING,
        items=(
            OrderItem(name="Linen duvet cover, double", quantity=1),
            OrderItem(name="Feather pillow", quantity=2),
        ),
        placed_on=dt.date(2026, 11, 18),
        shipping_address=_MARIA_ADDRESS,
    ),
)
