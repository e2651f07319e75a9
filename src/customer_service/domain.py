"""Domain records shared by the store, the specialists and the supervisor.

They hold the retail domain of τ²-bench: products with variants, customers with a default
address and payment methods, and orders whose items name a variant and its price, with
their fulfilments and payment history. Money is `Decimal` to the cent.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable
from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from customer_service.order_numbers import ORDER_ID_PATTERN as ORDER_ID_PATTERN

CENT = Decimal("0.01")


def _whole_cents(value: Decimal) -> Decimal:
    if value != value.quantize(CENT):
        raise ValueError("an amount of money is a whole number of cents")
    return value.quantize(CENT)


Money = Annotated[Decimal, AfterValidator(_whole_cents)]
"""An amount in the store's currency, to the cent."""


class OrderStatus(enum.StrEnum):
    """An order's state, as τ²-bench's retail domain names them."""

    PENDING = "pending"
    PENDING_ITEMS_MODIFIED = "pending (item modified)"
    """Still pending after its items were changed: it can change no more items."""
    PROCESSED = "processed"
    """Handed to the carrier."""
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    RETURN_REQUESTED = "return requested"
    EXCHANGE_REQUESTED = "exchange requested"

    @property
    def is_pending(self) -> bool:
        """Not yet handed to the carrier: its address and payment may still change."""
        return self in (OrderStatus.PENDING, OrderStatus.PENDING_ITEMS_MODIFIED)

    @property
    def has_shipped(self) -> bool:
        return self in (
            OrderStatus.PROCESSED,
            OrderStatus.DELIVERED,
            OrderStatus.RETURN_REQUESTED,
            OrderStatus.EXCHANGE_REQUESTED,
        )

    @property
    def spoken(self) -> str:
        """How the agent says it: "order 200202 is {spoken}"."""
        return _SPOKEN_STATUS[self]


_SPOKEN_STATUS = {
    OrderStatus.PENDING: "processing",
    OrderStatus.PENDING_ITEMS_MODIFIED: "processing, with its items changed",
    OrderStatus.PROCESSED: "shipped",
    OrderStatus.DELIVERED: "delivered",
    OrderStatus.CANCELLED: "cancelled",
    OrderStatus.RETURN_REQUESTED: "delivered, with a return requested",
    OrderStatus.EXCHANGE_REQUESTED: "delivered, with an exchange requested",
}


class CancelReason(enum.StrEnum):
    """The only reasons an order is cancelled for."""

    NO_LONGER_NEEDED = "no longer needed"
    ORDERED_BY_MISTAKE = "ordered by mistake"


class Record(BaseModel):
    model_config = ConfigDict(frozen=True, from_attributes=True)


class PostalAddress(Record):
    street: str
    unit: str | None = None
    city: str
    region: str
    postal_code: str
    country: str = Field(pattern=r"^[A-Z]{2}$", description="ISO 3166-1 alpha-2")

    def one_line(self) -> str:
        street = f"{self.street}, {self.unit}" if self.unit else self.street
        return f"{street}, {self.city}, {self.region} {self.postal_code}, {self.country}"


class Variant(Record):
    """One item the store sells: a product in particular options, at a price."""

    item_id: str
    product_id: str
    options: dict[str, str]
    available: bool
    price: Money


class Product(Record):
    product_id: str
    name: str
    variants: tuple[Variant, ...]

    def variant(self, item_id: str) -> Variant | None:
        return next((v for v in self.variants if v.item_id == item_id), None)


class PaymentKind(enum.StrEnum):
    CREDIT_CARD = "credit_card"
    PAYPAL = "paypal"
    GIFT_CARD = "gift_card"


class PaymentMethod(Record):
    """One of a customer's ways to pay; a gift card carries its balance."""

    method_id: str
    kind: PaymentKind
    brand: str | None = None
    last_four: str | None = Field(default=None, pattern=r"^\d{4}$")
    balance: Money | None = None

    @model_validator(mode="after")
    def _balance_only_on_gift_cards(self) -> PaymentMethod:
        if (self.kind is PaymentKind.GIFT_CARD) != (self.balance is not None):
            raise ValueError("a gift card has a balance, and only a gift card")
        return self


class TransactionKind(enum.StrEnum):
    PAYMENT = "payment"
    REFUND = "refund"


class Transaction(Record):
    """A payment for an order or a refund of one, with the method it went through."""

    kind: TransactionKind
    amount: Money
    method_id: str


def held_by_method(payments: Iterable[Transaction]) -> dict[str, Decimal]:
    """What each method holds of an order's money now: its payments less its refunds,
    for each method that still holds some, in the order the methods first paid. A
    refund of the order goes back to these, so money moves once: after a change of
    payment method the old method holds nothing, the new one the whole amount."""
    net: dict[str, Decimal] = {}
    for transaction in payments:
        sign = 1 if transaction.kind is TransactionKind.PAYMENT else -1
        net[transaction.method_id] = (
            net.get(transaction.method_id, Decimal(0)) + sign * transaction.amount
        )
    return {method_id: amount for method_id, amount in net.items() if amount > 0}


class Fulfilment(Record):
    """One shipment: its tracking numbers and the items it carries."""

    tracking_ids: tuple[str, ...]
    item_ids: tuple[str, ...] = ()


class Customer(Record):
    customer_id: str
    full_name: str
    phone: str | None = Field(default=None, description="E.164, for example +14155550134")
    email: str
    postal_code: str
    country: str = Field(pattern=r"^[A-Z]{2}$")
    address: PostalAddress | None = None
    """The default address; its postal code and country are the account's."""

    @model_validator(mode="after")
    def _address_is_the_accounts(self) -> Customer:
        address = self.address
        if address is not None and (address.postal_code, address.country) != (
            self.postal_code,
            self.country,
        ):
            raise ValueError("the default address holds the account's postal code and country")
        return self


class OrderItem(Record):
    name: str
    quantity: int = Field(default=1, ge=1)
    product_id: str | None = None
    item_id: str | None = None
    """The variant: absent only on orders stored before the catalog existed."""
    options: dict[str, str] = Field(default_factory=dict)
    price: Money | None = None
    """The price of one, when it was ordered."""


def value_of(items: Iterable[OrderItem]) -> Decimal:
    """What `items` were bought for: each line's price times its quantity (a line stored
    before the catalog, without a price, counts nothing)."""
    return sum(((item.price or Decimal(0)) * item.quantity for item in items), Decimal(0))


class ExchangeRequest(Record):
    """Delivered items the customer sends back for other variants of the same products."""

    item_ids: tuple[str, ...]
    new_item_ids: tuple[str, ...]
    method_id: str
    """Pays the price difference, or receives it when negative."""
    price_difference: Money


class ReturnedItems(Record):
    """Delivered items the customer sends back for a refund."""

    item_ids: tuple[str, ...]
    method_id: str
    """Receives the refund."""


class Order(Record):
    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    customer_id: str
    status: OrderStatus
    items: tuple[OrderItem, ...]
    placed_on: dt.date | None = None
    """Unknown for orders imported from τ²-bench, which carry no dates."""
    carrier: str | None = None
    delivered_on: dt.date | None = None
    shipping_address: PostalAddress
    fulfilments: tuple[Fulfilment, ...] = ()
    payments: tuple[Transaction, ...] = ()
    """Payments and refunds, oldest first: the first is what the order was paid with."""
    cancel_reason: CancelReason | None = None
    exchange: ExchangeRequest | None = None
    returned: ReturnedItems | None = None

    @property
    def tracking_number(self) -> str | None:
        """The first shipment's first tracking number, if it has shipped."""
        for fulfilment in self.fulfilments:
            if fulfilment.tracking_ids:
                return fulfilment.tracking_ids[0]
        return None

    def unit_item_ids(self) -> list[str]:
        """One variant id per unit ordered, in order: what τ²-bench's item lists count."""
        return [item.item_id for item in self.items if item.item_id for _ in range(item.quantity)]
