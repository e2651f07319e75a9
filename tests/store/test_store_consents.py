from __future__ import annotations

import datetime as dt

import pydantic
import pytest

from customer_service.store import AuditEvent, ConsentRecord, Store, StoreUnavailable
from support.faults import fail_writes

NOON = dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.UTC)


def _consent(
    minutes: int = 0,
    *,
    topic: str = "marketing_sms",
    granted: bool = True,
    call_id: str = "call-1",
    customer_id: str | None = "C-1001",
    wording_version: str = "2026-11",
) -> ConsentRecord:
    return ConsentRecord(
        topic=topic,
        granted=granted,
        wording_version=wording_version,
        asked_at=NOON + dt.timedelta(minutes=minutes),
        call_id=call_id,
        customer_id=customer_id,
    )


async def test_recorded_consent_is_found_by_customer_and_by_call(store: Store) -> None:
    madrid = dt.timezone(dt.timedelta(hours=1))
    record = ConsentRecord(
        topic="call_recording",
        granted=False,
        wording_version="v3",
        asked_at=dt.datetime(2026, 11, 20, 13, 30, 5, 250000, tzinfo=madrid),
        call_id="call-7",
        customer_id="C-1003",
    )
    await store.record_consent(record)

    by_customer = await store.latest_consent(topic="call_recording", customer_id="C-1003")
    by_call = await store.latest_consent(topic="call_recording", call_id="call-7")
    assert by_customer == by_call == record
    assert by_customer is not None
    assert (by_customer.topic, by_customer.granted, by_customer.wording_version) == (
        "call_recording",
        False,
        "v3",
    )
    assert (by_customer.call_id, by_customer.customer_id) == ("call-7", "C-1003")
    assert by_customer.asked_at == dt.datetime(2026, 11, 20, 12, 30, 5, 250000, tzinfo=dt.UTC)

    assert await store.audit_events() == [
        AuditEvent(
            call_id="call-7",
            kind="consent_recorded",
            customer_id="C-1003",
            detail={"topic": "call_recording", "granted": False, "wording_version": "v3"},
            created_at=record.asked_at,
        )
    ]


async def test_newest_answer_wins_whatever_the_order_of_recording(store: Store) -> None:
    newest = _consent(10, granted=False, call_id="call-2")
    for record in (_consent(5, call_id="call-2"), newest, _consent(0, call_id="call-1")):
        await store.record_consent(record)

    assert await store.latest_consent(topic="marketing_sms", customer_id="C-1001") == newest
    assert await store.latest_consent(topic="marketing_sms", call_id="call-2") == newest
    assert await store.latest_consent(topic="marketing_sms", call_id="call-1") == _consent(
        0, call_id="call-1"
    )
    assert len(await store.audit_events(kind="consent_recorded")) == 3


async def test_answers_at_the_same_instant_the_last_recorded_wins(store: Store) -> None:
    await store.record_consent(_consent(granted=True))
    await store.record_consent(_consent(granted=False))

    latest = await store.latest_consent(topic="marketing_sms", customer_id="C-1001")
    assert latest is not None
    assert latest.granted is False


async def test_consent_is_per_topic_and_per_scope(store: Store) -> None:
    await store.record_consent(_consent(topic="marketing_sms"))
    await store.record_consent(_consent(topic="call_recording", granted=False))
    unverified = _consent(call_id="call-9", customer_id=None)
    await store.record_consent(unverified)

    latest_sms = await store.latest_consent(topic="marketing_sms", customer_id="C-1001")
    assert latest_sms == _consent(topic="marketing_sms")
    assert await store.latest_consent(topic="marketing_email", customer_id="C-1001") is None
    assert await store.latest_consent(topic="marketing_sms", customer_id="C-1002") is None
    # An unverified caller's answer binds their call and no customer.
    assert await store.latest_consent(topic="marketing_sms", call_id="call-9") == unverified
    assert await store.latest_consent(topic="marketing_sms", call_id="call-404") is None


async def test_latest_consent_needs_exactly_one_scope(store: Store) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        await store.latest_consent(topic="marketing_sms")
    with pytest.raises(ValueError, match="exactly one"):
        await store.latest_consent(topic="marketing_sms", customer_id="C-1001", call_id="call-1")


async def test_write_failure_is_unavailable_and_records_nothing(store: Store) -> None:
    undo = fail_writes(store)
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await store.record_consent(_consent())
    finally:
        undo()

    assert str(raised.value) == "The store could not record a consent."
    assert await store.latest_consent(topic="marketing_sms", customer_id="C-1001") is None
    assert await store.latest_consent(topic="marketing_sms", call_id="call-1") is None
    assert await store.audit_events() == []


def test_consent_record_validation() -> None:
    with pytest.raises(pydantic.ValidationError):
        ConsentRecord.model_validate(
            {**_consent().model_dump(), "asked_at": dt.datetime(2026, 11, 20)}
        )
    with pytest.raises(pydantic.ValidationError):
        _consent(topic="")
    with pytest.raises(pydantic.ValidationError):
        _consent(wording_version="")
    with pytest.raises(pydantic.ValidationError):
        _consent(call_id="")
