"""What the agent says about an order holds only what the store holds: two items of one
product are told apart by the options that differ, and a shipped order with no carrier
on record (τ²-bench's) is said without an empty carrier."""

from __future__ import annotations

from customer_service.call.order_view import OrderLookupResult
from customer_service.call.speakable import spoken_items
from customer_service.domain import OrderItem, OrderStatus, PostalAddress

ADDRESS = PostalAddress(
    street="1 Main St", city="Austin", region="TX", postal_code="78701", country="US"
)
GLASS = OrderItem(name="Tea Kettle", options={"material": "glass", "capacity": "1 liter"})
CERAMIC = OrderItem(name="Tea Kettle", options={"material": "ceramic", "capacity": "1 liter"})
MAT = OrderItem(name="Yoga Mat", options={"color": "blue"})


def test_two_items_of_one_product_are_told_apart_by_what_differs() -> None:
    assert spoken_items([GLASS, MAT, CERAMIC]) == (
        "a Tea Kettle with material glass, a Yoga Mat and a Tea Kettle with material ceramic"
    )


def test_items_of_different_products_are_named_alone() -> None:
    assert spoken_items([GLASS, MAT]) == "a Tea Kettle and a Yoga Mat"


def _shipped(carrier: str | None, tracking: str | None) -> str:
    return OrderLookupResult(
        order_id="#W1234567",
        customer_id="c",
        status=OrderStatus.PROCESSED,
        items=(MAT,),
        carrier=carrier,
        tracking_number=tracking,
        shipping_address=ADDRESS,
    ).summary()


def test_a_shipped_order_without_a_carrier_says_no_empty_carrier() -> None:
    said = _shipped(None, "715911584249")
    assert "has shipped, tracking number 7 1 5, 9 1 1, 5 8 4, 2 4 9." in said
    assert "with" not in said.split(".")[0]


def test_a_shipped_order_with_a_carrier_names_it() -> None:
    assert 'has shipped with "UPS", tracking number 1 2 3' in _shipped("UPS", "123")


def test_a_shipped_order_with_neither_says_only_that_it_shipped() -> None:
    assert "has shipped. It contains" in _shipped(None, None)
