from __future__ import annotations

import datetime as dt

import pydantic
import pytest

from customer_service.store import AuditEvent, EscalationRecord, Store, StoreUnavailable
from support.faults import fail_writes

NOON = dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.UTC)


def _escalation(minutes: int = 0, *, call_id: str = "call-1") -> EscalationRecord:
    return EscalationRecord(
        call_id=call_id,
        reason="caller asked for a person",
        verified=False,
        customer_id=None,
        collected={},
        failed_specialist=None,
        failure=None,
        summary="Caller wanted a human from the start.",
        created_at=NOON + dt.timedelta(minutes=minutes),
    )


async def test_escalation_round_trips_field_by_field(store: Store) -> None:
    new_york = dt.timezone(dt.timedelta(hours=-5))
    record = EscalationRecord(
        escalation_id="esc-1",
        call_id="call-3",
        reason="address update failed twice",
        verified=True,
        customer_id="C-1001",
        collected={
            "order_id": "100102",
            "street": "1 M***",
            "attempts": 2,
            "confirmed": False,
            "fields": ["street", "postal_code"],
            "note": None,
            "nested": {"postal_code": "94***"},
        },
        failed_specialist="address_update",
        failure="postal code did not match the city",
        summary="Verified caller; wants order 100102 sent to a new street.",
        created_at=dt.datetime(2026, 11, 20, 7, 15, 30, 500000, tzinfo=new_york),
    )
    await store.add_escalation(record)

    [stored] = await store.escalations()
    assert stored == record
    assert stored.escalation_id == "esc-1"
    assert stored.call_id == "call-3"
    assert stored.reason == "address update failed twice"
    assert stored.verified is True
    assert stored.customer_id == "C-1001"
    assert stored.collected == {
        "order_id": "100102",
        "street": "1 M***",
        "attempts": 2,
        "confirmed": False,
        "fields": ["street", "postal_code"],
        "note": None,
        "nested": {"postal_code": "94***"},
    }
    assert stored.failed_specialist == "address_update"
    assert stored.failure == "postal code did not match the city"
    assert stored.summary == "Verified caller; wants order 100102 sent to a new street."
    assert stored.created_at == dt.datetime(2026, 11, 20, 12, 15, 30, 500000, tzinfo=dt.UTC)
    assert stored.created_at.utcoffset() == dt.timedelta(0)

    # The audit detail names the escalation, never the caller's words.
    assert await store.audit_events() == [
        AuditEvent(
            call_id="call-3",
            kind="escalated",
            customer_id="C-1001",
            detail={
                "escalation_id": "esc-1",
                "verified": True,
                "failed_specialist": "address_update",
            },
            created_at=record.created_at,
        )
    ]


async def test_unverified_escalation_without_failure_round_trips(store: Store) -> None:
    record = _escalation()
    await store.add_escalation(record)

    assert await store.escalations(call_id="call-1") == [record]
    [event] = await store.audit_events(kind="escalated")
    assert event.customer_id is None
    assert event.detail == {
        "escalation_id": record.escalation_id,
        "verified": False,
        "failed_specialist": None,
    }


async def test_escalations_filter_by_call_and_sort_oldest_first(store: Store) -> None:
    later, earlier, other = _escalation(5), _escalation(1), _escalation(3, call_id="call-2")
    for record in (later, earlier, other):
        await store.add_escalation(record)

    assert await store.escalations() == [earlier, other, later]
    assert await store.escalations(call_id="call-1") == [earlier, later]
    assert await store.escalations(call_id="call-404") == []


async def test_write_failure_is_unavailable_and_records_nothing(store: Store) -> None:
    undo = fail_writes(store)
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await store.add_escalation(_escalation())
    finally:
        undo()

    assert str(raised.value) == "The store could not record an escalation."
    assert await store.escalations() == []
    assert await store.audit_events() == []


def test_escalation_defaults_and_limits() -> None:
    fields: dict[str, object] = {
        "call_id": "call-1",
        "reason": "r",
        "verified": False,
        "customer_id": None,
        "collected": {},
        "failed_specialist": None,
        "failure": None,
        "summary": "s",
    }
    before = dt.datetime.now(dt.UTC)
    first = EscalationRecord.model_validate(fields)
    second = EscalationRecord.model_validate(fields)
    assert len(first.escalation_id) == 32
    assert int(first.escalation_id, 16) >= 0
    assert first.escalation_id != second.escalation_id
    assert first.created_at.tzinfo is dt.UTC
    assert before <= first.created_at <= dt.datetime.now(dt.UTC)

    assert EscalationRecord.model_validate({**fields, "reason": "r" * 500}).reason == "r" * 500
    with pytest.raises(pydantic.ValidationError):
        EscalationRecord.model_validate({**fields, "reason": "r" * 501})
    assert len(EscalationRecord.model_validate({**fields, "summary": "s" * 2000}).summary) == 2000
    with pytest.raises(pydantic.ValidationError):
        EscalationRecord.model_validate({**fields, "summary": "s" * 2001})
    with pytest.raises(pydantic.ValidationError):
        EscalationRecord.model_validate({**fields, "created_at": dt.datetime(2026, 11, 20)})
