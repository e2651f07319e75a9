"""Money writes take what the caller heard as their precondition, and a gift card's
balance promised to a pending exchange is held: on SQLite and, under
`scripts/with-postgres`, PostgreSQL, one at a time and at once."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from customer_service.domain import (
    CancelReason,
    Order,
    OrderStatus,
    Transaction,
    TransactionKind,
)
from customer_service.store import CancellationOutcome, Store
from customer_service.store.order_changes import Changed, ChangeRefusal, Heard
from support.retail_account import (
    CREDIT_CARD,
    CUSTOMER_ID,
    DELIVERED,
    GIFT_CARD,
    KETTLE_GLASS,
    KETTLE_STEEL,
    PENDING_KETTLES,
    add_retail_account,
    balance,
    every_record,
    stored_balance,
)
from support.store_records import save_orders, stored_order

SECOND_DELIVERED = "#W8000006"
"""Delivered, as DELIVERED: two glass kettles and a red mug."""
UPGRADE = Decimal("5.20")
"""A glass kettle (94.80) for a steel one (100.00)."""


async def _with_second_delivered_order(store: Store, gift_card_balance: str) -> None:
    await add_retail_account(store, gift_card_balance=gift_card_balance)
    first = await stored_order(store, DELIVERED)
    await save_orders(store, first.model_copy(update={"order_id": SECOND_DELIVERED}))


def _exchange(store: Store, order_id: str, call_id: str) -> asyncio.Future[Changed[Order]]:
    return asyncio.ensure_future(
        store.exchange_order_items(
            order_id=order_id,
            customer_id=CUSTOMER_ID,
            item_ids=[KETTLE_GLASS.item_id],
            new_item_ids=[KETTLE_STEEL.item_id],
            payment_method_id=GIFT_CARD,
            call_id=call_id,
        )
    )


def _item_change(store: Store, call_id: str) -> asyncio.Future[Changed[Order]]:
    return asyncio.ensure_future(
        store.change_order_items(
            order_id=PENDING_KETTLES[0],
            customer_id=CUSTOMER_ID,
            item_ids=[KETTLE_GLASS.item_id],
            new_item_ids=[KETTLE_STEEL.item_id],
            payment_method_id=GIFT_CARD,
            call_id=call_id,
        )
    )


async def test_a_second_exchange_on_one_card_finds_the_first_ones_difference_held(
    store: Store,
) -> None:
    await _with_second_delivered_order(store, gift_card_balance="10.00")

    first = await _exchange(store, DELIVERED, "call-1")
    assert first.done
    assert await balance(store, CUSTOMER_ID, GIFT_CARD) == Decimal("10.00") - UPGRADE

    second = await _exchange(store, SECOND_DELIVERED, "call-2")

    assert second.refusal is ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW
    assert (await stored_order(store, SECOND_DELIVERED)).status is OrderStatus.DELIVERED
    assert await stored_balance(store, CUSTOMER_ID, GIFT_CARD) == Decimal("10.00")


@pytest.mark.parametrize("second", ["exchange", "item change"])
async def test_two_changes_on_one_card_at_once_take_it_once(store: Store, second: str) -> None:
    await _with_second_delivered_order(store, gift_card_balance="10.00")
    before = await every_record(store)

    other = (
        _exchange(store, SECOND_DELIVERED, "call-2")
        if second == "exchange"
        else _item_change(store, "call-2")
    )
    results = await asyncio.gather(_exchange(store, DELIVERED, "call-1"), other)

    assert sorted(str(result.refusal) for result in results) == [
        "None",
        str(ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW),
    ]
    # What the one that went through promised or took, and never more than the card had.
    free = await balance(store, CUSTOMER_ID, GIFT_CARD)
    assert free == Decimal("10.00") - UPGRADE
    assert before != await every_record(store)


async def test_a_payment_change_cannot_take_what_an_exchange_holds(store: Store) -> None:
    await add_retail_account(store, gift_card_balance="100.00")
    assert (await _exchange(store, DELIVERED, "call-1")).done

    # The pending kettle costs 94.80; 100.00 less the 5.20 held leaves 94.80 free.
    paid = await store.change_order_payment(
        order_id=PENDING_KETTLES[0],
        customer_id=CUSTOMER_ID,
        payment_method_id=GIFT_CARD,
        call_id="call-2",
    )
    assert paid.done
    assert await balance(store, CUSTOMER_ID, GIFT_CARD) == Decimal("0.00")

    refused = await store.change_order_payment(
        order_id=PENDING_KETTLES[1],
        customer_id=CUSTOMER_ID,
        payment_method_id=GIFT_CARD,
        call_id="call-3",
    )
    assert refused.refusal is ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW


async def test_a_swap_whose_price_changed_since_the_read_back_is_refused(store: Store) -> None:
    await add_retail_account(store, gift_card_balance="10.00")
    order = await stored_order(store, DELIVERED)
    # The caller heard the steel kettle cost 2.00 more; the catalog says 5.20 now.
    heard = Heard(payments=order.payments, items=order.items, amount=Decimal("2.00"))
    before = await every_record(store)

    for write in (store.exchange_order_items, store.change_order_items):
        changed = await write(
            order_id=DELIVERED if write == store.exchange_order_items else PENDING_KETTLES[0],
            customer_id=CUSTOMER_ID,
            item_ids=[KETTLE_GLASS.item_id],
            new_item_ids=[KETTLE_STEEL.item_id],
            payment_method_id=CREDIT_CARD,
            call_id="call-1",
            heard=heard,
        )
        assert changed.refusal is ChangeRefusal.CHANGED_SINCE_READ_BACK

    assert await every_record(store) == before


def _moved_to_gift_card(order: Order) -> Order:
    [paid] = order.payments
    by_gift_card, card_refund = (
        Transaction(kind=kind, amount=paid.amount, method_id=method_id)
        for kind, method_id in (
            (TransactionKind.PAYMENT, GIFT_CARD),
            (TransactionKind.REFUND, CREDIT_CARD),
        )
    )
    return order.model_copy(update={"payments": (paid, by_gift_card, card_refund)})


async def test_a_cancellation_of_an_order_paid_otherwise_since_the_read_back_is_refused(
    store: Store,
) -> None:
    await add_retail_account(store)
    order = await stored_order(store, PENDING_KETTLES[0])
    heard = Heard(payments=order.payments, items=order.items)
    # Another call pays it with the gift card before this caller's yes.
    await save_orders(store, _moved_to_gift_card(order))
    before = await every_record(store)

    outcome, _ = await store.cancel_order(
        order_id=order.order_id,
        customer_id=CUSTOMER_ID,
        reason=CancelReason.NO_LONGER_NEEDED,
        call_id="call-1",
        heard=heard,
    )

    assert outcome is CancellationOutcome.CHANGED_SINCE_READ_BACK
    assert await every_record(store) == before


async def test_a_payment_change_on_an_order_changed_since_the_read_back_is_refused(
    store: Store,
) -> None:
    await add_retail_account(store, gift_card_balance="500.00")
    order = await stored_order(store, PENDING_KETTLES[0])
    heard = Heard(payments=order.payments, items=order.items[:0])
    before = await every_record(store)

    changed = await store.change_order_payment(
        order_id=order.order_id,
        customer_id=CUSTOMER_ID,
        payment_method_id=GIFT_CARD,
        call_id="call-1",
        heard=heard,
    )

    assert changed.refusal is ChangeRefusal.CHANGED_SINCE_READ_BACK
    assert await every_record(store) == before
