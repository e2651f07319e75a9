"""Migrations: one set of Alembic revisions for SQLite and PostgreSQL, databases made
before migrations adopted, and a schema that is not current refused with the command
that fixes it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import Connection

from customer_service.domain import PostalAddress
from customer_service.store import (
    MIGRATE_COMMAND,
    AddressChange,
    AuditEvent,
    ConsentRecord,
    EscalationRecord,
    SchemaNotCurrent,
    Store,
)
from customer_service.store import schema as schema_module
from customer_service.store.core import StoreCore
from customer_service.store.engine import create_store_engine
from customer_service.store.schema import (
    FIRST_REVISION,
    head_revision,
    migrate_database,
    recorded_revision,
    store_metadata,
)
from customer_service.store.tables import Base

T = TypeVar("T")

NOON = dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.UTC)
OLD_ADDRESS = PostalAddress(
    street="1 W Armitage Ave", city="Chicago", region="IL", postal_code="60614", country="US"
)
NEW_ADDRESS = PostalAddress(
    street="2 N State St", city="Chicago", region="IL", postal_code="60602", country="US"
)


async def _on(database_url: str, work: Callable[[Connection], T]) -> T:
    """Runs `work` in one transaction on an engine of its own."""
    engine = create_store_engine(database_url)
    try:
        async with engine.begin() as connection:
            return await connection.run_sync(work)
    finally:
        await engine.dispose()


def _upgrade_to(revision: str) -> Callable[[Connection], None]:
    return lambda connection: command.upgrade(schema_module.migrations_config(connection), revision)


def _tables(connection: Connection) -> set[str]:
    return set(sa.inspect(connection).get_table_names())


def _customer_ids(connection: Connection) -> list[str]:
    return list(connection.execute(sa.text("SELECT customer_id FROM customers")).scalars())


def _execute(*statements: str) -> Callable[[Connection], None]:
    def run(connection: Connection) -> None:
        for statement in statements:
            connection.execute(sa.text(statement))

    return run


async def _made_before_migrations(database_url: str, *dropped: str) -> None:
    """A database as `Store.open` made it before migrations: the first revision's tables
    (less `dropped`, added to the models later), no migration history."""
    await _on(database_url, _upgrade_to(FIRST_REVISION))
    await _on(
        database_url, _execute(*(f"DROP TABLE {table}" for table in (*dropped, "alembic_version")))
    )


# The revisions


def _differences(connection: Connection) -> list[Any]:
    """How the database differs from the models' tables, every table module's."""
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, store_metadata()))


async def test_the_latest_revision_is_the_models_schema(database_url: str) -> None:
    await _on(database_url, _upgrade_to("head"))
    assert await _on(database_url, _differences) == []


def test_a_new_table_module_is_found_and_fails_the_check_until_its_revision(
    new_table_module: str,
) -> None:
    assert new_table_module not in Base.metadata.tables
    assert new_table_module in store_metadata().tables

    engine = sa.create_engine("sqlite://")
    try:
        with engine.begin() as connection:
            _upgrade_to("head")(connection)
            differences = _differences(connection)
    finally:
        engine.dispose()
    assert [(kind, table.name) for kind, table in differences] == [("add_table", new_table_module)]


async def test_a_new_table_is_its_module_and_its_revision(
    database_url: str, new_table_with_its_revision: str
) -> None:
    await _on(database_url, _upgrade_to("head"))
    assert new_table_with_its_revision in await _on(database_url, _tables)
    assert await _on(database_url, _differences) == []
    # A store that only checks the schema takes it for the latest.
    async with await Store.open(database_url, migrate=False, seed_demo_data=True) as store:
        assert await store.get_order("100101") is not None


def test_every_part_of_the_store_is_assembled_into_store() -> None:
    store_metadata()  # imports every module of the store package

    def parts(cls: type[StoreCore]) -> set[type[StoreCore]]:
        below = set(cls.__subclasses__())
        return below.union(*(parts(sub) for sub in below))

    in_the_package = {
        part for part in parts(StoreCore) if part.__module__.startswith("customer_service.store.")
    }
    assert in_the_package - set(Store.__mro__) == set()


async def test_every_revision_undoes_itself(database_url: str) -> None:
    # Tests make older databases by downgrading (`support.schema_history`).
    await _on(database_url, _upgrade_to("head"))
    await _on(
        database_url,
        lambda connection: command.downgrade(schema_module.migrations_config(connection), "base"),
    )
    assert await _on(database_url, _tables) == {"alembic_version"}
    await _on(database_url, _upgrade_to("head"))
    assert await _on(database_url, _differences) == []


def _first_revision_rows(connection: Connection) -> None:
    """One row in every table, written with the first revision's columns."""

    def insert(table: str, **values: Any) -> None:
        columns = [sa.column(name, _type_of(value)) for name, value in values.items()]
        connection.execute(sa.insert(sa.table(table, *columns)).values(**values))

    address = OLD_ADDRESS.model_dump()
    insert(
        "customers",
        customer_id="C-2001",
        full_name="Alex Kim",
        phone="+13125550199",
        email="alex.kim@example.com",
        postal_code="60614",
        postal_code_key="60614",
        country="US",
    )
    insert(
        "orders",
        order_id="600601",
        customer_id="C-2001",
        status="processing",
        items=[{"name": "Desk lamp", "quantity": 1}],
        placed_on=dt.date(2026, 11, 19),
        **{f"ship_{key}": value for key, value in address.items()},
    )
    insert(
        "audit_events",
        call_id="call-1",
        kind="identity_verified",
        customer_id="C-2001",
        detail={"attempt": 1},
        created_at=NOON,
    )
    insert(
        "address_changes",
        change_key="key-1",
        order_id="600601",
        customer_id="C-2001",
        call_id="call-1",
        old_address=address,
        new_address=NEW_ADDRESS.model_dump(),
        changed_at=NOON,
    )
    insert(
        "consents",
        topic="marketing_sms",
        granted=True,
        wording_version="v1",
        asked_at=NOON,
        call_id="call-1",
        customer_id="C-2001",
    )
    insert(
        "escalations",
        escalation_id="esc-1",
        call_id="call-1",
        reason="caller asked for a person",
        verified=True,
        customer_id="C-2001",
        collected={"order_id": "600601"},
        summary="Wanted a human.",
        created_at=NOON,
    )
    insert("identity_failures", customer_id="C-2001", failed_at=NOON, call_id="call-0")


def _type_of(value: object) -> sa.types.TypeEngine[Any]:
    if isinstance(value, dict | list):
        return sa.JSON()
    if isinstance(value, dt.datetime):
        return sa.DateTime(timezone=True)
    if isinstance(value, dt.date):
        return sa.Date()
    if isinstance(value, bool):
        return sa.Boolean()
    return sa.String()


async def test_upgrading_a_first_revision_database_keeps_its_data(database_url: str) -> None:
    await _on(database_url, _upgrade_to(FIRST_REVISION))
    await _on(database_url, _first_revision_rows)

    upgrade = await migrate_database(database_url)
    assert (upgrade.before, upgrade.after, upgrade.adopted) == (
        FIRST_REVISION,
        head_revision(),
        False,
    )
    # Migrating is not seeding: the one customer is the one written above.
    assert await _on(database_url, _customer_ids) == ["C-2001"]

    async with await Store.open(database_url, migrate=False, seed_demo_data=False) as store:
        customer = await store.get_customer("C-2001")
        assert customer is not None
        assert customer.full_name == "Alex Kim"
        # Revision 0002 filled the name key of the customer already there.
        assert await store.near_miss_accounts("alex KIM", "60614", "nobody@example.com") == [
            "C-2001"
        ]
        order = await store.get_order("600601")
        assert order is not None
        assert order.shipping_address == OLD_ADDRESS
        assert [item.name for item in order.items] == ["Desk lamp"]
        assert await store.audit_events() == [
            AuditEvent(
                call_id="call-1",
                kind="identity_verified",
                customer_id="C-2001",
                detail={"attempt": 1},
                created_at=NOON,
            )
        ]
        assert await store.address_changes(order_id="600601") == [
            AddressChange(
                change_key="key-1",
                order_id="600601",
                customer_id="C-2001",
                call_id="call-1",
                old_address=OLD_ADDRESS,
                new_address=NEW_ADDRESS,
                changed_at=NOON,
            )
        ]
        consent = await store.latest_consent(topic="marketing_sms", customer_id="C-2001")
        assert consent == ConsentRecord(
            topic="marketing_sms",
            granted=True,
            wording_version="v1",
            asked_at=NOON,
            call_id="call-1",
            customer_id="C-2001",
        )
        [escalation] = await store.escalations()
        assert escalation == EscalationRecord(
            escalation_id="esc-1",
            call_id="call-1",
            reason="caller asked for a person",
            verified=True,
            customer_id="C-2001",
            collected={"order_id": "600601"},
            failed_specialist=None,
            failure=None,
            summary="Wanted a human.",
            created_at=NOON,
        )
        assert await store.identity_failures_since("C-2001", NOON) == 1
        # Revision 0004: a failure counted before it reads as one that matched the phone
        # or email, the kind that holds an account soonest.
        [candidate] = await store.identity_candidates("60614", NOON)
        assert (candidate.recent_failures, candidate.recent_label_only) == (1, 0)


async def test_migrating_a_current_database_again_changes_nothing(database_url: str) -> None:
    first = await migrate_database(database_url)
    assert (first.before, first.after) == (None, head_revision())
    again = await migrate_database(database_url)
    assert (again.before, again.after, again.adopted) == (head_revision(), head_revision(), False)


# Databases made before migrations


async def test_a_database_from_before_migrations_is_recorded_at_the_first_revision(
    database_url: str,
) -> None:
    await _made_before_migrations(database_url)
    await _on(database_url, _first_revision_rows)

    # A store that only checks the schema takes it for the first revision, which is
    # behind, and leaves it as it was.
    with pytest.raises(SchemaNotCurrent) as raised:
        await Store.open(database_url, migrate=False, seed_demo_data=False)
    assert "at revision 0001, behind" in str(raised.value)
    assert MIGRATE_COMMAND in str(raised.value)
    assert await _on(database_url, recorded_revision) is None

    upgrade = await migrate_database(database_url)
    assert (upgrade.before, upgrade.adopted) == (None, True)
    assert await _on(database_url, recorded_revision) == head_revision()
    async with await Store.open(database_url, migrate=False, seed_demo_data=False) as store:
        order = await store.get_order("600601")
        assert order is not None
        assert order.customer_id == "C-2001"
        assert await store.identity_failures_since("C-2001", NOON) == 1


async def test_a_database_from_before_migrations_lacking_later_tables_needs_migrate(
    database_url: str,
) -> None:
    await _made_before_migrations(database_url, "escalations", "consents")

    with pytest.raises(SchemaNotCurrent) as raised:
        await Store.open(database_url, migrate=False)
    assert "lacks the tables consents, escalations" in str(raised.value)
    assert MIGRATE_COMMAND in str(raised.value)

    upgrade = await migrate_database(database_url)
    assert upgrade.adopted
    assert {"consents", "escalations", "alembic_version"} <= await _on(database_url, _tables)
    async with await Store.open(database_url, migrate=False) as store:
        assert await store.escalations() == []


async def test_a_database_from_before_migrations_with_other_columns_is_refused(
    database_url: str,
) -> None:
    await _made_before_migrations(database_url)
    await _on(database_url, _execute("ALTER TABLE customers ADD COLUMN nickname VARCHAR(20)"))

    for migrate in (False, True):
        with pytest.raises(SchemaNotCurrent) as raised:
            await Store.open(database_url, migrate=migrate)
        assert "the columns of customers differ" in str(raised.value)
    assert await _on(database_url, recorded_revision) is None


# Schemas that are not current


async def test_checking_an_empty_database_names_the_migrate_command(database_url: str) -> None:
    with pytest.raises(SchemaNotCurrent) as raised:
        await Store.open(database_url, migrate=False)
    assert str(raised.value) == (
        "The database has none of the store's tables yet: run `python src/agent.py migrate` "
        "(or `make migrate`)."
    )
    # The check changed nothing.
    assert await _on(database_url, _tables) == set()


async def test_a_database_behind_the_latest_revision_is_refused(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _on(database_url, _upgrade_to(FIRST_REVISION))
    # As if this version had a revision beyond the database's.
    monkeypatch.setattr(schema_module, "head_revision", lambda: "0002")

    with pytest.raises(SchemaNotCurrent) as raised:
        await Store.open(database_url, migrate=False)
    assert str(raised.value) == (
        f"Its schema is at revision {FIRST_REVISION}, behind this version's 0002: "
        "run `python src/agent.py migrate` (or `make migrate`)."
    )


async def test_a_database_migrated_by_a_newer_version_is_refused(database_url: str) -> None:
    await _on(database_url, _upgrade_to("head"))
    await _on(database_url, _execute("UPDATE alembic_version SET version_num = 'ffff'"))

    for migrate in (False, True):
        with pytest.raises(SchemaNotCurrent) as raised:
            await Store.open(database_url, migrate=migrate)
        assert "at revision ffff, which this version of the agent does not know" in str(
            raised.value
        )
