from __future__ import annotations

import asyncio
import datetime as dt
import os
from decimal import Decimal
from pathlib import Path

import pydantic
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from customer_service.domain import (
    Customer,
    Order,
    OrderStatus,
    Transaction,
    TransactionKind,
)
from customer_service.store import AuditEvent, Store, StoreUnavailable
from customer_service.store.orders import order_to_row
from customer_service.testing import open_demo_store
from support.demo_addresses import JORDAN_ADDRESS, MARIA_ADDRESS, PRIYA_ADDRESS


async def _insert_orders(url: str, *orders: Order) -> None:
    """Adds orders behind the store's back: the store has no API for creating them."""
    engine = create_async_engine(url)
    try:
        async with async_sessionmaker(engine).begin() as session:
            session.add_all([order_to_row(order) for order in orders])
    finally:
        await engine.dispose()


async def test_seeds_the_demo_customers(store: Store) -> None:
    assert await store.get_customer("C-1001") == Customer(
        customer_id="C-1001",
        full_name="Jordan Lee",
        phone="+14155550134",
        email="jordan.lee@example.com",
        postal_code="94107",
        country="US",
        address=JORDAN_ADDRESS,
    )
    assert await store.get_customer("C-1002") == Customer(
        customer_id="C-1002",
        full_name="Priya Natarajan",
        phone="+12125550188",
        email="priya.n@example.com",
        postal_code="10001",
        country="US",
        address=PRIYA_ADDRESS,
    )
    assert await store.get_customer("C-1003") == Customer(
        customer_id="C-1003",
        full_name="María García",
        phone="+34911234567",
        email="maria.garcia@example.es",
        postal_code="28013",
        country="ES",
        address=MARIA_ADDRESS,
    )
    assert await store.get_customer("C-1004") is None


async def test_seeds_the_demo_orders(store: Store) -> None:
    shipped = await store.get_order("100101")
    assert shipped is not None
    assert shipped.customer_id == "C-1001"
    assert shipped.status is OrderStatus.PROCESSED
    assert shipped.carrier == "UPS"
    assert shipped.tracking_number == "1Z999AA10123456784"
    assert shipped.delivered_on is None
    assert shipped.shipping_address == JORDAN_ADDRESS
    assert [(i.name, i.quantity, i.item_id, i.price) for i in shipped.items] == [
        ("Wireless noise-cancelling headphones", 1, "9000000101", Decimal("199.99")),
        ("USB-C charging cable", 2, "9000000201", Decimal("12.99")),
    ]
    assert shipped.payments == (
        Transaction(
            kind=TransactionKind.PAYMENT, amount=Decimal("225.97"), method_id="credit_card_9000101"
        ),
    )
    assert [f.item_ids for f in shipped.fulfilments] == [("9000000101", "9000000201", "9000000201")]

    delivered = await store.get_order("200201")
    assert delivered is not None
    assert delivered.customer_id == "C-1002"
    assert delivered.status is OrderStatus.DELIVERED
    assert delivered.delivered_on == dt.date(2026, 11, 9)
    assert delivered.shipping_address == PRIYA_ADDRESS

    expected = {
        "100101": ("C-1001", OrderStatus.PROCESSED, JORDAN_ADDRESS),
        "100102": ("C-1001", OrderStatus.PENDING, JORDAN_ADDRESS),
        "200201": ("C-1002", OrderStatus.DELIVERED, PRIYA_ADDRESS),
        "200202": ("C-1002", OrderStatus.PENDING, PRIYA_ADDRESS),
        "300301": ("C-1003", OrderStatus.PENDING, MARIA_ADDRESS),
    }
    placed: list[dt.date] = []
    for order_id, (customer_id, status, address) in expected.items():
        order = await store.get_order(order_id)
        assert order is not None
        assert (order.customer_id, order.status, order.shipping_address) == (
            customer_id,
            status,
            address,
        )
        assert 1 <= len(order.items) <= 2
        assert (order.placed_on.year, order.placed_on.month) == (2026, 11)
        if status is OrderStatus.PENDING:
            assert (order.carrier, order.tracking_number, order.delivered_on) == (None, None, None)
        placed.append(order.placed_on)
    assert placed == sorted(placed)
    assert len(set(placed)) == len(placed)


async def test_unknown_order_is_none(store: Store) -> None:
    assert await store.get_order("999999") is None
    assert await store.get_order("") is None


@pytest.mark.parametrize(
    ("postal_code", "customer_ids"),
    [
        ("94107", ["C-1001"]),
        ("941071234", ["C-1001"]),
        ("9 4 1 0 7", ["C-1001"]),
        ("10001", ["C-1002"]),
        ("28013", ["C-1003"]),
        ("280131234", []),  # ZIP+4 is a US form only
        ("94108", []),
        ("9410", []),
        ("", []),
    ],
)
async def test_customers_with_postal_code(
    store: Store, postal_code: str, customer_ids: list[str]
) -> None:
    customers = await store.customers_with_postal_code(postal_code)
    assert [customer.customer_id for customer in customers] == customer_ids


async def test_recent_orders_newest_first_with_limit(store: Store) -> None:
    async def ids(customer_id: str, limit: int) -> list[str]:
        return [order.order_id for order in await store.recent_orders(customer_id, limit)]

    assert await ids("C-1001", 5) == ["100102", "100101"]
    assert await ids("C-1001", 1) == ["100102"]
    assert await ids("C-1001", 0) == []
    assert await ids("C-1002", 5) == ["200202", "200201"]
    assert await ids("C-1003", 5) == ["300301"]
    assert await ids("C-9999", 5) == []


async def test_recent_orders_read_for_disclosure_record_one_disclosure_each(
    store: Store,
) -> None:
    kept = AuditEvent(call_id="call-1", kind="delegation")
    disclosure = AuditEvent(call_id="call-1", kind="order_disclosed", customer_id="C-1001")
    orders = await store.read_recent_orders_for_disclosure("C-1001", 5, disclosure, [kept])
    assert [order.order_id for order in orders] == ["100102", "100101"]
    assert orders == await store.recent_orders("C-1001", 5)
    events = await store.audit_events(call_id="call-1")
    assert [(event.kind, event.order_id) for event in events] == [
        ("delegation", None),
        ("order_disclosed", "100102"),
        ("order_disclosed", "100101"),
    ]

    # Nothing listed, nothing disclosed; the kept events are stored all the same.
    other = AuditEvent(call_id="call-2", kind="order_disclosed", customer_id="C-9999")
    assert await store.read_recent_orders_for_disclosure("C-9999", 5, other, [kept]) == []
    assert await store.read_recent_orders_for_disclosure("C-1001", 0, other) == []
    assert await store.audit_events(call_id="call-2") == []
    assert len(await store.audit_events(kind="delegation")) == 2


async def test_recent_orders_break_date_ties_by_order_number(
    store: Store, database_url: str
) -> None:
    newest = await store.get_order("100102")
    assert newest is not None
    same_day = newest.model_copy(update={"order_id": "100103"})
    older_same_day = newest.model_copy(update={"order_id": "100100"})
    await _insert_orders(database_url, older_same_day, same_day)

    orders = await store.recent_orders("C-1001", 3)
    assert [order.order_id for order in orders] == ["100103", "100102", "100100"]


async def test_reopen_does_not_reseed_and_sees_earlier_writes(database_url: str) -> None:
    first = await open_demo_store(database_url)
    await first.add_audit_event(AuditEvent(call_id="call-1", kind="identity_verified"))

    second = await open_demo_store(database_url)
    assert [event.call_id for event in await second.audit_events()] == ["call-1"]
    await first.close()

    third = await open_demo_store(database_url)
    for postal_code in ("94107", "10001", "28013"):
        assert len(await third.customers_with_postal_code(postal_code)) == 1
    assert len(await third.recent_orders("C-1001", 10)) == 2
    assert len(await third.recent_orders("C-1002", 10)) == 2
    assert [event.kind for event in await third.audit_events()] == ["identity_verified"]
    await second.close()
    await third.close()


async def test_concurrent_opens_of_a_new_database_seed_once(database_url: str) -> None:
    stores = await asyncio.gather(*(open_demo_store(database_url) for _ in range(4)))
    try:
        for postal_code in ("94107", "10001", "28013"):
            assert len(await stores[-1].customers_with_postal_code(postal_code)) == 1
        assert len(await stores[0].recent_orders("C-1001", 10)) == 2
    finally:
        for opened in stores:
            await opened.close()


async def test_audit_events_round_trip(store: Store) -> None:
    madrid = dt.timezone(dt.timedelta(hours=1))
    event = AuditEvent(
        call_id="call-1",
        kind="order_disclosed",
        customer_id="C-1003",
        order_id="300301",
        detail={"phone": "+34*******4567", "attempt": 2, "fields": ["status", "items"]},
        created_at=dt.datetime(2026, 11, 20, 10, 30, 5, 123000, tzinfo=madrid),
    )
    await store.add_audit_event(event)

    [stored] = await store.audit_events()
    assert stored == event
    assert stored.created_at == dt.datetime(2026, 11, 20, 9, 30, 5, 123000, tzinfo=dt.UTC)
    assert stored.created_at.utcoffset() == dt.timedelta(0)
    assert stored.detail == {"phone": "+34*******4567", "attempt": 2, "fields": ["status", "items"]}


async def test_audit_events_filter_and_sort_oldest_first(store: Store) -> None:
    base = dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.UTC)

    def at(minutes: int, call_id: str, kind: str) -> AuditEvent:
        return AuditEvent(
            call_id=call_id, kind=kind, created_at=base + dt.timedelta(minutes=minutes)
        )

    # Written out of time order: reads must sort by time, not by insertion.
    for event in (
        at(3, "call-a", "order_disclosed"),
        at(1, "call-a", "identity_failed"),
        at(2, "call-b", "identity_failed"),
        at(4, "call-a", "identity_failed"),
    ):
        await store.add_audit_event(event)

    def summary(events: list[AuditEvent]) -> list[tuple[str, str, int]]:
        return [
            (event.call_id, event.kind, (event.created_at - base) // dt.timedelta(minutes=1))
            for event in events
        ]

    assert summary(await store.audit_events()) == [
        ("call-a", "identity_failed", 1),
        ("call-b", "identity_failed", 2),
        ("call-a", "order_disclosed", 3),
        ("call-a", "identity_failed", 4),
    ]
    assert summary(await store.audit_events(call_id="call-a")) == [
        ("call-a", "identity_failed", 1),
        ("call-a", "order_disclosed", 3),
        ("call-a", "identity_failed", 4),
    ]
    assert summary(await store.audit_events(kind="identity_failed")) == [
        ("call-a", "identity_failed", 1),
        ("call-b", "identity_failed", 2),
        ("call-a", "identity_failed", 4),
    ]
    assert summary(await store.audit_events(call_id="call-a", kind="identity_failed")) == [
        ("call-a", "identity_failed", 1),
        ("call-a", "identity_failed", 4),
    ]
    assert await store.audit_events(call_id="call-z") == []


def test_audit_event_defaults_and_validation() -> None:
    before = dt.datetime.now(dt.UTC)
    event = AuditEvent(call_id="call-1", kind="delegation")
    assert event.customer_id is None
    assert event.order_id is None
    assert event.detail == {}
    assert event.created_at.tzinfo is dt.UTC
    assert before <= event.created_at <= dt.datetime.now(dt.UTC)

    with pytest.raises(pydantic.ValidationError):
        AuditEvent(call_id="call-1", kind="delegation", created_at=dt.datetime(2026, 11, 20))
    with pytest.raises(pydantic.ValidationError):
        AuditEvent(call_id="", kind="delegation")
    with pytest.raises(pydantic.ValidationError):
        event.kind = "changed"  # type: ignore[misc]


async def test_in_memory_store_is_seeded_and_serves_concurrent_calls() -> None:
    store = await open_demo_store("sqlite+aiosqlite:///:memory:")
    try:
        orders = await asyncio.gather(*(store.get_order("100101") for _ in range(10)))
        assert {order.order_id for order in orders if order is not None} == {"100101"}
        await asyncio.gather(
            *(store.add_audit_event(AuditEvent(call_id=f"c{i}", kind="k")) for i in range(10))
        )
        assert len(await store.audit_events(kind="k")) == 10
    finally:
        await store.close()


def _sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


async def test_file_that_is_not_a_database_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    path.write_bytes(b"this is not a SQLite database " * 100)

    with pytest.raises(StoreUnavailable) as raised:
        await Store.open(_sqlite_url(path))
    assert raised.value.__cause__ is not None
    assert "not a database" in str(raised.value.__cause__)
    # Generic message: no path, no driver text.
    assert str(raised.value) == "The store could not open the database."


async def test_database_corrupted_while_open_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    store = await Store.open(_sqlite_url(path))
    try:
        # In WAL mode a connection trusts its pages and the shared WAL index, and the last
        # one to close writes the WAL back into the file: corruption shows when the file
        # itself is read again, by the next connection after the log is emptied.
        async with store.engine.connect() as connection:
            await connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        path.write_bytes(b"garbage" * 1000)
        await store.engine.dispose()
        with pytest.raises(StoreUnavailable) as read_error:
            await store.get_customer("C-1001")
        assert str(read_error.value) == "The store could not read a customer."
        with pytest.raises(StoreUnavailable):
            await store.add_audit_event(AuditEvent(call_id="call-1", kind="delegation"))
        with pytest.raises(StoreUnavailable):
            await store.recent_orders("C-1001", 5)
    finally:
        await store.close()


async def test_directory_that_cannot_be_created_is_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the database folder should be")

    with pytest.raises(StoreUnavailable) as raised:
        await Store.open(_sqlite_url(blocker / "store.sqlite3"))
    assert isinstance(raised.value.__cause__, OSError)
    assert str(blocker) not in str(raised.value)


async def test_database_path_that_is_a_directory_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable):
        await Store.open(_sqlite_url(tmp_path))


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="file permissions do not stop root from writing",
)
async def test_directory_that_is_not_writable_is_unavailable(tmp_path: Path) -> None:
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    read_only.chmod(0o555)
    try:
        with pytest.raises(StoreUnavailable):
            await Store.open(_sqlite_url(read_only / "store.sqlite3"))
        with pytest.raises(StoreUnavailable):
            await Store.open(_sqlite_url(read_only / "missing" / "store.sqlite3"))
    finally:
        read_only.chmod(0o755)
