from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from customer_service.domain import PostalAddress
from customer_service.store import (
    AddressChangeOutcome,
    AuditEvent,
    ConsentRecord,
    EscalationRecord,
    Store,
    StoreUnavailable,
)
from customer_service.store.schema import first_revision_tables, store_metadata
from customer_service.testing import open_demo_store
from support.faults import fail_everything, fail_writes
from support.schema_history import ORIGINAL_TABLES, made_before_migrations

NEW_ADDRESS = PostalAddress(
    street="2 Mission St", city="San Francisco", region="CA", postal_code="94105", country="US"
)


def _table_names(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


async def _tables(store: Store) -> set[str]:
    async with store.engine.connect() as connection:
        return await connection.run_sync(_table_names)


@pytest.mark.parametrize(
    "with_a_new_table", [False, True], ids=["today's tables", "and a new table with its revision"]
)
async def test_opening_an_older_database_adds_the_new_tables(
    database_url: str, with_a_new_table: bool, request: pytest.FixtureRequest
) -> None:
    if with_a_new_table:
        new_table = request.getfixturevalue("new_table_with_its_revision")
        assert new_table in store_metadata().tables
    async with await open_demo_store(database_url) as old:
        await old.add_audit_event(AuditEvent(call_id="call-0", kind="identity_verified"))
        # What a database created before the later tables, and before migrations, looks
        # like: every revision after the first undone (the customers lose the lookup keys
        # of revision 0002), and the first revision's tables the models gained later gone.
        async with old.engine.begin() as connection:
            await made_before_migrations(
                connection, lacking=first_revision_tables() - ORIGINAL_TABLES
            )
        assert await _tables(old) == ORIGINAL_TABLES

    async with await open_demo_store(database_url) as store:
        assert await _tables(store) == set(store_metadata().tables) | {"alembic_version"}
        # The old data is kept and the demo data is not seeded again.
        assert [event.kind for event in await store.audit_events()] == ["identity_verified"]
        assert len(await store.customers_with_postal_code("94107")) == 1

        outcome, _ = await store.change_shipping_address(
            order_id="100102",
            customer_id="C-1001",
            new_address=NEW_ADDRESS,
            call_id="call-1",
            change_key="key-1",
        )
        assert outcome is AddressChangeOutcome.CHANGED
        consent = ConsentRecord(
            topic="marketing_sms",
            granted=True,
            wording_version="v1",
            asked_at=dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.UTC),
            call_id="call-1",
        )
        await store.record_consent(consent)
        assert await store.latest_consent(topic="marketing_sms", call_id="call-1") == consent
        escalation = EscalationRecord(
            call_id="call-1",
            reason="caller asked for a person",
            verified=True,
            customer_id="C-1001",
            collected={},
            failed_specialist=None,
            failure=None,
            summary="Wanted a human after the address change.",
        )
        await store.add_escalation(escalation)
        assert await store.escalations() == [escalation]


async def test_fail_writes_keeps_reads_working_until_undone(store: Store) -> None:
    undo = fail_writes(store)
    try:
        assert (await store.get_order("100102")) is not None
        assert len(await store.recent_orders("C-1001", 5)) == 2
        with pytest.raises(StoreUnavailable) as raised:
            await store.add_audit_event(AuditEvent(call_id="call-1", kind="delegation"))
        assert str(raised.value) == "The store could not write an audit event."
        assert "database is locked" in str(raised.value.__cause__)
    finally:
        undo()
    undo()  # a second undo is harmless

    await store.add_audit_event(AuditEvent(call_id="call-1", kind="delegation"))
    assert [event.kind for event in await store.audit_events()] == ["delegation"]


async def test_fail_everything_fails_reads_too_until_undone(store: Store) -> None:
    undo = fail_everything(store)
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await store.get_order("100102")
        assert str(raised.value) == "The store could not read an order."
        with pytest.raises(StoreUnavailable):
            await store.audit_events()
    finally:
        undo()

    order = await store.get_order("100102")
    assert order is not None
    assert order.order_id == "100102"
