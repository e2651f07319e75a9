"""`Store.change_order_items`: units of a pending order become other available variants
of their products, once, with the price difference paid or refunded in the same
transaction, on the demo's lines and on τ²-bench-shaped orders of single units."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Connection

from customer_service.domain import Order, OrderItem, OrderStatus, Transaction, TransactionKind
from customer_service.store import AuditEvent, Store, StoreUnavailable
from customer_service.store.demo_catalog import demo_variant
from customer_service.store.order_changes import Changed, ChangeRefusal
from support.retail_account import (
    CREDIT_CARD,
    CUSTOMER_ID,
    GIFT_CARD,
    KETTLE_CERAMIC,
    KETTLE_GLASS,
    KETTLE_IRON,
    KETTLE_STEEL,
    MUG_RED,
    MUG_WHITE,
    PENDING,
    PENDING_KETTLES,
    add_retail_account,
    balance,
    every_record,
    unit,
)

PRIYA = "C-1002"
BOTTLES = "200202"
"""Priya's pending order: one line of three 500 ml blue bottles at 24.00, paid 72.00 by
her gift card (balance 40.00)."""
PRIYA_GIFT_CARD = "gift_card_9000202"
BLUE = "9000000601"
BLUE_750 = "9000000602"
GREEN = "9000000603"
GREEN_750_SOLD_OUT = "9000000604"
PAID_FOR_BOTTLES = Transaction(
    kind=TransactionKind.PAYMENT, amount=Decimal("72.00"), method_id=PRIYA_GIFT_CARD
)


async def _change(
    store: Store,
    *,
    order_id: str = BOTTLES,
    customer_id: str = PRIYA,
    item_ids: Sequence[str] = (BLUE,),
    new_item_ids: Sequence[str] = (GREEN,),
    payment_method_id: str = PRIYA_GIFT_CARD,
    call_id: str = "call-1",
    other_events: Sequence[AuditEvent] = (),
) -> Changed[Order]:
    return await store.change_order_items(
        order_id=order_id,
        customer_id=customer_id,
        item_ids=item_ids,
        new_item_ids=new_item_ids,
        payment_method_id=payment_method_id,
        call_id=call_id,
        other_events=other_events,
    )


def _bottles(item_id: str, quantity: int) -> OrderItem:
    variant = demo_variant(item_id)
    return OrderItem(
        name="Stainless steel water bottle",
        quantity=quantity,
        product_id=variant.product_id,
        item_id=item_id,
        options=variant.options,
        price=variant.price,
    )


async def _stored(store: Store, order_id: str) -> Order:
    order = await store.get_order(order_id)
    assert order is not None
    return order


async def test_a_bottle_changed_to_green_splits_the_line_and_refunds_nothing(
    store: Store,
) -> None:
    result = await _change(store)

    assert result.done
    order = await _stored(store, BOTTLES)
    assert result.record == order
    assert order.status is OrderStatus.PENDING_ITEMS_MODIFIED
    assert order.items == (_bottles(GREEN, 1), _bottles(BLUE, 2))
    # No difference is still one transaction, a refund of nothing, as τ²-bench records.
    assert order.payments == (
        PAID_FOR_BOTTLES,
        Transaction(kind=TransactionKind.REFUND, amount=Decimal("0.00"), method_id=PRIYA_GIFT_CARD),
    )
    assert await balance(store, PRIYA, PRIYA_GIFT_CARD) == Decimal("40.00")
    [recorded] = await store.audit_events()
    assert recorded == AuditEvent(
        call_id="call-1",
        kind="order_items_changed",
        customer_id=PRIYA,
        order_id=BOTTLES,
        detail={
            "items": 1,
            "item_ids": [BLUE],
            "new_item_ids": [GREEN],
            "payment_method_id": PRIYA_GIFT_CARD,
            "price_difference_cents": 0,
        },
        created_at=recorded.created_at,
    )


async def test_dearer_bottles_are_paid_for_from_the_gift_card(store: Store) -> None:
    result = await _change(store, item_ids=[BLUE, BLUE], new_item_ids=[BLUE_750, BLUE_750])

    assert result.done
    order = await _stored(store, BOTTLES)
    # The two changed units came from one line and are alike: they stay one line.
    assert order.items == (_bottles(BLUE_750, 2), _bottles(BLUE, 1))
    assert order.payments == (
        PAID_FOR_BOTTLES,
        Transaction(
            kind=TransactionKind.PAYMENT, amount=Decimal("8.00"), method_id=PRIYA_GIFT_CARD
        ),
    )
    assert await balance(store, PRIYA, PRIYA_GIFT_CARD) == Decimal("32.00")
    [recorded] = await store.audit_events(kind="order_items_changed")
    assert recorded.detail["price_difference_cents"] == 800


async def test_each_changed_unit_takes_its_own_variants_price_and_options(store: Store) -> None:
    await add_retail_account(store)

    result = await _change(
        store,
        order_id=PENDING,
        customer_id=CUSTOMER_ID,
        item_ids=[KETTLE_GLASS.item_id, MUG_RED.item_id],
        new_item_ids=[KETTLE_STEEL.item_id, MUG_WHITE.item_id],
        payment_method_id=CREDIT_CARD,
    )

    assert result.done
    order = await _stored(store, PENDING)
    # τ²-bench would write the mug's price and options onto the kettle too.
    assert order.items == (unit(KETTLE_STEEL), unit(KETTLE_GLASS), unit(MUG_WHITE))
    assert order.payments[1:] == (
        Transaction(kind=TransactionKind.PAYMENT, amount=Decimal("2.70"), method_id=CREDIT_CARD),
    )
    assert await balance(store, CUSTOMER_ID, GIFT_CARD) == Decimal("10.00")


async def test_an_order_of_single_units_stays_one_entry_per_unit(store: Store) -> None:
    await add_retail_account(store)

    result = await _change(
        store,
        order_id=PENDING,
        customer_id=CUSTOMER_ID,
        item_ids=[MUG_RED.item_id],
        new_item_ids=[MUG_WHITE.item_id],
        payment_method_id=GIFT_CARD,
    )

    assert result.done
    order = await _stored(store, PENDING)
    # The two glass kettles were two entries and stay two, as in τ²-bench's data.
    assert order.items == (unit(KETTLE_GLASS), unit(KETTLE_GLASS), unit(MUG_WHITE))
    assert order.payments[1:] == (
        Transaction(kind=TransactionKind.REFUND, amount=Decimal("2.50"), method_id=GIFT_CARD),
    )
    assert await balance(store, CUSTOMER_ID, GIFT_CARD) == Decimal("12.50")


async def test_an_id_listed_twice_changes_two_units_each_to_its_pairs_variant(
    store: Store,
) -> None:
    await add_retail_account(store)

    result = await _change(
        store,
        order_id=PENDING,
        customer_id=CUSTOMER_ID,
        item_ids=[KETTLE_GLASS.item_id, KETTLE_GLASS.item_id],
        new_item_ids=[KETTLE_STEEL.item_id, KETTLE_CERAMIC.item_id],
        payment_method_id=GIFT_CARD,
    )

    assert result.done
    order = await _stored(store, PENDING)
    assert order.items == (unit(KETTLE_STEEL), unit(KETTLE_CERAMIC), unit(MUG_RED))
    # 5.20 more for the steel one, 14.80 less for the ceramic one.
    assert order.payments[1:] == (
        Transaction(kind=TransactionKind.REFUND, amount=Decimal("9.60"), method_id=GIFT_CARD),
    )
    assert await balance(store, CUSTOMER_ID, GIFT_CARD) == Decimal("19.60")


async def test_a_gift_card_balance_equal_to_the_difference_covers_it(store: Store) -> None:
    await add_retail_account(store, gift_card_balance="5.20")

    result = await _change(
        store,
        order_id=PENDING_KETTLES[0],
        customer_id=CUSTOMER_ID,
        item_ids=[KETTLE_GLASS.item_id],
        new_item_ids=[KETTLE_STEEL.item_id],
        payment_method_id=GIFT_CARD,
    )

    assert result.done
    assert await balance(store, CUSTOMER_ID, GIFT_CARD) == Decimal("0.00")


async def test_the_calls_kept_events_are_written_with_the_change(store: Store) -> None:
    kept = AuditEvent(call_id="call-1", kind="order_disclosed", order_id=BOTTLES)

    assert (await _change(store, other_events=[kept])).done

    assert [recorded.kind for recorded in await store.audit_events()] == [
        "order_disclosed",
        "order_items_changed",
    ]


@contextmanager
def _failing_audit_insert(store: Store) -> Iterator[None]:
    def fail(connection: Connection, cursor: Any, statement: str, *args: Any) -> None:
        if statement.upper().startswith("INSERT INTO AUDIT_EVENTS"):
            raise connection.dialect.loaded_dbapi.OperationalError("disk I/O error")

    engine = store.engine.sync_engine
    event.listen(engine, "before_cursor_execute", fail)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", fail)


async def test_items_money_and_audit_event_are_one_transaction(store: Store) -> None:
    before = await every_record(store)

    with _failing_audit_insert(store), pytest.raises(StoreUnavailable):
        await _change(store, item_ids=[BLUE, BLUE], new_item_ids=[BLUE_750, BLUE_750])

    assert await every_record(store) == before
    # Nothing was used up: the change can still be made, once.
    assert (await _change(store, item_ids=[BLUE], new_item_ids=[BLUE_750])).done
    assert await balance(store, PRIYA, PRIYA_GIFT_CARD) == Decimal("36.00")


REFUSALS: dict[str, tuple[dict[str, Any], ChangeRefusal]] = {
    "someone-elses-order": ({"customer_id": "C-1001"}, ChangeRefusal.ORDER_NOT_FOUND),
    "missing-order": ({"order_id": "999999"}, ChangeRefusal.ORDER_NOT_FOUND),
    "processed": (
        {"order_id": "100101", "customer_id": "C-1001", "item_ids": ["9000000101"]},
        ChangeRefusal.NOT_PENDING,
    ),
    "delivered": (
        {"order_id": "200201", "item_ids": ["9000000401"], "new_item_ids": ["9000000402"]},
        ChangeRefusal.NOT_PENDING,
    ),
    "no-items": ({"item_ids": [], "new_item_ids": []}, ChangeRefusal.NO_ITEMS),
    "more-units-than-ordered": (
        {"item_ids": [BLUE] * 4, "new_item_ids": [GREEN] * 4},
        ChangeRefusal.ITEMS_NOT_IN_ORDER,
    ),
    "item-not-in-order": (
        {"item_ids": [GREEN], "new_item_ids": [BLUE]},
        ChangeRefusal.ITEMS_NOT_IN_ORDER,
    ),
    "fewer-new-items": (
        {"item_ids": [BLUE, BLUE], "new_item_ids": [GREEN]},
        ChangeRefusal.ITEM_COUNT_DIFFERS,
    ),
    "same-item": ({"new_item_ids": [BLUE]}, ChangeRefusal.SAME_ITEM),
    "another-product": ({"new_item_ids": ["9000000201"]}, ChangeRefusal.NOT_THE_SAME_PRODUCT),
    "unknown-item": ({"new_item_ids": ["9999999999"]}, ChangeRefusal.NOT_THE_SAME_PRODUCT),
    "sold-out": ({"new_item_ids": [GREEN_750_SOLD_OUT]}, ChangeRefusal.ITEM_UNAVAILABLE),
    "someone-elses-card": (
        {"payment_method_id": "credit_card_9000101"},
        ChangeRefusal.PAYMENT_METHOD_NOT_FOUND,
    ),
    "unknown-method": (
        {"payment_method_id": "gift_card_0000000"},
        ChangeRefusal.PAYMENT_METHOD_NOT_FOUND,
    ),
    "sold-out-in-a-later-pair": (
        {
            "order_id": PENDING,
            "customer_id": CUSTOMER_ID,
            "item_ids": [MUG_RED.item_id, KETTLE_GLASS.item_id],
            "new_item_ids": [MUG_WHITE.item_id, KETTLE_IRON.item_id],
            "payment_method_id": CREDIT_CARD,
        },
        ChangeRefusal.ITEM_UNAVAILABLE,
    ),
    "gift-card-short": (
        {
            "order_id": PENDING,
            "customer_id": CUSTOMER_ID,
            "item_ids": [KETTLE_GLASS.item_id] * 2,
            "new_item_ids": [KETTLE_STEEL.item_id] * 2,
            "payment_method_id": GIFT_CARD,
        },
        ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW,
    ),
}


@pytest.mark.parametrize(("change", "refusal"), REFUSALS.values(), ids=REFUSALS.keys())
async def test_a_refused_change_changes_nothing(
    store: Store, change: dict[str, Any], refusal: ChangeRefusal
) -> None:
    await add_retail_account(store)
    before = await every_record(store)

    result = await _change(store, **change)

    assert result == Changed.refused(refusal)
    assert await every_record(store) == before


async def test_a_pending_orders_items_change_once(store: Store) -> None:
    assert (await _change(store)).done
    after_first = await every_record(store)

    # Any other unit, by any call, to any variant.
    again = await _change(store, new_item_ids=[BLUE_750], call_id="call-2")

    assert again == Changed.refused(ChangeRefusal.ITEMS_ALREADY_CHANGED)
    assert await every_record(store) == after_first


async def test_two_changes_of_one_order_at_once_change_it_once(store: Store) -> None:
    results = await asyncio.gather(
        *(
            _change(store, item_ids=[BLUE] * 3, new_item_ids=[BLUE_750] * 3, call_id=f"call-{n}")
            for n in range(2)
        )
    )

    assert sorted(str(result.refusal) for result in results) == [
        "None",
        str(ChangeRefusal.ITEMS_ALREADY_CHANGED),
    ]
    order = await _stored(store, BOTTLES)
    assert order.items == (_bottles(BLUE_750, 3),)
    assert len(order.payments) == 2
    assert await balance(store, PRIYA, PRIYA_GIFT_CARD) == Decimal("28.00")
    assert len(await store.audit_events(kind="order_items_changed")) == 1


async def test_two_changes_spending_one_gift_card_at_once_spend_it_once(store: Store) -> None:
    # Each change costs 5.20 more; the card covers one of them.
    await add_retail_account(store, gift_card_balance="6.00")
    orders = [PENDING, *PENDING_KETTLES]

    results = await asyncio.gather(
        *(
            _change(
                store,
                order_id=order_id,
                customer_id=CUSTOMER_ID,
                item_ids=[KETTLE_GLASS.item_id],
                new_item_ids=[KETTLE_STEEL.item_id],
                payment_method_id=GIFT_CARD,
                call_id=f"call-{order_id}",
            )
            for order_id in orders
        )
    )

    assert sorted(str(result.refusal) for result in results) == [
        "None",
        *[str(ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW)] * 3,
    ]
    assert await balance(store, CUSTOMER_ID, GIFT_CARD) == Decimal("0.80")
    statuses = sorted([(await _stored(store, order_id)).status for order_id in orders])
    assert statuses == [OrderStatus.PENDING] * 3 + [OrderStatus.PENDING_ITEMS_MODIFIED]
    assert len(await store.audit_events(kind="order_items_changed")) == 1
