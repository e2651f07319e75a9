"""`Store.request_return`: once per order, with its audit event (counts and the reason
category only), for the owner's delivered order within the return window."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.domain import (
    Order,
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    ReturnedItems,
    Transaction,
    TransactionKind,
    value_of,
)
from customer_service.store import (
    RETURN_WINDOW_DAYS,
    AuditEvent,
    ReturnOutcome,
    ReturnReason,
    ReturnRequest,
    Store,
    StoreUnavailable,
    last_return_day,
    return_refusal,
)
from customer_service.store import returns as returns_module
from customer_service.store.order_changes import Heard
from customer_service.store.orders import order_to_row
from customer_service.testing import open_demo_store
from support.faults import fail_writes
from support.store_records import customer_records, save_orders, save_payment_methods

DELIVERED = "200201"
"""The demo's delivered order, Priya's (C-1002): a yoga mat and two yoga blocks."""
OWNER = "C-1002"
MAT = "9000000401"
BLOCK = "9000000501"
PAYPAL = "paypal_9000201"
"""What paid for the delivered order."""
GIFT_CARD = "gift_card_9000202"


async def _delivered_order(store: Store, order_id: str = DELIVERED) -> Order:
    order = await store.get_order(order_id)
    assert order is not None
    assert order.delivered_on is not None
    return order


async def _days_after_delivery(store: Store, days: int) -> dt.datetime:
    """Noon UTC `days` days after the demo order's delivery, whatever day it was seeded."""
    delivered_on = (await _delivered_order(store)).delivered_on
    assert delivered_on is not None
    return dt.datetime.combine(delivered_on + dt.timedelta(days=days), dt.time(12), dt.UTC)


async def _request(
    store: Store,
    *,
    order_id: str = DELIVERED,
    customer_id: str = OWNER,
    items: Sequence[int] = (0, 1),
    reason: ReturnReason = ReturnReason.DAMAGED,
    call_id: str = "call-1",
    day: int = 3,
    now: dt.datetime | None = None,
    other_events: Sequence[AuditEvent] = (),
) -> tuple[ReturnOutcome, ReturnRequest | None]:
    return await store.request_return(
        order_id=order_id,
        customer_id=customer_id,
        item_indices=items,
        reason=reason,
        call_id=call_id,
        now=now or await _days_after_delivery(store, day),
        other_events=other_events,
    )


async def _assert_nothing_written(store: Store) -> None:
    assert await store.return_requests() == []
    assert await store.audit_events() == []


async def test_request_stores_the_request_and_an_audit_event_with_counts_only(
    store: Store,
) -> None:
    before = await _delivered_order(store)
    now = await _days_after_delivery(store, 3)

    outcome, request = await _request(store, items=(1, 0), reason=ReturnReason.NOT_AS_DESCRIBED)

    assert outcome is ReturnOutcome.REQUESTED
    assert request is not None
    assert request == ReturnRequest(
        return_number=request.return_number,
        order_id=DELIVERED,
        customer_id=OWNER,
        item_indices=(0, 1),
        reason=ReturnReason.NOT_AS_DESCRIBED,
        call_id="call-1",
        created_at=now,
    )
    assert re.fullmatch(r"[1-9]\d{7}", request.return_number)
    assert await store.return_requests(order_id=DELIVERED) == [request]
    assert await store.audit_events() == [
        AuditEvent(
            call_id="call-1",
            kind="return_requested",
            customer_id=OWNER,
            order_id=DELIVERED,
            detail={
                "items": 2,
                "reason": "not_as_described",
                "refund_method_id": "paypal_9000201",
                "refund": str(value_of(before.items[:2])),
            },
            created_at=now,
        )
    ]


async def test_the_order_is_return_requested_naming_each_unit_and_the_refunds_method(
    store: Store,
) -> None:
    before = await _delivered_order(store)

    outcome, _ = await _request(store, items=(0, 1))

    assert outcome is ReturnOutcome.REQUESTED
    # The yoga mat and both of the two yoga blocks, refunded to the PayPal that paid.
    returned = ReturnedItems(item_ids=(MAT, BLOCK, BLOCK), method_id=PAYPAL)
    assert await store.get_order(DELIVERED) == before.model_copy(
        update={"status": OrderStatus.RETURN_REQUESTED, "returned": returned}
    )


async def test_a_return_may_be_refunded_to_a_gift_card_of_the_customers(store: Store) -> None:
    methods = await store.payment_methods(OWNER)

    outcome, _ = await store.request_return(
        order_id=DELIVERED,
        customer_id=OWNER,
        item_indices=[1],
        reason=ReturnReason.DAMAGED,
        call_id="call-1",
        refund_method_id=GIFT_CARD,
        now=await _days_after_delivery(store, 3),
    )

    assert outcome is ReturnOutcome.REQUESTED
    order = await _delivered_order(store)
    assert order.returned == ReturnedItems(item_ids=(BLOCK, BLOCK), method_id=GIFT_CARD)
    # The refund is owed once the items are back: no balance moves on the request.
    assert await store.payment_methods(OWNER) == methods
    [event] = await store.audit_events()
    assert event.detail["refund_method_id"] == GIFT_CARD


@pytest.mark.parametrize(
    "method_id",
    ["credit_card_9000299", "credit_card_9000101", "paypal_0000000"],
    ids=["another-of-hers", "someone-elses", "unknown"],
)
async def test_a_refund_to_neither_the_method_that_paid_nor_a_gift_card_is_refused(
    store: Store, method_id: str
) -> None:
    card = PaymentMethod(
        method_id="credit_card_9000299",
        kind=PaymentKind.CREDIT_CARD,
        brand="visa",
        last_four="1881",
    )
    await save_payment_methods(store, OWNER, card)
    before = await customer_records(store, OWNER)

    outcome, request = await store.request_return(
        order_id=DELIVERED,
        customer_id=OWNER,
        item_indices=[0],
        reason=ReturnReason.DAMAGED,
        call_id="call-1",
        refund_method_id=method_id,
        now=await _days_after_delivery(store, 3),
    )

    assert (outcome, request) == (ReturnOutcome.REFUND_METHOD_NOT_ALLOWED, None)
    assert await customer_records(store, OWNER) == before
    await _assert_nothing_written(store)


async def _paid_then_moved_to_the_gift_card(store: Store) -> Order:
    """The delivered order as a payment change leaves it: paid by PayPal, then by the gift
    card, and PayPal refunded in full."""
    order = await _delivered_order(store)
    [paid] = order.payments
    moved = order.model_copy(
        update={
            "payments": (
                paid,
                Transaction(kind=TransactionKind.PAYMENT, amount=paid.amount, method_id=GIFT_CARD),
                Transaction(kind=TransactionKind.REFUND, amount=paid.amount, method_id=PAYPAL),
            )
        }
    )
    await save_orders(store, moved)
    return moved


async def test_after_a_payment_change_the_refund_goes_to_the_method_that_pays_now(
    store: Store,
) -> None:
    moved = await _paid_then_moved_to_the_gift_card(store)

    refused = await store.request_return(
        order_id=DELIVERED,
        customer_id=OWNER,
        item_indices=[0],
        reason=ReturnReason.DAMAGED,
        call_id="call-1",
        refund_method_id=PAYPAL,
        now=await _days_after_delivery(store, 3),
    )
    # PayPal was paid back in full by the change: it holds none of the order's money.
    assert refused == (ReturnOutcome.REFUND_METHOD_NOT_ALLOWED, None)

    outcome, _ = await _request(store, items=(0,))

    assert outcome is ReturnOutcome.REQUESTED
    returned = await _delivered_order(store)
    assert returned.returned == ReturnedItems(item_ids=(MAT,), method_id=GIFT_CARD)
    [event] = await store.audit_events()
    assert event.detail["refund"] == str(value_of(moved.items[:1]))


@pytest.mark.parametrize("what", ["payments", "items", "amount"])
async def test_a_return_not_as_the_caller_heard_it_is_refused_and_nothing_written(
    store: Store, what: str
) -> None:
    order = await _delivered_order(store)
    heard = Heard(payments=order.payments, items=order.items, amount=value_of(order.items[:1]))
    if what == "payments":
        await _paid_then_moved_to_the_gift_card(store)
    elif what == "items":
        heard = Heard(payments=order.payments, items=order.items[:1], amount=heard.amount)
    else:
        heard = Heard(payments=order.payments, items=order.items, amount=Decimal("1.00"))

    outcome = await store.request_return(
        order_id=DELIVERED,
        customer_id=OWNER,
        item_indices=[0],
        reason=ReturnReason.DAMAGED,
        call_id="call-1",
        heard=heard,
        now=await _days_after_delivery(store, 3),
    )

    assert outcome == (ReturnOutcome.CHANGED_SINCE_READ_BACK, None)
    await _assert_nothing_written(store)


async def test_an_order_delivered_on_no_known_day_has_no_window(store: Store) -> None:
    undated = (await _delivered_order(store)).model_copy(update={"delivered_on": None})
    await save_orders(store, undated)

    outcome, request = await store.request_return(
        order_id=DELIVERED,
        customer_id=OWNER,
        item_indices=[0],
        reason=ReturnReason.OTHER,
        call_id="call-1",
        now=dt.datetime.now(dt.UTC) + dt.timedelta(days=400),
    )

    assert outcome is ReturnOutcome.REQUESTED
    assert request is not None


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        (0, ReturnOutcome.REQUESTED),
        (RETURN_WINDOW_DAYS, ReturnOutcome.REQUESTED),
        (RETURN_WINDOW_DAYS + 1, ReturnOutcome.OUTSIDE_WINDOW),
    ],
    ids=["delivery-day", "day-30", "day-31"],
)
async def test_the_window_ends_thirty_days_after_delivery(
    store: Store, day: int, expected: ReturnOutcome
) -> None:
    outcome, request = await _request(store, day=day)

    assert outcome is expected
    stored = await store.return_requests()
    assert stored == ([] if request is None else [request])
    assert len(await store.audit_events()) == len(stored)


async def test_the_window_is_counted_in_the_timezone_of_now(store: Store) -> None:
    # 23:30 in Los Angeles on day 30 is already day 31 in UTC: the given clock decides.
    late_on_day_30 = (await _days_after_delivery(store, RETURN_WINDOW_DAYS)).replace(
        hour=23, minute=30, tzinfo=dt.timezone(dt.timedelta(hours=-8))
    )

    outcome, _ = await store.request_return(
        order_id=DELIVERED,
        customer_id=OWNER,
        item_indices=[0],
        reason=ReturnReason.OTHER,
        call_id="call-1",
        now=late_on_day_30,
    )

    assert outcome is ReturnOutcome.REQUESTED


async def test_return_refusal_is_the_stores_rule_without_the_store(store: Store) -> None:
    order = await _delivered_order(store)
    assert order.delivered_on is not None
    delivered_on = order.delivered_on

    assert last_return_day(delivered_on) == delivered_on + dt.timedelta(days=30)
    assert return_refusal(order, delivered_on) is None
    assert return_refusal(order, last_return_day(delivered_on)) is None
    assert return_refusal(order, last_return_day(delivered_on) + dt.timedelta(days=1)) is (
        ReturnOutcome.OUTSIDE_WINDOW
    )
    for status in (OrderStatus.PENDING, OrderStatus.PROCESSED, OrderStatus.CANCELLED):
        assert return_refusal(order.model_copy(update={"status": status}), delivered_on) is (
            ReturnOutcome.NOT_DELIVERED
        )
    # Delivered without a delivery day (τ²-bench's orders have none): no window closes.
    undated = order.model_copy(update={"delivered_on": None})
    assert return_refusal(undated, delivered_on + dt.timedelta(days=400)) is None


@pytest.mark.parametrize(
    ("order_id", "customer_id"),
    [("100101", "C-1001"), ("100102", "C-1001")],
    ids=["shipped", "processing"],
)
async def test_an_order_not_delivered_is_refused_and_nothing_written(
    store: Store, order_id: str, customer_id: str
) -> None:
    outcome, request = await _request(store, order_id=order_id, customer_id=customer_id, items=[0])

    assert (outcome, request) == (ReturnOutcome.NOT_DELIVERED, None)
    await _assert_nothing_written(store)


@pytest.mark.parametrize(
    ("order_id", "customer_id", "day"),
    [
        (DELIVERED, "C-1001", 3),  # Priya's delivered order, asked for by Jordan
        (DELIVERED, "C-1001", RETURN_WINDOW_DAYS + 1),  # ... past its window
        ("200202", "C-1001", 3),  # Priya's order not yet delivered
        ("999999", OWNER, 3),
        (DELIVERED, "C-9999", 3),  # no such customer
    ],
    ids=["others", "others-outside-window", "others-not-delivered", "missing", "no-customer"],
)
async def test_another_customers_or_a_missing_order_is_not_found(
    store: Store, order_id: str, customer_id: str, day: int
) -> None:
    outcome, request = await _request(store, order_id=order_id, customer_id=customer_id, day=day)

    assert (outcome, request) == (ReturnOutcome.ORDER_NOT_FOUND, None)
    await _assert_nothing_written(store)


async def test_another_customers_requested_order_is_not_found_either(store: Store) -> None:
    await _request(store)
    before = (await store.return_requests(), await store.audit_events())

    # "Already requested" would tell Jordan that Priya's order exists.
    outcome, request = await _request(store, customer_id="C-1001", call_id="call-2")

    assert (outcome, request) == (ReturnOutcome.ORDER_NOT_FOUND, None)
    assert (await store.return_requests(), await store.audit_events()) == before


async def test_a_second_request_for_the_order_is_already_requested(store: Store) -> None:
    _, first = await _request(store, items=[0])
    audit_before = await store.audit_events()

    # Other items, another call, a later day, even past the window: one request per order.
    for day in (4, RETURN_WINDOW_DAYS + 5):
        again = await _request(store, items=[1], call_id="call-2", day=day)
        assert again == (ReturnOutcome.ALREADY_REQUESTED, first)
    assert await store.return_requests() == [first]
    assert await store.audit_events() == audit_before


@pytest.mark.parametrize("items", [[2], [0, 5], [-1]], ids=["past-end", "one-of-two", "negative"])
async def test_positions_not_in_the_order_are_refused(store: Store, items: list[int]) -> None:
    outcome, request = await _request(store, items=items)

    assert (outcome, request) == (ReturnOutcome.ITEMS_NOT_IN_ORDER, None)
    await _assert_nothing_written(store)


@pytest.mark.parametrize("items", [[], [1, 1]], ids=["none", "repeated"])
async def test_no_items_or_a_repeated_item_is_a_programming_error(
    store: Store, items: list[int]
) -> None:
    with pytest.raises(ValueError, match="each returned item once"):
        await _request(store, items=items)
    await _assert_nothing_written(store)


@pytest.mark.parametrize(
    ("customer_id", "expected"),
    [(OWNER, ReturnOutcome.REQUESTED), ("C-1001", ReturnOutcome.ORDER_NOT_FOUND)],
    ids=["requested", "not-found"],
)
async def test_the_calls_kept_events_are_written_whatever_the_outcome(
    store: Store, customer_id: str, expected: ReturnOutcome
) -> None:
    kept = AuditEvent(call_id="call-1", kind="specialist_started", detail={"name": "returns"})

    outcome, _ = await _request(store, customer_id=customer_id, other_events=[kept])

    assert outcome is expected
    recorded = await store.audit_events()
    assert kept in recorded
    assert len(recorded) == (2 if expected is ReturnOutcome.REQUESTED else 1)


@contextmanager
def failing_second_insert(store: Store) -> Iterator[list[str]]:
    """Fails the second INSERT; yields the inserts attempted meanwhile."""
    inserts: list[str] = []

    def fail(connection: Connection, cursor: Any, statement: str, *args: Any) -> None:
        words = statement.split()
        if words[0].upper() == "INSERT":
            inserts.append(words[2].lower())
            if len(inserts) == 2:
                raise connection.dialect.loaded_dbapi.OperationalError("disk I/O error")

    engine = store.engine.sync_engine
    event.listen(engine, "before_cursor_execute", fail)
    try:
        yield inserts
    finally:
        event.remove(engine, "before_cursor_execute", fail)


async def test_the_request_and_its_audit_event_are_one_transaction(store: Store) -> None:
    with failing_second_insert(store) as inserts, pytest.raises(StoreUnavailable) as raised:
        await _request(store)

    assert str(raised.value) == "The store could not request a return."
    # One of the two inserts had run when the other failed; it was rolled back with it.
    assert sorted(inserts) == ["audit_events", "return_requests"]
    await _assert_nothing_written(store)
    # Nothing was used up: the request can still be made, once.
    outcome, request = await _request(store)
    assert outcome is ReturnOutcome.REQUESTED
    assert await store.return_requests() == [request]
    assert len(await store.audit_events(kind="return_requested")) == 1


async def test_a_write_failure_is_unavailable_and_writes_nothing(store: Store) -> None:
    undo = fail_writes(store)
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await _request(store)
    finally:
        undo()

    assert "database is locked" in str(raised.value.__cause__)
    await _assert_nothing_written(store)


async def test_concurrent_requests_for_one_order_store_one(store: Store) -> None:
    # Read first, so that the five write transactions start together.
    now = await _days_after_delivery(store, 3)
    results = await asyncio.gather(
        *(
            _request(store, items=[number % 2], call_id=f"call-{number}", now=now)
            for number in range(5)
        )
    )

    outcomes = sorted(outcome for outcome, _ in results)
    assert outcomes == sorted([ReturnOutcome.REQUESTED] + [ReturnOutcome.ALREADY_REQUESTED] * 4)
    [stored] = await store.return_requests()
    # Every call is told the one return number there is.
    assert {request for _, request in results} == {stored}
    assert len(await store.audit_events(kind="return_requested")) == 1


async def test_in_memory_store_serialises_concurrent_requests() -> None:
    async with await open_demo_store("sqlite+aiosqlite:///:memory:") as store:
        results = await asyncio.gather(*(_request(store, call_id=f"call-{n}") for n in range(3)))

        assert [outcome for outcome, _ in results].count(ReturnOutcome.REQUESTED) == 1
        assert len(await store.return_requests()) == 1


async def test_losing_a_race_after_the_check_is_already_requested(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    delivered = await _delivered_order(store)
    _, first = await _request(store)
    # The order still reads delivered (as one requested before orders recorded their
    # returns), and the check before the insert misses the request once, as when another
    # transaction commits one in between: the UNIQUE order_id must then decide.
    await save_orders(store, delivered)
    real_lookup = returns_module._request_for_order
    misses = [True]

    async def lookup_missing_once(session: AsyncSession, order_id: str) -> ReturnRequest | None:
        if misses:
            misses.pop()
            return None
        return await real_lookup(session, order_id)

    monkeypatch.setattr(returns_module, "_request_for_order", lookup_missing_once)

    assert await _request(store, call_id="call-2") == (ReturnOutcome.ALREADY_REQUESTED, first)
    assert misses == []
    assert await store.return_requests() == [first]
    assert len(await store.audit_events()) == 1


async def _add_delivered_orders(store: Store, count: int) -> list[str]:
    """`count` more delivered orders of Priya's, delivered with the demo one."""
    demo = await _delivered_order(store)
    orders = [demo.model_copy(update={"order_id": f"2099{n:02d}"}) for n in range(count)]
    async with AsyncSession(store.engine) as session, session.begin():
        session.add_all(order_to_row(order) for order in orders)
    return [order.order_id for order in orders]


async def test_return_numbers_are_unique_and_not_consecutive(store: Store) -> None:
    order_ids = [DELIVERED, *await _add_delivered_orders(store, 12)]

    numbers = []
    for order_id in order_ids:
        outcome, request = await _request(store, order_id=order_id)
        assert outcome is ReturnOutcome.REQUESTED
        assert request is not None
        numbers.append(request.return_number)

    assert len(set(numbers)) == len(numbers)
    # Not a count: a caller cannot work out another request's number from their own.
    gaps = {int(later) - int(earlier) for earlier, later in itertools.pairwise(numbers)}
    assert gaps != {1}


async def test_a_return_number_already_taken_is_drawn_again(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    [other_order] = await _add_delivered_orders(store, 1)
    _, first = await _request(store)
    assert first is not None
    drawn = iter([first.return_number, "55501234"])
    monkeypatch.setattr(returns_module, "new_return_number", lambda: next(drawn))

    outcome, second = await _request(store, order_id=other_order, call_id="call-2")

    assert outcome is ReturnOutcome.REQUESTED
    assert second is not None
    assert second.return_number == "55501234"
    assert await store.return_requests() == [first, second]
    assert len(await store.audit_events(kind="return_requested")) == 2


async def test_return_numbers_always_taken_give_up_and_write_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    [other_order] = await _add_delivered_orders(store, 1)
    _, first = await _request(store)
    assert first is not None
    monkeypatch.setattr(returns_module, "new_return_number", lambda: first.return_number)

    with pytest.raises(StoreUnavailable) as raised:
        await _request(store, order_id=other_order, call_id="call-2")

    assert str(raised.value) == "The store could not request a return."
    assert await store.return_requests() == [first]
    assert len(await store.audit_events()) == 1
