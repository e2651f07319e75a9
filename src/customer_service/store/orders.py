"""Orders: what a verified caller may hear about, and cancelling one that has not shipped."""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Sequence
from typing import Any

from sqlalchemy import JSON, Date, ForeignKey, Index, Select, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.domain import Order, OrderItem, OrderStatus, PostalAddress
from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.tables import Base

__all__ = [
    "CancellationOutcome",
    "OrderRow",
    "OrderStore",
    "order_from_row",
    "order_to_row",
    "set_shipping_address",
]


class OrderRow(Base):
    __tablename__ = "orders"
    __table_args__ = (Index("ix_orders_customer_placed_on", "customer_id", "placed_on"),)

    order_id: Mapped[str] = mapped_column(String(6), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.customer_id"))
    status: Mapped[str] = mapped_column(String(16))
    # Items are only ever read with their order, so they need no table of their own.
    items: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    placed_on: Mapped[dt.date] = mapped_column(Date)
    carrier: Mapped[str | None] = mapped_column(String(64))
    tracking_number: Mapped[str | None] = mapped_column(String(64))
    delivered_on: Mapped[dt.date | None] = mapped_column(Date)
    # Columns rather than JSON so an address change is a plain, auditable UPDATE. Text,
    # not String(n): PostgreSQL enforces a length and SQLite ignores it, so a bound here
    # would make the backends disagree on which address changes succeed. Length limits
    # belong to the validation of what the caller said, before the store is reached.
    ship_street: Mapped[str] = mapped_column(Text)
    ship_unit: Mapped[str | None] = mapped_column(Text)
    ship_city: Mapped[str] = mapped_column(Text)
    ship_region: Mapped[str] = mapped_column(Text)
    ship_postal_code: Mapped[str] = mapped_column(Text)
    ship_country: Mapped[str] = mapped_column(String(2))


def order_to_row(order: Order) -> OrderRow:
    row = OrderRow(
        order_id=order.order_id,
        customer_id=order.customer_id,
        status=order.status.value,
        items=[item.model_dump() for item in order.items],
        placed_on=order.placed_on,
        carrier=order.carrier,
        tracking_number=order.tracking_number,
        delivered_on=order.delivered_on,
    )
    set_shipping_address(row, order.shipping_address)
    return row


def set_shipping_address(row: OrderRow, address: PostalAddress) -> None:
    row.ship_street = address.street
    row.ship_unit = address.unit
    row.ship_city = address.city
    row.ship_region = address.region
    row.ship_postal_code = address.postal_code
    row.ship_country = address.country


def order_from_row(row: OrderRow) -> Order:
    return Order(
        order_id=row.order_id,
        customer_id=row.customer_id,
        status=OrderStatus(row.status),
        items=tuple(OrderItem.model_validate(item) for item in row.items),
        placed_on=row.placed_on,
        carrier=row.carrier,
        tracking_number=row.tracking_number,
        delivered_on=row.delivered_on,
        shipping_address=PostalAddress(
            street=row.ship_street,
            unit=row.ship_unit,
            city=row.ship_city,
            region=row.ship_region,
            postal_code=row.ship_postal_code,
            country=row.ship_country,
        ),
    )


def _newest_orders(customer_id: str, limit: int) -> Select[OrderRow]:
    return (
        select(OrderRow)
        .where(OrderRow.customer_id == customer_id)
        .order_by(OrderRow.placed_on.desc(), OrderRow.order_id.desc())
        .limit(limit)
    )


class CancellationOutcome(enum.StrEnum):
    CANCELLED = "cancelled"
    # Cancelled before (by this call's retry or anyone else): nothing more to do.
    ALREADY_CANCELLED = "already_cancelled"
    # Shipped or delivered: the parcel is on its way and cannot be cancelled here.
    ORDER_SHIPPED = "order_shipped"
    # Missing or someone else's: one outcome, so the caller cannot tell which.
    ORDER_NOT_FOUND = "order_not_found"


class OrderStore(StoreCore):
    """The `Store` methods that read orders and cancel them."""

    async def get_order(self, order_id: str) -> Order | None:
        """The order, whoever owns it: the caller's ownership check is policy, not storage."""
        async with self._session("read an order") as session:
            row = await session.get(OrderRow, order_id)
            return None if row is None else order_from_row(row)

    async def read_order_for_disclosure(
        self,
        order_id: str,
        customer_id: str,
        disclosure: AuditEvent,
        other_events: Sequence[AuditEvent] = (),
    ) -> Order | None:
        """`customer_id`'s order `order_id`, read in the transaction that records its
        `disclosure`: one round trip for what a caller asking about an order waits for.

        None when the order does not exist or is someone else's; the disclosure is then
        not stored. `other_events` are stored either way.
        """
        async with self._write_session("read an order") as session:
            row = await session.get(OrderRow, order_id)
            if row is None or row.customer_id != customer_id:
                session.add_all(event_to_row(event) for event in other_events)
                return None
            session.add_all(event_to_row(event) for event in [*other_events, disclosure])
            return order_from_row(row)

    async def recent_orders(self, customer_id: str, limit: int) -> list[Order]:
        """The customer's `limit` newest orders: latest `placed_on` first, then order number."""
        if limit < 1:
            return []
        async with self._session("read recent orders") as session:
            rows = await session.scalars(_newest_orders(customer_id, limit))
            return [order_from_row(row) for row in rows]

    async def read_recent_orders_for_disclosure(
        self,
        customer_id: str,
        limit: int,
        disclosure: AuditEvent,
        other_events: Sequence[AuditEvent] = (),
    ) -> list[Order]:
        """The customer's `limit` newest orders, as `recent_orders`, read in the
        transaction that records their disclosure: `disclosure` once per order, naming it
        (`AuditEvent.about`). `other_events` are stored either way."""
        async with self._write_session("read recent orders") as session:
            # LIMIT 0 reads nothing; a negative LIMIT would read everything on SQLite.
            rows = await session.scalars(_newest_orders(customer_id, max(limit, 0)))
            orders = [order_from_row(row) for row in rows]
            disclosures = [disclosure.about(order.order_id) for order in orders]
            session.add_all(event_to_row(event) for event in [*other_events, *disclosures])
            return orders

    async def cancel_order(
        self,
        *,
        order_id: str,
        customer_id: str,
        call_id: str,
        other_events: Sequence[AuditEvent] = (),
    ) -> CancellationOutcome:
        """Cancels `customer_id`'s order `order_id` if it is still being processed.

        One transaction reads the order under the write lock, sets it cancelled and
        records an `order_cancelled` audit event; both are written or neither. Calling
        it again is harmless: an order already cancelled is ALREADY_CANCELLED and
        nothing is written. `other_events` (audit events kept for the call's next write)
        are written in the same transaction, whatever the outcome. Raises
        `StoreUnavailable` on a database failure.
        """
        statement = select(OrderRow).where(OrderRow.order_id == order_id).with_for_update()
        async with self._write_session("cancel an order") as session:
            session.add_all(event_to_row(kept) for kept in other_events)
            row = await session.scalar(statement)
            if row is None or row.customer_id != customer_id:
                return CancellationOutcome.ORDER_NOT_FOUND
            status = OrderStatus(row.status)
            if status is OrderStatus.CANCELLED:
                return CancellationOutcome.ALREADY_CANCELLED
            if status is not OrderStatus.PROCESSING:
                return CancellationOutcome.ORDER_SHIPPED
            row.status = OrderStatus.CANCELLED.value
            event = AuditEvent(
                call_id=call_id,
                kind="order_cancelled",
                customer_id=customer_id,
                order_id=order_id,
                detail={"items": len(row.items)},
            )
            session.add(event_to_row(event))
            return CancellationOutcome.CANCELLED
