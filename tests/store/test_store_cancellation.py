"""`Store.cancel_order`: once, with its audit event and its refunds, and only the owner's
pending order whose items were not changed."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Connection

from customer_service.domain import (
    CancelReason,
    OrderStatus,
    PostalAddress,
    Transaction,
    TransactionKind,
)
from customer_service.store import (
    AddressChangeOutcome,
    AuditEvent,
    CancellationOutcome,
    Store,
    StoreUnavailable,
)
from customer_service.testing import open_demo_store
from support.demo_addresses import JORDAN_ADDRESS
from support.faults import fail_writes
from support.store_records import customer_records, save_orders, stored_order

STATUSES = {
    "100101": OrderStatus.PROCESSED,
    "100102": OrderStatus.PENDING,
    "200201": OrderStatus.DELIVERED,
    "200202": OrderStatus.PENDING,
    "300301": OrderStatus.PENDING,
}
"""Every demo order's status as seeded."""


async def _cancel(
    store: Store,
    *,
    order_id: str = "100102",
    customer_id: str = "C-1001",
    call_id: str = "call-1",
) -> CancellationOutcome:
    outcome, _ = await store.cancel_order(
        order_id=order_id,
        customer_id=customer_id,
        reason=CancelReason.NO_LONGER_NEEDED,
        call_id=call_id,
    )
    return outcome


async def _statuses(store: Store) -> dict[str, OrderStatus]:
    statuses = {}
    for order_id in STATUSES:
        order = await store.get_order(order_id)
        assert order is not None
        statuses[order_id] = order.status
    return statuses


async def _assert_nothing_written(store: Store) -> None:
    assert await _statuses(store) == STATUSES
    assert await store.audit_events() == []


async def test_cancel_sets_the_order_cancelled_with_one_audit_event(store: Store) -> None:
    before = dt.datetime.now(dt.UTC)

    assert await _cancel(store) is CancellationOutcome.CANCELLED

    # Only that order changed, the same customer's others included.
    assert await _statuses(store) == {**STATUSES, "100102": OrderStatus.CANCELLED}
    [recorded] = await store.audit_events()
    assert recorded == AuditEvent(
        call_id="call-1",
        kind="order_cancelled",
        customer_id="C-1001",
        order_id="100102",
        detail={"items": 1, "reason": "no longer needed", "refunds": 1, "refunded": "48.00"},
        created_at=recorded.created_at,
    )
    assert before <= recorded.created_at <= dt.datetime.now(dt.UTC)
    order = await store.get_order("100102")
    assert order is not None
    # Nothing but the status changes: the items and the address stay for the record.
    assert order.shipping_address == JORDAN_ADDRESS
    assert [item.name for item in order.items] == ["Ceramic pour-over coffee set"]


async def test_audit_event_counts_item_lines(store: Store) -> None:
    assert await _cancel(store, order_id="300301", customer_id="C-1003") is (
        CancellationOutcome.CANCELLED
    )
    [recorded] = await store.audit_events(kind="order_cancelled")
    assert (recorded.customer_id, recorded.order_id, recorded.detail["items"]) == (
        "C-1003",
        "300301",
        2,
    )


@contextmanager
def failing_second_write(store: Store) -> Iterator[list[str]]:
    """Fails the second INSERT or UPDATE; yields the writes attempted meanwhile."""
    writes: list[str] = []

    def fail(connection: Connection, cursor: Any, statement: str, *args: Any) -> None:
        words = statement.split()
        if words[0].upper() in ("INSERT", "UPDATE"):
            writes.append(" ".join(words[:3]).upper())
            if len(writes) == 2:
                raise connection.dialect.loaded_dbapi.OperationalError("disk I/O error")

    engine = store.engine.sync_engine
    event.listen(engine, "before_cursor_execute", fail)
    try:
        yield writes
    finally:
        event.remove(engine, "before_cursor_execute", fail)


async def test_status_and_audit_event_are_one_transaction(store: Store) -> None:
    with failing_second_write(store) as writes, pytest.raises(StoreUnavailable) as raised:
        await _cancel(store)

    assert str(raised.value) == "The store could not cancel an order."
    # One of the two writes had run when the other failed; it was rolled back with it.
    assert sorted(writes) == ["INSERT INTO AUDIT_EVENTS", "UPDATE ORDERS SET"]
    await _assert_nothing_written(store)
    # Nothing was used up: the cancellation can still be made, once.
    assert await _cancel(store) is CancellationOutcome.CANCELLED
    assert len(await store.audit_events(kind="order_cancelled")) == 1


async def test_write_failure_is_unavailable_and_writes_nothing(store: Store) -> None:
    undo = fail_writes(store)
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await _cancel(store)
    finally:
        undo()

    assert "database is locked" in str(raised.value.__cause__)
    await _assert_nothing_written(store)


async def test_cancelling_again_is_already_cancelled_and_writes_nothing(store: Store) -> None:
    assert await _cancel(store) is CancellationOutcome.CANCELLED
    first = await store.audit_events()

    assert await _cancel(store) is CancellationOutcome.ALREADY_CANCELLED
    # Another call asking later gets the same answer.
    assert await _cancel(store, call_id="call-2") is CancellationOutcome.ALREADY_CANCELLED
    assert await store.audit_events() == first
    assert (await _statuses(store))["100102"] is OrderStatus.CANCELLED


@pytest.mark.parametrize(
    ("order_id", "customer_id"),
    [("100101", "C-1001"), ("200201", "C-1002")],
    ids=["shipped", "delivered"],
)
async def test_shipped_or_delivered_order_is_not_cancelled(
    store: Store, order_id: str, customer_id: str
) -> None:
    outcome = await _cancel(store, order_id=order_id, customer_id=customer_id)

    assert outcome is CancellationOutcome.ORDER_SHIPPED
    await _assert_nothing_written(store)


@pytest.mark.parametrize(
    ("order_id", "customer_id"),
    [
        ("200202", "C-1001"),  # Priya's processing order, asked for by Jordan
        ("200201", "C-1001"),  # Priya's delivered order: not "shipped" either
        ("999999", "C-1001"),
        ("100102", "C-9999"),  # no such customer
    ],
    ids=["others-processing", "others-delivered", "missing-order", "missing-customer"],
)
async def test_other_customers_or_missing_order_is_not_found(
    store: Store, order_id: str, customer_id: str
) -> None:
    outcome = await _cancel(store, order_id=order_id, customer_id=customer_id)

    assert outcome is CancellationOutcome.ORDER_NOT_FOUND
    await _assert_nothing_written(store)


async def test_other_customers_cancelled_order_is_not_found_either(store: Store) -> None:
    await _cancel(store, order_id="200202", customer_id="C-1002")
    recorded = await store.audit_events()

    # "Already cancelled" would tell Jordan that Priya's order exists.
    outcome = await _cancel(store, order_id="200202", customer_id="C-1001", call_id="call-2")

    assert outcome is CancellationOutcome.ORDER_NOT_FOUND
    assert await store.audit_events() == recorded


async def test_concurrent_cancels_of_one_order_cancel_once(store: Store) -> None:
    outcomes = await asyncio.gather(
        *(_cancel(store, call_id=f"call-{number}") for number in range(5))
    )

    assert sorted(outcomes) == sorted(
        [CancellationOutcome.CANCELLED] + [CancellationOutcome.ALREADY_CANCELLED] * 4
    )
    [recorded] = await store.audit_events()
    assert recorded.kind == "order_cancelled"
    assert (await _statuses(store))["100102"] is OrderStatus.CANCELLED


async def test_in_memory_store_serialises_concurrent_cancels() -> None:
    async with await open_demo_store("sqlite+aiosqlite:///:memory:") as store:
        outcomes = await asyncio.gather(*(_cancel(store) for _ in range(3)))

        assert outcomes.count(CancellationOutcome.CANCELLED) == 1
        assert len(await store.audit_events(kind="order_cancelled")) == 1


NEW_ADDRESS = PostalAddress(
    street="1 Market St", city="San Francisco", region="CA", postal_code="94105", country="US"
)


async def test_address_change_on_a_cancelled_order_is_refused_and_writes_nothing(
    store: Store,
) -> None:
    await _cancel(store)
    recorded = await store.audit_events()

    result = await store.change_shipping_address(
        order_id="100102",
        customer_id="C-1001",
        new_address=NEW_ADDRESS,
        call_id="call-2",
        change_key="key-1",
    )

    assert result == (AddressChangeOutcome.ORDER_CANCELLED, None)
    order = await store.get_order("100102")
    assert order is not None
    assert (order.status, order.shipping_address) == (OrderStatus.CANCELLED, JORDAN_ADDRESS)
    assert await store.address_changes() == []
    assert await store.audit_events() == recorded


async def test_another_store_on_the_same_database_sees_the_cancellation(
    store: Store, database_url: str
) -> None:
    await _cancel(store)

    async with await open_demo_store(database_url) as reopened:
        assert (await _statuses(reopened))["100102"] is OrderStatus.CANCELLED
        assert await _cancel(reopened, call_id="call-2") is CancellationOutcome.ALREADY_CANCELLED
        assert len(await reopened.audit_events(kind="order_cancelled")) == 1


GIFT_CARD = "gift_card_9000202"
"""Priya's (C-1002) gift card, 40.00 as seeded; it paid 72.00 for her pending 200202."""
PAYPAL = "paypal_9000201"


async def _balance(store: Store, method_id: str) -> Decimal | None:
    methods = {method.method_id: method for method in await store.payment_methods("C-1002")}
    return methods[method_id].balance


async def test_cancel_records_the_reason_and_refunds_the_card_that_paid(store: Store) -> None:
    before = await stored_order(store, "100102")
    methods = await store.payment_methods("C-1001")

    outcome, cancelled = await store.cancel_order(
        order_id="100102",
        customer_id="C-1001",
        reason=CancelReason.ORDERED_BY_MISTAKE,
        call_id="call-1",
    )

    assert outcome is CancellationOutcome.CANCELLED
    refund = Transaction(
        kind=TransactionKind.REFUND, amount=Decimal("48.00"), method_id="credit_card_9000101"
    )
    assert cancelled == before.model_copy(
        update={
            "status": OrderStatus.CANCELLED,
            "cancel_reason": CancelReason.ORDERED_BY_MISTAKE,
            "payments": (*before.payments, refund),
        }
    )
    assert await store.get_order("100102") == cancelled
    # A card's refund is recorded on the order; no balance of the customer's moves.
    assert await store.payment_methods("C-1001") == methods
    [recorded] = await store.audit_events(kind="order_cancelled")
    assert recorded.detail == {
        "items": 1,
        "reason": "ordered by mistake",
        "refunds": 1,
        "refunded": "48.00",
    }


async def test_a_gift_card_that_paid_is_credited_at_once(store: Store) -> None:
    before = await stored_order(store, "200202")

    outcome, cancelled = await store.cancel_order(
        order_id="200202",
        customer_id="C-1002",
        reason=CancelReason.NO_LONGER_NEEDED,
        call_id="call-1",
    )

    assert outcome is CancellationOutcome.CANCELLED
    assert cancelled is not None
    assert cancelled.payments == (
        *before.payments,
        Transaction(kind=TransactionKind.REFUND, amount=Decimal("72.00"), method_id=GIFT_CARD),
    )
    assert await _balance(store, GIFT_CARD) == Decimal("112.00")


async def test_every_transaction_of_the_order_is_refunded_to_its_method(store: Store) -> None:
    split = (await stored_order(store, "200202")).model_copy(
        update={
            "order_id": "200299",
            "payments": (
                Transaction(
                    kind=TransactionKind.PAYMENT, amount=Decimal("50.00"), method_id=PAYPAL
                ),
                Transaction(
                    kind=TransactionKind.PAYMENT, amount=Decimal("22.00"), method_id=GIFT_CARD
                ),
            ),
        }
    )
    await save_orders(store, split)

    outcome, cancelled = await store.cancel_order(
        order_id="200299",
        customer_id="C-1002",
        reason=CancelReason.NO_LONGER_NEEDED,
        call_id="call-1",
    )

    assert outcome is CancellationOutcome.CANCELLED
    assert cancelled is not None
    assert cancelled.payments[2:] == tuple(
        payment.model_copy(update={"kind": TransactionKind.REFUND}) for payment in split.payments
    )
    assert await _balance(store, GIFT_CARD) == Decimal("62.00")
    [recorded] = await store.audit_events(kind="order_cancelled")
    assert (recorded.detail["refunds"], recorded.detail["refunded"]) == (2, "72.00")


async def test_an_order_whose_items_changed_is_not_cancelled(store: Store) -> None:
    changed = (await stored_order(store, "200202")).model_copy(
        update={"status": OrderStatus.PENDING_ITEMS_MODIFIED}
    )
    await save_orders(store, changed)
    before = await customer_records(store, "C-1002")

    outcome, order = await store.cancel_order(
        order_id="200202",
        customer_id="C-1002",
        reason=CancelReason.NO_LONGER_NEEDED,
        call_id="call-1",
    )

    assert (outcome, order) == (CancellationOutcome.ITEMS_CHANGED, changed)
    assert await customer_records(store, "C-1002") == before
    assert await store.audit_events() == []


async def test_a_refused_or_repeated_cancellation_tells_the_owner_their_order_as_it_is(
    store: Store,
) -> None:
    shipped = await stored_order(store, "100101")
    assert await store.cancel_order(
        order_id="100101", customer_id="C-1001", reason=None, call_id="call-1"
    ) == (CancellationOutcome.ORDER_SHIPPED, shipped)

    _, cancelled = await store.cancel_order(
        order_id="100102", customer_id="C-1001", reason=None, call_id="call-1"
    )
    assert cancelled is not None
    assert cancelled.cancel_reason is None
    assert await store.cancel_order(
        order_id="100102",
        customer_id="C-1001",
        reason=CancelReason.ORDERED_BY_MISTAKE,
        call_id="call-2",
    ) == (CancellationOutcome.ALREADY_CANCELLED, cancelled)
    # Refunded once, and the first reason stands.
    assert await store.get_order("100102") == cancelled
    assert len(cancelled.payments) == 2


async def test_concurrent_cancels_credit_the_gift_card_once(store: Store) -> None:
    results = await asyncio.gather(
        *(
            store.cancel_order(
                order_id="200202",
                customer_id="C-1002",
                reason=CancelReason.NO_LONGER_NEEDED,
                call_id=f"call-{number}",
            )
            for number in range(5)
        )
    )

    assert sorted(outcome for outcome, _ in results) == sorted(
        [CancellationOutcome.CANCELLED] + [CancellationOutcome.ALREADY_CANCELLED] * 4
    )
    assert await _balance(store, GIFT_CARD) == Decimal("112.00")
    order = await stored_order(store, "200202")
    assert [payment.kind for payment in order.payments] == [
        TransactionKind.PAYMENT,
        TransactionKind.REFUND,
    ]
    assert len(await store.audit_events(kind="order_cancelled")) == 1
