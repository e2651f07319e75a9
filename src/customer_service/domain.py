"""Domain records shared by the store, the specialists and the supervisor."""

from __future__ import annotations

import datetime as dt
import enum

from pydantic import BaseModel, ConfigDict, Field

from customer_service.order_numbers import ORDER_ID_PATTERN as ORDER_ID_PATTERN


class OrderStatus(enum.StrEnum):
    PROCESSING = "processing"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"

    @property
    def has_shipped(self) -> bool:
        return self in (OrderStatus.SHIPPED, OrderStatus.DELIVERED)


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


class Customer(Record):
    customer_id: str
    full_name: str
    phone: str = Field(description="E.164, for example +14155550134")
    email: str
    postal_code: str
    country: str = Field(pattern=r"^[A-Z]{2}$")


class OrderItem(Record):
    name: str
    quantity: int = Field(ge=1)


class Order(Record):
    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    customer_id: str
    status: OrderStatus
    items: tuple[OrderItem, ...]
    placed_on: dt.date
    carrier: str | None = None
    tracking_number: str | None = None
    delivered_on: dt.date | None = None
    shipping_address: PostalAddress
