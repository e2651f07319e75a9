"""`Store.change_order_payment`: a pending order paid once is paid by another method of the
customer's instead, the old one refunded and gift cards debited or credited at once; every
refusal changes nothing, and money moves once however many calls race."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from customer_service.domain import Order, OrderStatus, Transaction, TransactionKind
from customer_service.store import AuditEvent, CancellationOutcome, Store
from customer_service.store.order_changes import Changed, ChangeRefusal
from support.store_records import customer_records, save_orders, stored_order

PRIYA = "C-1002"
GIFT_CARD = "gift_card_9000202"
"""Priya's gift card, 40.00 as seeded; it paid 72.00 for her pending order 200202."""
PAYPAL = "paypal_9000201"


def _payment(amount: str, method_id: str) -> Transaction:
    return Transaction(kind=TransactionKind.PAYMENT, amount=Decimal(amount), method_id=method_id)


def _refund(amount: str, method_id: str) -> Transaction:
    return Transaction(kind=TransactionKind.REFUND, amount=Decimal(amount), method_id=method_id)


async def _change(
    store: Store,
    method_id: str,
    *,
    order_id: str = "200202",
    customer_id: str = PRIYA,
    call_id: str = "call-1",
) -> Changed[Order]:
    return await store.change_order_payment(
        order_id=order_id, customer_id=customer_id, payment_method_id=method_id, call_id=call_id
    )


async def _balance(store: Store) -> Decimal | None:
    methods = {method.method_id: method for method in await store.payment_methods(PRIYA)}
    return methods[GIFT_CARD].balance


async def _paid_by_paypal(store: Store, order_id: str, amount: str) -> Order:
    """A pending order of Priya's like 200202, paid `amount` by PayPal."""
    order = (await stored_order(store, "200202")).model_copy(
        update={"order_id": order_id, "payments": (_payment(amount, PAYPAL),)}
    )
    await save_orders(store, order)
    return order


async def test_paying_by_paypal_instead_refunds_the_gift_card_at_once(store: Store) -> None:
    before = await stored_order(store, "200202")

    changed = await _change(store, PAYPAL)

    assert changed == Changed(
        before.model_copy(
            update={
                "payments": (
                    _payment("72.00", GIFT_CARD),
                    _payment("72.00", PAYPAL),
                    _refund("72.00", GIFT_CARD),
                )
            }
        )
    )
    assert await store.get_order("200202") == changed.record
    assert await _balance(store) == Decimal("112.00")
    [event] = await store.audit_events()
    assert event == AuditEvent(
        call_id="call-1",
        kind="order_payment_changed",
        customer_id=PRIYA,
        order_id="200202",
        detail={"amount": "72.00", "old_method_id": GIFT_CARD, "new_method_id": PAYPAL},
        created_at=event.created_at,
    )


async def test_a_gift_card_that_covers_the_order_pays_for_it(store: Store) -> None:
    await _paid_by_paypal(store, "200203", "24.00")

    changed = await _change(store, GIFT_CARD, order_id="200203")

    assert changed.done
    assert changed.record is not None
    assert changed.record.payments == (
        _payment("24.00", PAYPAL),
        _payment("24.00", GIFT_CARD),
        _refund("24.00", PAYPAL),
    )
    assert await _balance(store) == Decimal("16.00")


async def test_an_order_whose_items_changed_may_change_its_payment(store: Store) -> None:
    order = await stored_order(store, "200202")
    await save_orders(
        store, order.model_copy(update={"status": OrderStatus.PENDING_ITEMS_MODIFIED})
    )

    changed = await _change(store, PAYPAL)

    assert changed.done
    assert changed.record is not None
    assert changed.record.status is OrderStatus.PENDING_ITEMS_MODIFIED


async def _assert_refused(
    store: Store, refusal: ChangeRefusal, method_id: str, **where: str
) -> None:
    before = [await customer_records(store, customer) for customer in ("C-1001", PRIYA)]
    events = await store.audit_events()

    assert await _change(store, method_id, **where) == Changed.refused(refusal)

    assert [await customer_records(store, customer) for customer in ("C-1001", PRIYA)] == before
    assert await store.audit_events() == events


@pytest.mark.parametrize(
    ("order_id", "customer_id"),
    [("200202", "C-1001"), ("999999", PRIYA)],
    ids=["someone-elses", "missing"],
)
async def test_someone_elses_or_a_missing_order_is_not_found(
    store: Store, order_id: str, customer_id: str
) -> None:
    await _assert_refused(
        store,
        ChangeRefusal.ORDER_NOT_FOUND,
        PAYPAL,
        order_id=order_id,
        customer_id=customer_id,
    )


@pytest.mark.parametrize(
    "status",
    [OrderStatus.PROCESSED, OrderStatus.DELIVERED, OrderStatus.CANCELLED],
)
async def test_an_order_no_longer_pending_keeps_its_payment(
    store: Store, status: OrderStatus
) -> None:
    order = await stored_order(store, "200202")
    await save_orders(store, order.model_copy(update={"status": status}))

    await _assert_refused(store, ChangeRefusal.NOT_PENDING, PAYPAL)


@pytest.mark.parametrize(
    "method_id", ["credit_card_9000101", "paypal_0000000"], ids=["someone-elses", "unknown"]
)
async def test_a_method_that_is_not_the_customers_is_not_found(
    store: Store, method_id: str
) -> None:
    await _assert_refused(store, ChangeRefusal.PAYMENT_METHOD_NOT_FOUND, method_id)


async def test_the_method_that_paid_is_no_change(store: Store) -> None:
    await _assert_refused(store, ChangeRefusal.SAME_PAYMENT_METHOD, GIFT_CARD)


async def test_a_gift_card_that_does_not_cover_the_order_is_refused(store: Store) -> None:
    await _paid_by_paypal(store, "200203", "40.01")

    await _assert_refused(
        store, ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW, GIFT_CARD, order_id="200203"
    )


async def test_an_order_paid_in_two_parts_is_not_one_payment(store: Store) -> None:
    order = await stored_order(store, "200202")
    split = (_payment("50.00", PAYPAL), _payment("22.00", GIFT_CARD))
    await save_orders(store, order.model_copy(update={"payments": split}))

    await _assert_refused(store, ChangeRefusal.NOT_ONE_PAYMENT, GIFT_CARD)


async def test_a_payment_changes_once(store: Store) -> None:
    assert (await _change(store, PAYPAL)).done

    # Paid, then refunded: the order is no longer paid once, back or forth.
    await _assert_refused(store, ChangeRefusal.NOT_ONE_PAYMENT, GIFT_CARD)
    assert await _balance(store) == Decimal("112.00")


async def test_audit_events_kept_by_the_call_are_written_with_a_refusal(store: Store) -> None:
    kept = AuditEvent(call_id="call-1", kind="order_disclosed", order_id="200202")

    refused = await store.change_order_payment(
        order_id="200202",
        customer_id=PRIYA,
        payment_method_id=GIFT_CARD,
        call_id="call-1",
        other_events=[kept],
    )

    assert refused == Changed.refused(ChangeRefusal.SAME_PAYMENT_METHOD)
    assert await store.audit_events() == [kept]


async def test_concurrent_changes_of_one_order_move_the_money_once(store: Store) -> None:
    results = await asyncio.gather(
        *(_change(store, PAYPAL, call_id=f"call-{number}") for number in range(5))
    )

    assert sorted(str(result.refusal) for result in results) == sorted(
        ["None"] + [str(ChangeRefusal.NOT_ONE_PAYMENT)] * 4
    )
    assert await _balance(store) == Decimal("112.00")
    assert len((await stored_order(store, "200202")).payments) == 3
    assert len(await store.audit_events(kind="order_payment_changed")) == 1


async def test_one_gift_card_pays_for_only_one_of_two_orders_it_cannot_both_cover(
    store: Store,
) -> None:
    await _paid_by_paypal(store, "200203", "24.00")
    await _paid_by_paypal(store, "200204", "24.00")

    results = await asyncio.gather(
        _change(store, GIFT_CARD, order_id="200203", call_id="call-1"),
        _change(store, GIFT_CARD, order_id="200204", call_id="call-2"),
    )

    assert sorted(str(result.refusal) for result in results) == [
        "None",
        str(ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW),
    ]
    assert await _balance(store) == Decimal("16.00")
    assert len(await store.audit_events(kind="order_payment_changed")) == 1


async def test_an_order_paid_another_way_then_cancelled_is_refunded_once(store: Store) -> None:
    # Gift card 72 -> PayPal: the gift card is credited at the change. Cancelling then
    # gives back what is still paid, 72 to PayPal, and never the gift card's 72 again.
    assert (await _change(store, PAYPAL)).done
    assert await _balance(store) == Decimal("112.00")
    outcome, cancelled = await store.cancel_order(
        order_id="200202", customer_id=PRIYA, reason=None, call_id="call-2"
    )
    assert outcome is CancellationOutcome.CANCELLED
    assert cancelled is not None
    assert cancelled.status is OrderStatus.CANCELLED
    assert cancelled.payments[3:] == (_refund("72.00", PAYPAL),)
    assert await _balance(store) == Decimal("112.00")
