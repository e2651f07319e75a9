"""Return requests: a verified caller's request to send back items of a delivered order.

A request records which of the order's items go back (their positions in the order)
and a reason category chosen by the specialist from what the caller said; the caller's
own words are never stored. The caller is given a return number to write down. The order
becomes "return requested", naming the items that go back and the payment method the
refund goes to: one that holds at least the refund of the order's money now (its
payments less its refunds, `held_by_method`), or a gift card of the customer's.
"""

from __future__ import annotations

import datetime as dt
import enum
import secrets
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import JSON, ForeignKey, Integer, String, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.domain import (
    ORDER_ID_PATTERN,
    Order,
    OrderStatus,
    PaymentKind,
    ReturnedItems,
    held_by_method,
    value_of,
)
from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.errors import StoreUnavailable
from customer_service.store.order_changes import Heard
from customer_service.store.orders import (
    lock_owned_order,
    order_from_row,
    set_order_fields,
)
from customer_service.store.payments import lock_payment_methods
from customer_service.store.tables import Base, UTCDateTime, UTCTimestamp, serial_id

__all__ = [
    "RETURN_NUMBER_DIGITS",
    "RETURN_WINDOW_DAYS",
    "ReturnOutcome",
    "ReturnReason",
    "ReturnRequest",
    "ReturnRequestRow",
    "ReturnRequestStore",
    "last_return_day",
    "new_return_number",
    "return_refusal",
]

RETURN_WINDOW_DAYS = 30
"""A delivered order may be returned up to and including this many days after delivery.
An order with no delivery date (τ²-bench's carry no dates) has no window."""

RETURN_NUMBER_DIGITS = 8
"""Digits only, so it is read and keyed in like an order number, and longer than one (6)
so neither is taken for the other. Drawn at random: a sequential number would tell a
caller how many returns exist and which numbers are others'."""

_NUMBER_ATTEMPTS = 5
"""Transactions tried, each with a new draw, while the drawn return number is taken,
before the write is given up: at a million stored requests one draw in 90 is taken,
five in a row about one request in six billion."""


class ReturnReason(enum.StrEnum):
    """Why the items go back, as a category: the caller's words are not kept."""

    DAMAGED = "damaged"
    DEFECTIVE = "defective"
    """Stopped working, or never worked: a fault, not damage in transit."""
    WRONG_ITEM = "wrong_item"
    NOT_AS_DESCRIBED = "not_as_described"
    NO_LONGER_NEEDED = "no_longer_needed"
    OTHER = "other"


class ReturnOutcome(enum.StrEnum):
    REQUESTED = "requested"
    # One request per order: a retry, another call or other items of it alike.
    ALREADY_REQUESTED = "already_requested"
    NOT_DELIVERED = "not_delivered"
    # Delivered more than RETURN_WINDOW_DAYS days before the day of the request.
    OUTSIDE_WINDOW = "outside_window"
    # A position that is not one of the order's items.
    ITEMS_NOT_IN_ORDER = "items_not_in_order"
    # Neither a method that holds the refund of the order's money nor a gift card.
    REFUND_METHOD_NOT_ALLOWED = "refund_method_not_allowed"
    # The order's payments or items, or the refund, are not what the caller heard.
    CHANGED_SINCE_READ_BACK = "changed_since_read_back"
    # Missing or someone else's: one outcome, so the caller cannot tell which.
    ORDER_NOT_FOUND = "order_not_found"


class ReturnRequest(BaseModel):
    """One stored return request."""

    model_config = ConfigDict(frozen=True)

    return_number: str = Field(pattern=rf"^[1-9]\d{{{RETURN_NUMBER_DIGITS - 1}}}$")
    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    customer_id: str = Field(min_length=1, max_length=32)
    item_indices: tuple[int, ...] = Field(
        min_length=1, description="Positions in the order's items, from 0, ascending."
    )
    reason: ReturnReason
    call_id: str = Field(min_length=1, max_length=128)
    created_at: UTCTimestamp


class ReturnRequestRow(Base):
    __tablename__ = "return_requests"

    id: Mapped[int] = serial_id()
    return_number: Mapped[str] = mapped_column(String(RETURN_NUMBER_DIGITS), unique=True)
    # UNIQUE: one request per order, however many calls ask at once.
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.order_id"), unique=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.customer_id"), index=True)
    # Item lines, as the audit event counts them; read without opening the JSON.
    item_count: Mapped[int] = mapped_column(Integer)
    item_indices: Mapped[list[int]] = mapped_column(JSON)
    reason: Mapped[str] = mapped_column(String(32))
    call_id: Mapped[str] = mapped_column(String(128), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime())


def last_return_day(delivered_on: dt.date) -> dt.date:
    return delivered_on + dt.timedelta(days=RETURN_WINDOW_DAYS)


class Delivery(Protocol):
    """What the window rule reads of an order (an `Order` or what a lookup returned)."""

    @property
    def status(self) -> OrderStatus: ...

    @property
    def delivered_on(self) -> dt.date | None: ...


def return_refusal(order: Delivery, today: dt.date) -> ReturnOutcome | None:
    """Why `order` cannot be returned on `today` (NOT_DELIVERED, OUTSIDE_WINDOW), or None
    when it can. Ownership is not checked here: that is the store's, in its transaction."""
    if order.status is not OrderStatus.DELIVERED:
        return ReturnOutcome.NOT_DELIVERED
    if order.delivered_on is not None and today > last_return_day(order.delivered_on):
        return ReturnOutcome.OUTSIDE_WINDOW
    return None


def new_return_number() -> str:
    low = 10 ** (RETURN_NUMBER_DIGITS - 1)
    return str(low + secrets.randbelow(9 * low))


class _NumberOrOrderTaken(Exception):
    """Another transaction stored this return number, or a request for this order,
    between our check and our insert."""


class ReturnRequestStore(StoreCore):
    """The `Store` methods that record return requests and read them back."""

    async def request_return(
        self,
        *,
        order_id: str,
        customer_id: str,
        item_indices: Sequence[int],
        reason: ReturnReason,
        call_id: str,
        refund_method_id: str | None = None,
        heard: Heard | None = None,
        now: dt.datetime | None = None,
        other_events: Sequence[AuditEvent] = (),
    ) -> tuple[ReturnOutcome, ReturnRequest | None]:
        """Records `customer_id`'s request to return the items at `item_indices` (positions
        in the order's items, from 0) of their order `order_id`, with a new return number,
        refunded to `refund_method_id`: a method that holds at least the refund (what the
        returned items were bought for) of the order's money now (None: the first that
        does) or a gift card of the customer's, else REFUND_METHOD_NOT_ALLOWED. Given
        `heard` (what the caller heard read back: the order's payments and items and the
        refund), an order or refund that differs from it now is CHANGED_SINCE_READ_BACK.

        One transaction reads the order under the write lock, checks it (`return_refusal`
        on the date of `now`, by default the store clock's now), and writes the request,
        the order (status "return requested", `returned`: one item id per unit of the
        returned lines, and the refund's method) and a `return_requested` audit event
        holding counts, the reason category, the refund and the method's id only; all are written or
        none. The request returned with REQUESTED is the
        one stored. ALREADY_REQUESTED comes with the order's existing request (the
        caller's own order, so its number may be told again); nothing is written then,
        nor for any other outcome. `other_events` (audit events kept for the call's next
        write) are written in the same transaction, whatever the outcome.

        Raises ValueError when `item_indices` is empty or repeats a position (the
        specialist's bug), and `StoreUnavailable` on a database failure.
        """
        now = now or self.clock.now()
        indices = tuple(sorted(set(item_indices)))
        if not indices or len(indices) != len(item_indices):
            raise ValueError("item_indices must name each returned item once")
        for attempt in range(1, _NUMBER_ATTEMPTS + 1):
            try:
                return await self._record_return(
                    order_id=order_id,
                    customer_id=customer_id,
                    item_indices=indices,
                    reason=reason,
                    call_id=call_id,
                    refund_method_id=refund_method_id,
                    heard=heard,
                    now=now,
                    other_events=other_events,
                )
            except _NumberOrOrderTaken as taken:
                # The next attempt finds the other request for this order, if that was it.
                if attempt == _NUMBER_ATTEMPTS:
                    raise StoreUnavailable("The store could not request a return.") from (
                        taken.__cause__
                    )
        raise AssertionError("unreachable")

    async def return_requests(
        self, *, order_id: str | None = None, customer_id: str | None = None
    ) -> list[ReturnRequest]:
        """Stored return requests, oldest first, optionally one order's and/or one customer's."""
        statement = select(ReturnRequestRow).order_by(
            ReturnRequestRow.created_at, ReturnRequestRow.id
        )
        if order_id is not None:
            statement = statement.where(ReturnRequestRow.order_id == order_id)
        if customer_id is not None:
            statement = statement.where(ReturnRequestRow.customer_id == customer_id)
        async with self._session("read return requests") as session:
            return [_request_from_row(row) for row in await session.scalars(statement)]

    async def _record_return(
        self,
        *,
        order_id: str,
        customer_id: str,
        item_indices: tuple[int, ...],
        reason: ReturnReason,
        call_id: str,
        refund_method_id: str | None,
        heard: Heard | None,
        now: dt.datetime,
        other_events: Sequence[AuditEvent],
    ) -> tuple[ReturnOutcome, ReturnRequest | None]:
        async with self._write_session("request a return") as session:
            session.add_all(event_to_row(kept) for kept in other_events)
            row = await lock_owned_order(session, order_id, customer_id)
            if row is None:
                return ReturnOutcome.ORDER_NOT_FOUND, None
            existing = await _request_for_order(session, order_id)
            if existing is not None:
                return ReturnOutcome.ALREADY_REQUESTED, existing
            order = order_from_row(row)
            refusal = return_refusal(order, now.date())
            if refusal is not None:
                return refusal, None
            # Checked here, not by indexing: a negative position would count from the end.
            if item_indices[-1] >= len(order.items) or item_indices[0] < 0:
                return ReturnOutcome.ITEMS_NOT_IN_ORDER, None
            lines = [order.items[index] for index in item_indices]
            refund = value_of(lines)
            if heard is not None and not heard.holds(order, refund):
                return ReturnOutcome.CHANGED_SINCE_READ_BACK, None
            method_id = await _refund_method(session, order, refund_method_id, refund)
            if method_id is None:
                return ReturnOutcome.REFUND_METHOD_NOT_ALLOWED, None

            request = ReturnRequest(
                return_number=new_return_number(),
                order_id=order_id,
                customer_id=customer_id,
                item_indices=item_indices,
                reason=reason,
                call_id=call_id,
                created_at=now,
            )
            # One id per unit, as τ²-bench lists an order's items.
            unit_ids = [
                line.item_id for line in lines if line.item_id for _ in range(line.quantity)
            ]
            returned = ReturnedItems(item_ids=tuple(sorted(unit_ids)), method_id=method_id)
            set_order_fields(
                row,
                order.model_copy(
                    update={"status": OrderStatus.RETURN_REQUESTED, "returned": returned}
                ),
            )
            session.add(_request_to_row(request))
            session.add(event_to_row(_audit_event(request, method_id, refund)))
            try:
                await session.flush()
            except IntegrityError as exc:
                raise _NumberOrOrderTaken from exc
            return ReturnOutcome.REQUESTED, request


async def _refund_method(
    session: AsyncSession, order: Order, refund_method_id: str | None, refund: Decimal
) -> str | None:
    """The method `order`'s refund of `refund` goes to, if it may: a method of the
    customer's that holds at least that much of the order's money now, or a gift card
    of theirs."""
    holding = [method for method, held in held_by_method(order.payments).items() if held >= refund]
    method_id = refund_method_id or next(iter(holding), None)
    if method_id is None:
        return None
    methods = await lock_payment_methods(session, order.customer_id, [method_id])
    method = methods.get(method_id)
    if method is None:
        return None
    if method_id not in holding and method.kind != PaymentKind.GIFT_CARD.value:
        return None
    return method_id


async def _request_for_order(session: AsyncSession, order_id: str) -> ReturnRequest | None:
    statement = select(ReturnRequestRow).where(ReturnRequestRow.order_id == order_id)
    row = await session.scalar(statement)
    return None if row is None else _request_from_row(row)


def _request_to_row(request: ReturnRequest) -> ReturnRequestRow:
    fields: dict[str, Any] = request.model_dump()
    fields["item_indices"] = list(request.item_indices)
    return ReturnRequestRow(**fields, item_count=len(request.item_indices))


def _request_from_row(row: ReturnRequestRow) -> ReturnRequest:
    return ReturnRequest(
        return_number=row.return_number,
        order_id=row.order_id,
        customer_id=row.customer_id,
        item_indices=tuple(row.item_indices),
        reason=ReturnReason(row.reason),
        call_id=row.call_id,
        created_at=row.created_at,
    )


def _audit_event(request: ReturnRequest, refund_method_id: str, refund: Decimal) -> AuditEvent:
    # Counts, the category and an id only: what the caller said stays out of the record.
    return AuditEvent(
        call_id=request.call_id,
        kind="return_requested",
        customer_id=request.customer_id,
        order_id=request.order_id,
        detail={
            "items": len(request.item_indices),
            "reason": request.reason.value,
            "refund_method_id": refund_method_id,
            "refund": str(refund),
        },
        created_at=request.created_at,
    )
