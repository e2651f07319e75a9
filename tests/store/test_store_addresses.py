from __future__ import annotations

import asyncio
import datetime as dt
import itertools

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.clock import FixedClock
from customer_service.domain import OrderStatus, PostalAddress
from customer_service.store import (
    AddressChange,
    AddressChangeOutcome,
    AuditEvent,
    Store,
    StoreUnavailable,
)
from customer_service.store import addresses as addresses_module
from customer_service.testing import open_demo_store
from support.demo_addresses import JORDAN_ADDRESS, PRIYA_ADDRESS
from support.faults import fail_writes
from support.store_records import save_orders, stored_order

MARKET_ST = PostalAddress(
    street="1 Market St",
    unit="Suite 300",
    city="San Francisco",
    region="CA",
    postal_code="94105",
    country="US",
)
MISSION_ST = PostalAddress(
    street="2 Mission St", city="San Francisco", region="CA", postal_code="94105", country="US"
)


async def _change(
    store: Store,
    *,
    order_id: str = "100102",
    customer_id: str = "C-1001",
    address: PostalAddress = MARKET_ST,
    call_id: str = "call-1",
    key: str = "key-1",
) -> tuple[AddressChangeOutcome, AddressChange | None]:
    return await store.change_shipping_address(
        order_id=order_id,
        customer_id=customer_id,
        new_address=address,
        call_id=call_id,
        change_key=key,
    )


async def _address_of(store: Store, order_id: str) -> PostalAddress:
    order = await store.get_order(order_id)
    assert order is not None
    return order.shipping_address


async def _assert_nothing_written(store: Store) -> None:
    assert await store.address_changes() == []
    assert await store.audit_events() == []


async def test_change_updates_the_order_and_records_old_and_new(
    store: Store, clock: FixedClock
) -> None:
    clock.advance(dt.timedelta(days=3, minutes=7))
    outcome, change = await _change(store)

    assert outcome is AddressChangeOutcome.CHANGED
    assert change is not None
    assert change.model_dump(exclude={"changed_at"}) == {
        "change_key": "key-1",
        "order_id": "100102",
        "customer_id": "C-1001",
        "call_id": "call-1",
        "old_address": JORDAN_ADDRESS.model_dump(),
        "new_address": MARKET_ST.model_dump(),
    }
    # When it changed is the store's clock's time.
    assert change.changed_at == clock.now()
    assert await _address_of(store, "100102") == MARKET_ST
    # The other orders, including the same customer's, keep their address.
    assert await _address_of(store, "100101") == JORDAN_ADDRESS
    assert await store.address_changes() == [change]

    assert await store.audit_events() == [
        AuditEvent(
            call_id="call-1",
            kind="address_changed",
            customer_id="C-1001",
            order_id="100102",
            detail={"old_address": "500***", "new_address": "1 M***"},
            created_at=change.changed_at,
        )
    ]


async def test_same_change_key_applies_once(store: Store) -> None:
    first = await _change(store)
    second = await _change(store)

    assert first[0] is AddressChangeOutcome.CHANGED
    assert second == (AddressChangeOutcome.ALREADY_APPLIED, first[1])
    assert len(await store.address_changes()) == 1
    assert len(await store.audit_events()) == 1
    assert await _address_of(store, "100102") == MARKET_ST


async def test_retry_after_the_order_shipped_still_reports_the_change(store: Store) -> None:
    _, change = await _change(store)
    async with store.engine.begin() as connection:
        await connection.execute(
            text("UPDATE orders SET status = 'processed' WHERE order_id = '100102'")
        )

    assert await _change(store) == (AddressChangeOutcome.ALREADY_APPLIED, change)
    # A new change on the now shipped order is refused.
    assert await _change(store, address=MISSION_ST, key="key-2") == (
        AddressChangeOutcome.ORDER_SHIPPED,
        None,
    )
    assert await store.address_changes() == [change]


async def test_current_address_is_already_applied_and_writes_nothing(store: Store) -> None:
    assert await _change(store, address=JORDAN_ADDRESS) == (
        AddressChangeOutcome.ALREADY_APPLIED,
        None,
    )
    await _assert_nothing_written(store)
    # Nothing recorded the key either, so it can still be used for a real change.
    outcome, _ = await _change(store)
    assert outcome is AddressChangeOutcome.CHANGED


@pytest.mark.parametrize(
    ("order_id", "customer_id", "address"),
    [("100101", "C-1001", JORDAN_ADDRESS), ("200201", "C-1002", PRIYA_ADDRESS)],
    ids=["shipped", "delivered"],
)
async def test_shipped_or_delivered_order_is_not_changed(
    store: Store, order_id: str, customer_id: str, address: PostalAddress
) -> None:
    result = await _change(store, order_id=order_id, customer_id=customer_id)

    assert result == (AddressChangeOutcome.ORDER_SHIPPED, None)
    assert await _address_of(store, order_id) == address
    await _assert_nothing_written(store)


async def test_a_pending_order_whose_items_changed_changes_address(store: Store) -> None:
    order = await stored_order(store, "100102")
    await save_orders(
        store, order.model_copy(update={"status": OrderStatus.PENDING_ITEMS_MODIFIED})
    )

    outcome, change = await _change(store)

    assert outcome is AddressChangeOutcome.CHANGED
    assert change is not None
    assert await stored_order(store, "100102") == order.model_copy(
        update={"status": OrderStatus.PENDING_ITEMS_MODIFIED, "shipping_address": MARKET_ST}
    )


@pytest.mark.parametrize(
    ("status", "outcome"),
    [
        (OrderStatus.PROCESSED, AddressChangeOutcome.ORDER_SHIPPED),
        (OrderStatus.DELIVERED, AddressChangeOutcome.ORDER_SHIPPED),
        (OrderStatus.RETURN_REQUESTED, AddressChangeOutcome.ORDER_SHIPPED),
        (OrderStatus.EXCHANGE_REQUESTED, AddressChangeOutcome.ORDER_SHIPPED),
        (OrderStatus.CANCELLED, AddressChangeOutcome.ORDER_CANCELLED),
    ],
)
async def test_every_state_past_pending_keeps_its_address(
    store: Store, status: OrderStatus, outcome: AddressChangeOutcome
) -> None:
    order = (await stored_order(store, "100102")).model_copy(update={"status": status})
    await save_orders(store, order)

    assert await _change(store) == (outcome, None)

    assert await stored_order(store, "100102") == order
    await _assert_nothing_written(store)


async def test_other_customers_order_reads_like_a_missing_one(store: Store) -> None:
    others = await _change(store, order_id="100102", customer_id="C-1002")
    missing = await _change(store, order_id="999999", customer_id="C-1002")

    assert others == missing == (AddressChangeOutcome.ORDER_NOT_FOUND, None)
    assert await _address_of(store, "100102") == JORDAN_ADDRESS
    await _assert_nothing_written(store)


async def test_change_key_of_another_order_is_refused(store: Store) -> None:
    await _change(store)

    with pytest.raises(ValueError, match="different order"):
        await _change(store, order_id="200202", customer_id="C-1002")
    assert await _address_of(store, "200202") == PRIYA_ADDRESS
    assert len(await store.address_changes()) == 1


async def test_concurrent_changes_are_serialised(store: Store) -> None:
    addresses = [
        MISSION_ST.model_copy(update={"street": f"{number} Mission St"}) for number in range(5)
    ]
    results = await asyncio.gather(
        *(
            _change(store, address=address, key=f"key-{number}")
            for number, address in enumerate(addresses)
        )
    )

    assert [outcome for outcome, _ in results] == [AddressChangeOutcome.CHANGED] * 5
    changes = await store.address_changes(order_id="100102")
    assert sorted(change.change_key for change in changes) == [f"key-{n}" for n in range(5)]
    # Each change saw the address the one before it wrote: none read a stale address.
    assert changes[0].old_address == JORDAN_ADDRESS
    for earlier, later in itertools.pairwise(changes):
        assert later.old_address == earlier.new_address
    assert await _address_of(store, "100102") == changes[-1].new_address
    assert len(await store.audit_events(kind="address_changed")) == 5


async def test_concurrent_changes_with_the_same_key_apply_once(store: Store) -> None:
    results = await asyncio.gather(*(_change(store) for _ in range(4)))

    outcomes = sorted(outcome for outcome, _ in results)
    assert outcomes == sorted(
        [AddressChangeOutcome.CHANGED] + [AddressChangeOutcome.ALREADY_APPLIED] * 3
    )
    [recorded] = await store.address_changes()
    assert all(change == recorded for _, change in results)
    assert len(await store.audit_events()) == 1


async def test_in_memory_store_serialises_concurrent_changes() -> None:
    store = await open_demo_store("sqlite+aiosqlite:///:memory:")
    try:
        results = await asyncio.gather(
            _change(store, address=MARKET_ST, key="a"),
            _change(store, address=MISSION_ST, key="b"),
            _change(store, address=MISSION_ST, key="b"),
        )
        assert sorted(outcome for outcome, _ in results) == sorted(
            [
                AddressChangeOutcome.CHANGED,
                AddressChangeOutcome.CHANGED,
                AddressChangeOutcome.ALREADY_APPLIED,
            ]
        )
        first, second = await store.address_changes()
        assert (first.old_address, second.old_address) == (JORDAN_ADDRESS, first.new_address)
    finally:
        await store.close()


async def test_losing_a_race_on_the_key_after_the_check_is_already_applied(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, recorded = await _change(store)
    # Let the check before the insert miss the key once, as when another transaction
    # commits the same key in between; the UNIQUE constraint must then decide.
    real_lookup = addresses_module._change_with_key
    misses = [True]

    async def lookup_missing_once(session: AsyncSession, change_key: str) -> AddressChange | None:
        if misses:
            misses.pop()
            return None
        return await real_lookup(session, change_key)

    monkeypatch.setattr(addresses_module, "_change_with_key", lookup_missing_once)

    assert await _change(store, address=MISSION_ST) == (
        AddressChangeOutcome.ALREADY_APPLIED,
        recorded,
    )
    assert misses == []
    # The losing transaction's order update was rolled back with its insert.
    assert await _address_of(store, "100102") == MARKET_ST
    assert await store.address_changes() == [recorded]
    assert len(await store.audit_events()) == 1


@pytest.mark.parametrize(
    "street",
    ["'); DROP TABLE orders; --", "Robert'); DELETE FROM address_changes; --", "x" * 5000],
    ids=["drop-table", "delete", "5000-characters"],
)
async def test_hostile_and_huge_streets_are_stored_literally(store: Store, street: str) -> None:
    address = MARKET_ST.model_copy(update={"street": street})

    outcome, change = await _change(store, address=address)

    assert outcome is AddressChangeOutcome.CHANGED
    assert await _address_of(store, "100102") == address
    assert (await _address_of(store, "100102")).street == street
    assert await store.address_changes() == [change]
    assert change is not None
    assert change.new_address.street == street
    async with store.engine.connect() as connection:
        count = await connection.scalar(text("SELECT count(*) FROM orders"))
    assert count == 5
    assert len(await store.recent_orders("C-1002", 10)) == 2


async def test_write_failure_is_unavailable_and_changes_nothing(store: Store) -> None:
    undo = fail_writes(store)
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await _change(store)
        # Reads still work while writes fail.
        assert await _address_of(store, "100102") == JORDAN_ADDRESS
    finally:
        undo()

    assert str(raised.value) == "The store could not change a shipping address."
    assert "database is locked" in str(raised.value.__cause__)
    assert await _address_of(store, "100102") == JORDAN_ADDRESS
    await _assert_nothing_written(store)
    # The key was not used up by the failed attempt.
    outcome, _ = await _change(store)
    assert outcome is AddressChangeOutcome.CHANGED


async def test_another_store_on_the_same_database_sees_the_change(
    store: Store, database_url: str
) -> None:
    _, change = await _change(store)

    async with await open_demo_store(database_url) as reopened:
        assert await _address_of(reopened, "100102") == MARKET_ST
        assert await reopened.address_changes() == [change]
        assert await _change(reopened) == (AddressChangeOutcome.ALREADY_APPLIED, change)


async def test_address_changes_filter_and_sort_oldest_first(store: Store) -> None:
    await _change(store, call_id="call-a", key="k1")
    await _change(
        store,
        order_id="200202",
        customer_id="C-1002",
        address=MISSION_ST,
        call_id="call-b",
        key="k2",
    )
    await _change(store, address=MISSION_ST, call_id="call-b", key="k3")

    async def keys(**filters: str) -> list[str]:
        return [change.change_key for change in await store.address_changes(**filters)]

    assert await keys() == ["k1", "k2", "k3"]
    assert await keys(order_id="100102") == ["k1", "k3"]
    assert await keys(call_id="call-b") == ["k2", "k3"]
    assert await keys(order_id="100102", call_id="call-b") == ["k3"]
    assert await keys(order_id="300301") == []
