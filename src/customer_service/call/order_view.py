"""One of the verified caller's orders as the call may speak of it: what the order lookup
finds (its result), what the supervisor lends every order-bound specialist
(`Desk.callers_order`), and what they read back and check."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field

from customer_service.addresses import read_back as address_read_back
from customer_service.call.speakable import (
    placed_on_phrase,
    spaced_digits,
    spoken_date,
    spoken_items,
)
from customer_service.call.wording import quoted
from customer_service.domain import (
    ORDER_ID_PATTERN,
    Order,
    OrderItem,
    OrderStatus,
    PostalAddress,
    Transaction,
)
from customer_service.order_numbers import spoken_order_id

__all__ = ["OrderLookupResult"]


class OrderLookupResult(BaseModel):
    """What the caller may hear about one of their orders."""

    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    customer_id: str
    status: OrderStatus
    items: tuple[OrderItem, ...] = Field(min_length=1)
    placed_on: dt.date | None = None
    carrier: str | None = None
    tracking_number: str | None = None
    delivered_on: dt.date | None = None
    shipping_address: PostalAddress
    payments: tuple[Transaction, ...] = ()
    """Payments and refunds, oldest first (`Order.payments`): what a specialist that
    moves money says is refunded, and where."""

    @classmethod
    def from_order(cls, order: Order) -> OrderLookupResult:
        return cls.model_validate(order.model_dump() | {"tracking_number": order.tracking_number})

    def summary(self) -> str:
        """What the caller may hear about the order, for the model to relay: stored text
        (items, carrier, address) in quotes, as data."""
        if self.status is OrderStatus.PROCESSED:
            # An order can have shipped with no carrier or tracking number on record
            # (τ²-bench's orders have no carrier): say only what is on record.
            progress = "has shipped"
            if self.carrier:
                progress += f" with {quoted(self.carrier)}"
            if self.tracking_number:
                progress += f", tracking number {spaced_digits(self.tracking_number)}"
        elif self.status is OrderStatus.DELIVERED and self.delivered_on is not None:
            progress = f"was delivered on {spoken_date(self.delivered_on)}"
        else:
            progress = f"is {self.status.spoken}"
        return (
            f"Order {spoken_order_id(self.order_id)}{placed_on_phrase(self.placed_on)}, "
            f"{progress}. It contains {spoken_items(self.items, quoted)}, going to "
            f"{quoted(address_read_back(self.shipping_address))}."
        )
