"""`Store.exchange_order_items`: units of a delivered order are asked for as other
available variants of their products, once; the price difference is recorded with the
request and moves no money until the exchange is fulfilled."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pytest

from customer_service.domain import ExchangeRequest, Order, OrderStatus
from customer_service.store import AuditEvent, Store
from customer_service.store.order_changes import Changed, ChangeRefusal
from support.retail_account import (
    CREDIT_CARD,
    CUSTOMER_ID,
    DELIVERED,
    GIFT_CARD,
    KETTLE_GLASS,
    KETTLE_IRON,
    KETTLE_STEEL,
    MUG_RED,
    MUG_WHITE,
    add_retail_account,
    balance,
    every_record,
    stored_balance,
)

PRIYA = "C-1002"
YOGA = "200201"
"""Priya's delivered order: a 4 mm cork mat (68.00) and two cork blocks (14.50 each),
paid by PayPal."""
PAYPAL = "paypal_9000201"
PRIYA_GIFT_CARD = "gift_card_9000202"
MAT_4MM = "9000000401"
MAT_6MM = "9000000402"
CORK_BLOCK = "9000000501"
FOAM_BLOCK = "9000000502"


async def _exchange(
    store: Store,
    *,
    order_id: str = YOGA,
    customer_id: str = PRIYA,
    item_ids: Sequence[str] = (CORK_BLOCK, CORK_BLOCK),
    new_item_ids: Sequence[str] = (FOAM_BLOCK, FOAM_BLOCK),
    payment_method_id: str = PAYPAL,
    call_id: str = "call-1",
) -> Changed[Order]:
    return await store.exchange_order_items(
        order_id=order_id,
        customer_id=customer_id,
        item_ids=item_ids,
        new_item_ids=new_item_ids,
        payment_method_id=payment_method_id,
        call_id=call_id,
    )


async def _stored(store: Store, order_id: str) -> Order:
    order = await store.get_order(order_id)
    assert order is not None
    return order


async def test_an_exchange_is_requested_with_its_price_difference_and_moves_no_money(
    store: Store,
) -> None:
    before = await _stored(store, YOGA)

    result = await _exchange(store)

    assert result.done
    order = await _stored(store, YOGA)
    assert result.record == order
    assert order == before.model_copy(
        update={
            "status": OrderStatus.EXCHANGE_REQUESTED,
            "exchange": ExchangeRequest(
                item_ids=(CORK_BLOCK, CORK_BLOCK),
                new_item_ids=(FOAM_BLOCK, FOAM_BLOCK),
                method_id=PAYPAL,
                price_difference=Decimal("-10.00"),
            ),
        }
    )
    # The items and payments are as delivered until the exchange is fulfilled.
    assert (order.items, order.payments) == (before.items, before.payments)
    [recorded] = await store.audit_events()
    assert recorded == AuditEvent(
        call_id="call-1",
        kind="order_exchange_requested",
        customer_id=PRIYA,
        order_id=YOGA,
        detail={
            "items": 2,
            "item_ids": [CORK_BLOCK, CORK_BLOCK],
            "new_item_ids": [FOAM_BLOCK, FOAM_BLOCK],
            "payment_method_id": PAYPAL,
            "price_difference_cents": -1000,
        },
        created_at=recorded.created_at,
    )


async def test_the_request_lists_the_ids_sorted_as_tau2_bench_does(store: Store) -> None:
    await add_retail_account(store)

    result = await _exchange(
        store,
        order_id=DELIVERED,
        customer_id=CUSTOMER_ID,
        item_ids=[MUG_RED.item_id, KETTLE_GLASS.item_id],
        new_item_ids=[MUG_WHITE.item_id, KETTLE_STEEL.item_id],
        payment_method_id=CREDIT_CARD,
    )

    assert result.record is not None
    assert result.record.exchange == ExchangeRequest(
        item_ids=(KETTLE_GLASS.item_id, MUG_RED.item_id),
        new_item_ids=(KETTLE_STEEL.item_id, MUG_WHITE.item_id),
        method_id=CREDIT_CARD,
        price_difference=Decimal("2.70"),
    )


async def test_a_unit_may_be_exchanged_for_the_same_item(store: Store) -> None:
    result = await _exchange(store, item_ids=[MAT_4MM], new_item_ids=[MAT_4MM])

    assert result.record is not None
    assert result.record.status is OrderStatus.EXCHANGE_REQUESTED
    assert result.record.exchange is not None
    assert result.record.exchange.price_difference == Decimal("0.00")


async def test_a_gift_card_that_covers_the_difference_keeps_its_balance_but_holds_it(
    store: Store,
) -> None:
    await add_retail_account(store, gift_card_balance="10.40")

    result = await _exchange(
        store,
        order_id=DELIVERED,
        customer_id=CUSTOMER_ID,
        item_ids=[KETTLE_GLASS.item_id] * 2,
        new_item_ids=[KETTLE_STEEL.item_id] * 2,
        payment_method_id=GIFT_CARD,
    )

    assert result.done
    # No money moves until the exchange settles, but what it will pay is no longer free.
    assert await stored_balance(store, CUSTOMER_ID, GIFT_CARD) == Decimal("10.40")
    assert await balance(store, CUSTOMER_ID, GIFT_CARD) == Decimal("0.00")


REFUSALS: dict[str, tuple[dict[str, Any], ChangeRefusal]] = {
    "someone-elses-order": ({"customer_id": "C-1001"}, ChangeRefusal.ORDER_NOT_FOUND),
    "missing-order": ({"order_id": "999999"}, ChangeRefusal.ORDER_NOT_FOUND),
    "pending": (
        {"order_id": "200202", "item_ids": ["9000000601"], "new_item_ids": ["9000000603"]},
        ChangeRefusal.NOT_DELIVERED,
    ),
    "processed": (
        {"order_id": "100101", "customer_id": "C-1001", "item_ids": ["9000000101"]},
        ChangeRefusal.NOT_DELIVERED,
    ),
    "no-items": ({"item_ids": [], "new_item_ids": []}, ChangeRefusal.NO_ITEMS),
    "more-units-than-delivered": (
        {"item_ids": [CORK_BLOCK] * 3, "new_item_ids": [FOAM_BLOCK] * 3},
        ChangeRefusal.ITEMS_NOT_IN_ORDER,
    ),
    "item-not-in-order": (
        {"item_ids": [MAT_6MM], "new_item_ids": [MAT_4MM]},
        ChangeRefusal.ITEMS_NOT_IN_ORDER,
    ),
    "fewer-new-items": ({"new_item_ids": [FOAM_BLOCK]}, ChangeRefusal.ITEM_COUNT_DIFFERS),
    "another-product": (
        {"item_ids": [CORK_BLOCK], "new_item_ids": [MAT_6MM]},
        ChangeRefusal.NOT_THE_SAME_PRODUCT,
    ),
    "unavailable": (
        {
            "order_id": DELIVERED,
            "customer_id": CUSTOMER_ID,
            "item_ids": [KETTLE_GLASS.item_id],
            "new_item_ids": [KETTLE_IRON.item_id],
            "payment_method_id": CREDIT_CARD,
        },
        ChangeRefusal.ITEM_UNAVAILABLE,
    ),
    "someone-elses-card": (
        {"payment_method_id": "credit_card_9000101"},
        ChangeRefusal.PAYMENT_METHOD_NOT_FOUND,
    ),
    "gift-card-short": (
        {
            "order_id": DELIVERED,
            "customer_id": CUSTOMER_ID,
            "item_ids": [KETTLE_GLASS.item_id] * 2,
            "new_item_ids": [KETTLE_STEEL.item_id] * 2,
            "payment_method_id": GIFT_CARD,
        },
        ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW,
    ),
}


@pytest.mark.parametrize(("exchange", "refusal"), REFUSALS.values(), ids=REFUSALS.keys())
async def test_a_refused_exchange_changes_nothing(
    store: Store, exchange: dict[str, Any], refusal: ChangeRefusal
) -> None:
    await add_retail_account(store)
    before = await every_record(store)

    result = await _exchange(store, **exchange)

    assert result == Changed.refused(refusal)
    assert await every_record(store) == before


async def test_a_delivered_order_is_exchanged_once(store: Store) -> None:
    assert (await _exchange(store)).done
    after_first = await every_record(store)

    # Other units, by another call: the order is no longer delivered.
    again = await _exchange(store, item_ids=[MAT_4MM], new_item_ids=[MAT_6MM], call_id="call-2")

    assert again == Changed.refused(ChangeRefusal.NOT_DELIVERED)
    assert await every_record(store) == after_first


async def test_exchanges_of_one_order_at_once_request_one(store: Store) -> None:
    results = await asyncio.gather(
        *(
            _exchange(
                store,
                item_ids=[MAT_4MM],
                new_item_ids=[MAT_6MM],
                payment_method_id=PRIYA_GIFT_CARD,
                call_id=f"call-{n}",
            )
            for n in range(4)
        )
    )

    assert sorted(str(result.refusal) for result in results) == [
        "None",
        *[str(ChangeRefusal.NOT_DELIVERED)] * 3,
    ]
    order = await _stored(store, YOGA)
    assert order.status is OrderStatus.EXCHANGE_REQUESTED
    assert len(await store.audit_events(kind="order_exchange_requested")) == 1
