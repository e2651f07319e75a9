"""The demo store's catalog and its customers' payment methods (see `seed.py`).

Every demo item is a variant of a product here, with other variants to change to; one
customer holds a gift card with a balance. Ids are ten digits like τ²-bench's, in a
range its data does not use.
"""

from __future__ import annotations

from decimal import Decimal

from customer_service.domain import PaymentKind, PaymentMethod, Product, Variant

__all__ = ["DEMO_PAYMENT_METHODS", "DEMO_PRODUCTS", "demo_variant"]


def _product(
    product_id: str, name: str, *variants: tuple[str, dict[str, str], str, bool]
) -> Product:
    return Product(
        product_id=product_id,
        name=name,
        variants=tuple(
            Variant(
                item_id=item_id,
                product_id=product_id,
                options=options,
                available=available,
                price=Decimal(price),
            )
            for item_id, options, price, available in variants
        ),
    )


DEMO_PRODUCTS: tuple[Product, ...] = (
    _product(
        "9000000100",
        "Wireless noise-cancelling headphones",
        ("9000000101", {"color": "black"}, "199.99", True),
        ("9000000102", {"color": "silver"}, "199.99", True),
        ("9000000103", {"color": "blue"}, "209.99", False),
    ),
    _product(
        "9000000200",
        "USB-C charging cable",
        ("9000000201", {"length": "1 m"}, "12.99", True),
        ("9000000202", {"length": "2 m"}, "15.99", True),
    ),
    _product(
        "9000000300",
        "Ceramic pour-over coffee set",
        ("9000000301", {"color": "white"}, "48.00", True),
        ("9000000302", {"color": "black"}, "52.00", True),
    ),
    _product(
        "9000000400",
        "Cork yoga mat",
        ("9000000401", {"thickness": "4 mm"}, "68.00", True),
        ("9000000402", {"thickness": "6 mm"}, "78.00", True),
    ),
    _product(
        "9000000500",
        "Yoga block",
        ("9000000501", {"material": "cork"}, "14.50", True),
        ("9000000502", {"material": "foam"}, "9.50", True),
    ),
    _product(
        "9000000600",
        "Stainless steel water bottle",
        ("9000000601", {"capacity": "500 ml", "color": "blue"}, "24.00", True),
        ("9000000602", {"capacity": "750 ml", "color": "blue"}, "28.00", True),
        ("9000000603", {"capacity": "500 ml", "color": "green"}, "24.00", True),
        ("9000000604", {"capacity": "750 ml", "color": "green"}, "28.00", False),
    ),
    _product(
        "9000000700",
        "Linen duvet cover",
        ("9000000701", {"size": "double"}, "120.00", True),
        ("9000000702", {"size": "king"}, "140.00", True),
    ),
    _product(
        "9000000800",
        "Feather pillow",
        ("9000000801", {"firmness": "medium"}, "35.00", True),
        ("9000000802", {"firmness": "firm"}, "35.00", True),
    ),
)


def demo_variant(item_id: str) -> Variant:
    for product in DEMO_PRODUCTS:
        variant = product.variant(item_id)
        if variant is not None:
            return variant
    raise KeyError(item_id)


DEMO_PAYMENT_METHODS: dict[str, tuple[PaymentMethod, ...]] = {
    "C-1001": (
        PaymentMethod(
            method_id="credit_card_9000101",
            kind=PaymentKind.CREDIT_CARD,
            brand="visa",
            last_four="4242",
        ),
    ),
    "C-1002": (
        PaymentMethod(method_id="paypal_9000201", kind=PaymentKind.PAYPAL),
        PaymentMethod(
            method_id="gift_card_9000202", kind=PaymentKind.GIFT_CARD, balance=Decimal("40.00")
        ),
    ),
    "C-1003": (
        PaymentMethod(
            method_id="credit_card_9000301",
            kind=PaymentKind.CREDIT_CARD,
            brand="mastercard",
            last_four="5454",
        ),
    ),
}
