"""The tables. Portable SQLAlchemy types only, so SQLite and PostgreSQL share one schema."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

__all__ = [
    "AddressChangeRow",
    "AuditEventRow",
    "Base",
    "ConsentRow",
    "CustomerRow",
    "EscalationRow",
    "OrderRow",
    "UTCDateTime",
]


class UTCDateTime(TypeDecorator[dt.datetime]):
    """A timezone-aware UTC timestamp on every backend.

    PostgreSQL keeps the offset; SQLite drops it, so values are converted to UTC before
    they are written and read back as UTC.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamps must be timezone-aware")
        return value.astimezone(dt.UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if not isinstance(value, dt.datetime):
            raise TypeError(f"expected a datetime from the database, got {type(value).__name__}")
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)


class Base(DeclarativeBase):
    pass


class CustomerRow(Base):
    __tablename__ = "customers"

    customer_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    full_name: Mapped[str] = mapped_column(String(200))
    phone: Mapped[str] = mapped_column(String(32))
    email: Mapped[str] = mapped_column(String(320))
    postal_code: Mapped[str] = mapped_column(String(16))
    # normalize_postal_code(postal_code): identity checks look callers up by what they
    # said, so the lookup is an indexed equality instead of a scan with string functions.
    postal_code_key: Mapped[str] = mapped_column(String(16), index=True)
    country: Mapped[str] = mapped_column(String(2))


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


class AuditEventRow(Base):
    __tablename__ = "audit_events"

    # SQLite only auto-increments an INTEGER primary key; PostgreSQL gets 64 bits.
    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
    )
    call_id: Mapped[str] = mapped_column(String(128), index=True)
    kind: Mapped[str] = mapped_column(String(64), index=True)
    # No foreign keys: an audit record must outlive, and may name, rows that do not exist.
    customer_id: Mapped[str | None] = mapped_column(String(32))
    order_id: Mapped[str | None] = mapped_column(String(32))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), index=True)


class AddressChangeRow(Base):
    __tablename__ = "address_changes"

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
    )
    # UNIQUE is what makes a retried or raced change apply once, whatever the backend.
    change_key: Mapped[str] = mapped_column(String(128), unique=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.order_id"), index=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.customer_id"))
    call_id: Mapped[str] = mapped_column(String(128), index=True)
    # Written once and only read whole, like an order's items; PostalAddress.model_dump().
    old_address: Mapped[dict[str, Any]] = mapped_column(JSON)
    new_address: Mapped[dict[str, Any]] = mapped_column(JSON)
    changed_at: Mapped[dt.datetime] = mapped_column(UTCDateTime())


class ConsentRow(Base):
    __tablename__ = "consents"
    __table_args__ = (
        Index("ix_consents_topic_customer_asked_at", "topic", "customer_id", "asked_at"),
        Index("ix_consents_topic_call_asked_at", "topic", "call_id", "asked_at"),
    )

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
    )
    topic: Mapped[str] = mapped_column(String(64))
    granted: Mapped[bool] = mapped_column(Boolean)
    wording_version: Mapped[str] = mapped_column(String(32))
    asked_at: Mapped[dt.datetime] = mapped_column(UTCDateTime())
    call_id: Mapped[str] = mapped_column(String(128))
    # No foreign key: consent is often asked before, or without, identity verification.
    customer_id: Mapped[str | None] = mapped_column(String(32))


class EscalationRow(Base):
    __tablename__ = "escalations"

    escalation_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    call_id: Mapped[str] = mapped_column(String(128), index=True)
    reason: Mapped[str] = mapped_column(String(500))
    verified: Mapped[bool] = mapped_column(Boolean)
    # No foreign keys, as for audit events: a hand-off may name what could not be found.
    customer_id: Mapped[str | None] = mapped_column(String(32))
    collected: Mapped[dict[str, Any]] = mapped_column(JSON)
    failed_specialist: Mapped[str | None] = mapped_column(String(64))
    failure: Mapped[str | None] = mapped_column(Text)
    summary: Mapped[str] = mapped_column(String(2000))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), index=True)
