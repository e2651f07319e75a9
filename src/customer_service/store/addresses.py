"""Shipping address changes: the store's most safety-critical write."""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import JSON, ForeignKey, String, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.domain import OrderStatus, PostalAddress
from customer_service.privacy import mask_address
from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.errors import StoreUnavailable
from customer_service.store.orders import (
    lock_owned_order,
    order_from_row,
    set_shipping_address,
)
from customer_service.store.tables import (
    Base,
    UTCDateTime,
    UTCTimestamp,
    record_from_row,
    row_from_record,
    serial_id,
)

__all__ = ["AddressChange", "AddressChangeOutcome", "AddressChangeRow", "AddressChangeStore"]


class AddressChangeOutcome(enum.StrEnum):
    CHANGED = "changed"
    # The change was made before (same change key), or the order already ships there.
    ALREADY_APPLIED = "already_applied"
    # Handed to the carrier, delivered, or being returned or exchanged: the parcel's
    # address can no longer be changed here.
    ORDER_SHIPPED = "order_shipped"
    # Cancelled: there is no delivery left to change.
    ORDER_CANCELLED = "order_cancelled"
    # Missing or someone else's: one outcome, so the caller cannot tell which.
    ORDER_NOT_FOUND = "order_not_found"


class AddressChange(BaseModel):
    """One change of an order's shipping address, with the full old and new address."""

    model_config = ConfigDict(frozen=True)

    change_key: str = Field(
        min_length=1,
        max_length=128,
        description="Chosen by the caller; a change with a key already used is not made again.",
    )
    order_id: str = Field(min_length=1, max_length=32)
    customer_id: str = Field(min_length=1, max_length=32)
    call_id: str = Field(min_length=1, max_length=128)
    old_address: PostalAddress
    new_address: PostalAddress
    changed_at: UTCTimestamp


class AddressChangeRow(Base):
    __tablename__ = "address_changes"

    id: Mapped[int] = serial_id()
    # UNIQUE is what makes a retried or raced change apply once, whatever the backend.
    change_key: Mapped[str] = mapped_column(String(128), unique=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.order_id"), index=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.customer_id"))
    call_id: Mapped[str] = mapped_column(String(128), index=True)
    # Written once and only read whole, like an order's items; PostalAddress.model_dump().
    old_address: Mapped[dict[str, Any]] = mapped_column(JSON)
    new_address: Mapped[dict[str, Any]] = mapped_column(JSON)
    changed_at: Mapped[dt.datetime] = mapped_column(UTCDateTime())


_CHANGE = "change a shipping address"


class _ChangeKeyTaken(Exception):
    """Another transaction recorded this change key between our check and our insert."""


class AddressChangeStore(StoreCore):
    """The `Store` methods that change shipping addresses and read the changes back."""

    async def change_shipping_address(
        self,
        *,
        order_id: str,
        customer_id: str,
        new_address: PostalAddress,
        call_id: str,
        change_key: str,
        other_events: Sequence[AuditEvent] = (),
    ) -> tuple[AddressChangeOutcome, AddressChange | None]:
        """Ships `customer_id`'s order `order_id` to `new_address`, once per `change_key`.

        One transaction updates the order and records the change (full old and new
        address) and an audit event (masked); all are written or none. The change
        returned with CHANGED is the one recorded. ALREADY_APPLIED comes with the change
        recorded under `change_key`, or with None when the order already ships to
        `new_address`; nothing is written then, nor for ORDER_SHIPPED, ORDER_CANCELLED
        or ORDER_NOT_FOUND. Only a pending order (its items changed or not) changes
        address. The order's status is read inside the write transaction, so an order
        that shipped or was cancelled while the caller spoke is refused.

        A retry keeps its answer: a key already recorded for this order is
        ALREADY_APPLIED even once the order has shipped. Raises ValueError when
        `change_key` was recorded for another order or customer (a caller's bug: keys
        must identify one change), and `StoreUnavailable` on a database failure.
        `other_events` (audit events kept for the call's next write) are written in the
        same transaction, whatever the outcome.
        """
        try:
            return await self._apply_address_change(
                order_id=order_id,
                customer_id=customer_id,
                new_address=new_address,
                call_id=call_id,
                change_key=change_key,
                other_events=other_events,
            )
        except _ChangeKeyTaken as taken:
            conflict = taken.__cause__
        # Lost a race for the same key; the winner's change is the answer.
        async with self._write_session(_CHANGE) as session:
            session.add_all(event_to_row(kept) for kept in other_events)
            recorded = await _change_with_key(session, change_key)
        if recorded is None:
            # The constraint that failed was not the change key's after all.
            raise StoreUnavailable(f"The store could not {_CHANGE}.") from conflict
        _check_key_owner(recorded, order_id=order_id, customer_id=customer_id)
        return AddressChangeOutcome.ALREADY_APPLIED, recorded

    async def address_changes(
        self, *, order_id: str | None = None, call_id: str | None = None
    ) -> list[AddressChange]:
        """Recorded address changes, oldest first, optionally one order's and/or one call's."""
        statement = select(AddressChangeRow).order_by(
            AddressChangeRow.changed_at, AddressChangeRow.id
        )
        if order_id is not None:
            statement = statement.where(AddressChangeRow.order_id == order_id)
        if call_id is not None:
            statement = statement.where(AddressChangeRow.call_id == call_id)
        async with self._session("read address changes") as session:
            rows = await session.scalars(statement)
            return [record_from_row(row, AddressChange) for row in rows]

    async def _apply_address_change(
        self,
        *,
        order_id: str,
        customer_id: str,
        new_address: PostalAddress,
        call_id: str,
        change_key: str,
        other_events: Sequence[AuditEvent],
    ) -> tuple[AddressChangeOutcome, AddressChange | None]:
        async with self._write_session(_CHANGE) as session:
            session.add_all(event_to_row(kept) for kept in other_events)
            row = await lock_owned_order(session, order_id, customer_id)
            if row is None:
                return AddressChangeOutcome.ORDER_NOT_FOUND, None
            recorded = await _change_with_key(session, change_key)
            if recorded is not None:
                _check_key_owner(recorded, order_id=order_id, customer_id=customer_id)
                return AddressChangeOutcome.ALREADY_APPLIED, recorded
            order = order_from_row(row)
            if order.status is OrderStatus.CANCELLED:
                return AddressChangeOutcome.ORDER_CANCELLED, None
            if not order.status.is_pending:
                return AddressChangeOutcome.ORDER_SHIPPED, None
            if order.shipping_address == new_address:
                return AddressChangeOutcome.ALREADY_APPLIED, None

            change = AddressChange(
                change_key=change_key,
                order_id=order_id,
                customer_id=customer_id,
                call_id=call_id,
                old_address=order.shipping_address,
                new_address=new_address,
                changed_at=self.clock.now(),
            )
            set_shipping_address(row, new_address)
            session.add(row_from_record(change, AddressChangeRow))
            session.add(event_to_row(_audit_event(change)))
            try:
                await session.flush()
            except IntegrityError as exc:
                raise _ChangeKeyTaken from exc
            return AddressChangeOutcome.CHANGED, change


async def _change_with_key(session: AsyncSession, change_key: str) -> AddressChange | None:
    statement = select(AddressChangeRow).where(AddressChangeRow.change_key == change_key)
    row = await session.scalar(statement)
    return None if row is None else record_from_row(row, AddressChange)


def _check_key_owner(recorded: AddressChange, *, order_id: str, customer_id: str) -> None:
    # Returning that change would disclose another order's (maybe another customer's)
    # address, and reporting it as applied would be false.
    if (recorded.order_id, recorded.customer_id) != (order_id, customer_id):
        raise ValueError("change_key was already used for a different order")


def _audit_event(change: AddressChange) -> AuditEvent:
    return AuditEvent(
        call_id=change.call_id,
        kind="address_changed",
        customer_id=change.customer_id,
        order_id=change.order_id,
        detail={
            "old_address": mask_address(change.old_address.one_line()),
            "new_address": mask_address(change.new_address.one_line()),
        },
        created_at=change.changed_at,
    )
