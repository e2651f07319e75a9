"""What every change to an order or an account answers: the record after the change, or
the one rule that refused it. A refusal changes nothing.

Each rule is one of τ²-bench's retail rules, checked in the store's transaction so that
no model's words can skip it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, TypeVar

from customer_service.domain import Order, OrderItem, Transaction

__all__ = ["ChangeRefusal", "Changed", "Heard"]

RecordT = TypeVar("RecordT")


class ChangeRefusal(enum.StrEnum):
    # Missing or someone else's: one refusal, so the caller cannot tell which.
    ORDER_NOT_FOUND = "order_not_found"
    CUSTOMER_NOT_FOUND = "customer_not_found"
    NOT_PENDING = "not_pending"
    """Handed to the carrier, delivered or cancelled: it can no longer change."""
    ITEMS_ALREADY_CHANGED = "items_already_changed"
    """A pending order's items change once; it can then not be cancelled either."""
    NOT_DELIVERED = "not_delivered"
    """Returns and exchanges are of delivered orders, once: a second finds it not delivered."""
    NO_ITEMS = "no_items"
    ITEMS_NOT_IN_ORDER = "items_not_in_order"
    """An item id the order does not hold that many times."""
    ITEM_COUNT_DIFFERS = "item_count_differs"
    """Not one new item for each item changed."""
    SAME_ITEM = "same_item"
    """A pending order's item changed to itself."""
    NOT_THE_SAME_PRODUCT = "not_the_same_product"
    """A new item that is no variant of the item's product."""
    ITEM_UNAVAILABLE = "item_unavailable"
    PAYMENT_METHOD_NOT_FOUND = "payment_method_not_found"
    """Not one of the order's customer's methods."""
    SAME_PAYMENT_METHOD = "same_payment_method"
    NOT_ONE_PAYMENT = "not_one_payment"
    """A payment method changes only on an order paid once and never refunded."""
    GIFT_CARD_BALANCE_TOO_LOW = "gift_card_balance_too_low"
    REFUND_METHOD_NOT_ALLOWED = "refund_method_not_allowed"
    """A return is refunded to a method that holds the order's money or to a gift card."""
    CHANGED_SINCE_READ_BACK = "changed_since_read_back"
    """The order's payments or items, or the money the change moves, are no longer what
    the caller heard read back (`Heard`)."""


@dataclass(frozen=True)
class Heard:
    """What the caller heard read back before saying yes: the order's payments and
    items as they were read, and the money the read-back said the change moves (a price
    difference, a refund; None when the payments and items fix it). A write given it is
    its precondition: the write changes nothing when any of it differs now, so money
    moves only as the caller heard it."""

    payments: tuple[Transaction, ...]
    items: tuple[OrderItem, ...]
    amount: Decimal | None = None

    def holds(self, order: Order, amount: Decimal | None = None) -> bool:
        """Whether `order`, and `amount` (the money the write would move now), are still
        what was heard."""
        if self.payments != order.payments or self.items != order.items:
            return False
        return self.amount is None or self.amount == amount


@dataclass(frozen=True)
class Changed(Generic[RecordT]):
    """The outcome of a change: `record` after it, or `refusal` and nothing changed (then
    `record` is None)."""

    record: RecordT | None
    refusal: ChangeRefusal | None = None

    @classmethod
    def refused(cls, refusal: ChangeRefusal) -> Changed[RecordT]:
        return cls(record=None, refusal=refusal)

    @property
    def done(self) -> bool:
        return self.refusal is None
