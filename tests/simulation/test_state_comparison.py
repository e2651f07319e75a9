"""The comparison that grades a scenario by the state its call left: it fails, with a
reason that names the difference, whenever the store is not what the scenario expects.
A specialist's own expectation (its registration's `expects`) is tested with its tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from customer_service.domain import CancelReason, OrderStatus, PostalAddress
from customer_service.store import (
    CancellationOutcome,
    EscalationRecord,
    ReturnOutcome,
    ReturnReason,
    StoreUnavailable,
)
from customer_service.store.consents import ConsentRecord
from customer_service.store.tables import utc_now
from support.scenario_store import opened, scenario

MARKET_STREET = PostalAddress(
    street="1 Market Street",
    unit="Suite 5",
    city="San Francisco",
    region="CA",
    postal_code="94105",
    country="US",
)


async def test_a_wrong_expected_state_fails_with_its_reason(tmp_path: Path) -> None:
    # Deliberately wrong: the call changes nothing, the scenario expects a cancellation.
    expects_cancelled = scenario(
        expect={"orders": {"100102": {"status": "cancelled", "cancel_reason": "no longer needed"}}}
    )
    scenario_store = await opened(tmp_path, expects_cancelled)
    try:
        assert await scenario_store.differences() == [
            "order 100102: status is pending, expected cancelled",
            "order 100102: cancel_reason is None, expected no longer needed",
        ]
        outcome, _ = await scenario_store.store.cancel_order(
            order_id="100102",
            customer_id="C-1001",
            reason=CancelReason.NO_LONGER_NEEDED,
            call_id="call-1",
        )
        assert outcome is CancellationOutcome.CANCELLED
        assert await scenario_store.differences() == []
    finally:
        await scenario_store.close()


async def test_an_order_the_scenario_does_not_name_must_be_unchanged(tmp_path: Path) -> None:
    scenario_store = await opened(tmp_path, scenario())
    try:
        await scenario_store.store.change_shipping_address(
            order_id="100102",
            customer_id="C-1001",
            new_address=MARKET_STREET,
            call_id="call-1",
            change_key="change-1",
        )
        [problem] = await scenario_store.differences()
        assert problem == (
            "order 100102: ships to 1 Market Street, Suite 5, San Francisco, CA 94105, US, "
            "expected 500 Howard St, Apt 4B, San Francisco, CA 94107, US"
        )
    finally:
        await scenario_store.close()


async def test_an_address_other_than_the_expected_one_fails(tmp_path: Path) -> None:
    elsewhere = MARKET_STREET.model_copy(update={"postal_code": "94110"})
    expects = scenario(expect={"orders": {"100102": {"shipping_address": elsewhere.model_dump()}}})
    scenario_store = await opened(tmp_path, expects)
    try:
        await scenario_store.store.change_shipping_address(
            order_id="100102",
            customer_id="C-1001",
            new_address=MARKET_STREET,
            call_id="call-1",
            change_key="change-1",
        )
        [problem] = await scenario_store.differences()
        assert problem.startswith("order 100102: ships to 1 Market Street, Suite 5,")
        assert problem.endswith("expected 1 Market Street, Suite 5, San Francisco, CA 94110, US")
    finally:
        await scenario_store.close()


async def test_consents_failures_and_escalations_are_compared(tmp_path: Path) -> None:
    expects = scenario(
        expect={
            "consents": [{"topic": "order_updates_sms", "granted": True, "customer_id": "C-1001"}],
            "identity_failures": {"C-1002": 1},
        }
    )
    scenario_store = await opened(tmp_path, expects)
    store = scenario_store.store
    try:
        assert await scenario_store.differences() == [
            "no order_updates_sms consent (yes) of C-1001 was stored",
            "customer C-1002: 0 failed identity checks recorded, expected 1",
        ]
        await store.record_consent(
            ConsentRecord(
                topic="order_updates_sms",
                granted=False,
                wording_version="v1",
                asked_at=utc_now(),
                call_id="call-1",
                customer_id="C-1001",
            )
        )
        await store.record_identity_failure(["C-1002", "C-1003"], "call-1")
        await store.add_escalation(
            EscalationRecord(
                call_id="call-1",
                reason="caller asked for a person",
                verified=False,
                customer_id=None,
                collected={},
                failed_specialist=None,
                failure=None,
                summary="",
            )
        )
        assert await scenario_store.differences() == [
            "no order_updates_sms consent (yes) of C-1001 was stored",
            "an unexpected order_updates_sms consent (no) of C-1001 was stored",
            "customer C-1003: 1 failed identity checks recorded, expected 0",
            "the call was escalated, expected no escalation",
        ]
    finally:
        await scenario_store.close()


async def test_return_requests_are_compared_by_order_items_and_reason(tmp_path: Path) -> None:
    expects = scenario(
        expect={
            "orders": {"200201": {"status": "return requested", "refund_method": "paypal_9000201"}},
            "returns": {"200201": {"item_indices": [1], "reason": "damaged"}},
        }
    )
    scenario_store = await opened(tmp_path, expects)
    try:
        assert await scenario_store.differences() == [
            "order 200201: status is delivered, expected return requested",
            "order 200201: refund_method is None, expected paypal_9000201",
            "order 200201: return request none, expected (item_indices [1], reason damaged)",
        ]
        outcome, _ = await scenario_store.store.request_return(
            order_id="200201",
            customer_id="C-1002",
            item_indices=[0, 1],
            reason=ReturnReason.DAMAGED,
            call_id="call-1",
        )
        assert outcome is ReturnOutcome.REQUESTED
        assert await scenario_store.differences() == [
            "order 200201: return request (item_indices [0, 1], reason damaged), "
            "expected (item_indices [1], reason damaged)"
        ]
    finally:
        await scenario_store.close()


async def test_an_unexpected_return_request_fails(tmp_path: Path) -> None:
    scenario_store = await opened(tmp_path, scenario())
    try:
        await scenario_store.store.request_return(
            order_id="200201",
            customer_id="C-1002",
            item_indices=[0],
            reason=ReturnReason.OTHER,
            call_id="call-1",
        )
        assert await scenario_store.differences() == [
            "order 200201: status is return requested, expected delivered",
            "order 200201: refund_method is paypal_9000201, expected None",
            "order 200201: return request (item_indices [0], reason other), expected none",
        ]
    finally:
        await scenario_store.close()


async def test_the_starting_changes_are_the_baseline(tmp_path: Path) -> None:
    starts_changed = scenario(
        start={"cancelled_orders": ["100102"], "identity_failures": {"C-1002": 5}}
    )
    scenario_store = await opened(tmp_path, starts_changed)
    try:
        order = await scenario_store.store.get_order("100102")
        assert order is not None
        assert order.status is OrderStatus.CANCELLED
        assert scenario_store.start.specialists["identity_failures"]["C-1002"] == 5
        # What the scenario started with is not a change the call made.
        assert await scenario_store.differences() == []
    finally:
        await scenario_store.close()


async def test_a_store_outage_lasts_until_the_grade(tmp_path: Path) -> None:
    scenario_store = await opened(tmp_path, scenario(start={"store_outage": True}))
    try:
        with pytest.raises(StoreUnavailable):
            await scenario_store.store.get_order("100101")
        assert await scenario_store.differences() == []
        assert await scenario_store.store.get_order("100101") is not None
    finally:
        await scenario_store.close()


async def test_items_changed_and_exchanges_requested_are_graded(tmp_path: Path) -> None:
    exchange = {
        "item_ids": ["9000000401"],
        "new_item_ids": ["9000000402"],
        "method_id": "paypal_9000201",
        "price_difference": "10.00",
    }
    expects = scenario(
        expect={"orders": {"200201": {"status": "exchange requested", "exchange": exchange}}}
    )
    scenario_store = await opened(tmp_path, expects)
    try:
        assert await scenario_store.differences() == [
            "order 200201: status is delivered, expected exchange requested",
            "order 200201: exchange requested is none, expected ['9000000401'] for "
            "['9000000402'], difference 10.00 through paypal_9000201",
        ]
        store = scenario_store.store
        swap = {"customer_id": "C-1002", "payment_method_id": "paypal_9000201", "call_id": "c"}
        exchanged = await store.exchange_order_items(
            order_id="200201", item_ids=["9000000401"], new_item_ids=["9000000402"], **swap
        )
        assert exchanged.done
        assert await scenario_store.differences() == []
        # An item change the scenario does not expect is a difference of its own.
        changed = await store.change_order_items(
            order_id="200202", item_ids=["9000000601"], new_item_ids=["9000000603"], **swap
        )
        assert changed.done
        assert await scenario_store.differences() == [
            "order 200202: status is pending (item modified), expected pending",
            "order 200202: items are ['9000000601', '9000000601', '9000000603'], expected "
            "['9000000601', '9000000601', '9000000601']",
        ]
    finally:
        await scenario_store.close()


async def test_the_method_an_order_is_paid_with_is_compared(tmp_path: Path) -> None:
    expects = scenario(expect={"orders": {"200202": {"paid_with": "paypal_9000201"}}})
    scenario_store = await opened(tmp_path, expects)
    try:
        assert await scenario_store.differences() == [
            "order 200202: paid_with is gift_card_9000202, expected paypal_9000201"
        ]
        changed = await scenario_store.store.change_order_payment(
            order_id="200202",
            customer_id="C-1002",
            payment_method_id="paypal_9000201",
            call_id="call-1",
        )
        assert changed.done
        assert await scenario_store.differences() == []
    finally:
        await scenario_store.close()


def test_what_a_specialist_changes_is_expected_through_its_own_registration() -> None:
    # The comparison keeps only what every call shares; each specialist's part of a
    # scenario's `expect` is its registration's `expects`, read by its key.
    from customer_service.simulation.state import ExpectedState, StoreState
    from customer_service.specialists import SPECIALISTS

    assert set(ExpectedState.model_fields) == {"orders", "escalated"}
    assert set(StoreState.model_fields) == {"orders", "escalations", "specialists"}
    owners = {entry.expects.key: entry.name for entry in SPECIALISTS if entry.expects}
    assert owners == {
        "consents": "consent",
        "default_addresses": "default_address",
        "identity_failures": "identity",
        "returns": "returns",
    }
