"""Demo data only where asked: the embedded default store seeds (and migrates) itself, any
other database only with SEED_DEMO_DATA (and AUTO_MIGRATE); seeding is idempotent."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.clock import FixedClock
from customer_service.domain import CancelReason, Customer, OrderStatus
from customer_service.entry import MISCONFIGURED_EXIT_CODE
from customer_service.settings import Settings, default_database_url
from customer_service.store import DemoDataAdded, DemoDataRefused, SchemaNotCurrent, Store
from customer_service.store.customers import customer_to_row
from customer_service.store.errors import shown_url, store_problem
from customer_service.store.seed import DEMO_CUSTOMERS, DEMO_ORDER_IDS
from customer_service.store.shared import StoreConfig
from customer_service.store_commands import run_store_command, store_startup_problem
from customer_service.testing import sqlite_url

ALL_DEMO_DATA = DemoDataAdded(customers=len(DEMO_CUSTOMERS), orders=len(DEMO_ORDER_IDS))


def _settings(**values: Any) -> Settings:
    return Settings.model_validate(values)


@pytest.fixture
def own_data_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A data folder of this test's own, where the embedded default store goes."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "customer-service-agent" / "store.sqlite3"


async def _demo_customers(store: Store) -> list[str]:
    found = [await store.get_customer(customer.customer_id) for customer in DEMO_CUSTOMERS]
    return [customer.customer_id for customer in found if customer is not None]


# Who gets the demo data


async def test_the_embedded_default_store_migrates_and_seeds_itself(own_data_home: Path) -> None:
    settings = _settings()
    assert settings.database_url == default_database_url()
    config = StoreConfig.from_settings(settings)
    assert (config.migrate, config.seed_demo_data) == (True, True)

    async with await config.open() as store:
        assert store.engine.url.database == str(own_data_home)
        assert await _demo_customers(store) == ["C-1001", "C-1002", "C-1003"]


async def test_the_embedded_default_store_is_not_seeded_when_told_not_to(
    own_data_home: Path,
) -> None:
    config = StoreConfig.from_settings(_settings(seed_demo_data="false"))
    assert (config.migrate, config.seed_demo_data) == (True, False)
    async with await config.open() as store:
        assert await _demo_customers(store) == []


def test_unset_means_decided_by_the_store(own_data_home: Path, tmp_path: Path) -> None:
    # `SEED_DEMO_DATA=` and `AUTO_MIGRATE=`, as copied from .env.example.
    embedded = _settings(seed_demo_data="", auto_migrate="")
    assert (embedded.seeds_demo_data, embedded.migrates_on_open) == (True, True)
    other = _settings(database_url=sqlite_url(tmp_path / "other.sqlite3"), seed_demo_data="")
    assert (other.seeds_demo_data, other.migrates_on_open) == (False, False)
    postgres = _settings(database_url="postgresql+asyncpg://agent@db/store")
    assert (postgres.seeds_demo_data, postgres.migrates_on_open) == (False, False)


def test_an_empty_database_url_means_the_default_store(own_data_home: Path) -> None:
    # `DATABASE_URL=`, as copied from .env.example, like the other empty settings.
    settings = _settings(database_url="")
    assert settings.database_url == default_database_url()
    assert settings.uses_embedded_store
    assert (settings.seeds_demo_data, settings.migrates_on_open) == (True, True)


async def test_another_sqlite_file_is_neither_migrated_nor_seeded_unless_asked(
    tmp_path: Path,
) -> None:
    url = sqlite_url(tmp_path / "store.sqlite3")
    with pytest.raises(SchemaNotCurrent):
        await StoreConfig.from_settings(_settings(database_url=url)).open()

    migrated = StoreConfig.from_settings(_settings(database_url=url, auto_migrate="true"))
    async with await migrated.open() as store:
        assert await _demo_customers(store) == []


async def test_any_database_is_seeded_only_with_seed_demo_data(database_url: str) -> None:
    plain = StoreConfig.from_settings(_settings(database_url=database_url, auto_migrate="true"))
    async with await plain.open() as store:
        assert await _demo_customers(store) == []

    seeding = StoreConfig.from_settings(_settings(database_url=database_url, seed_demo_data="true"))
    assert seeding.migrate is False  # migrated above; this open only checks
    async with await seeding.open() as store:
        assert await _demo_customers(store) == ["C-1001", "C-1002", "C-1003"]
        assert len(await store.recent_orders("C-1002", 10)) == 2


def test_pool_settings_reach_the_store_config() -> None:
    config = StoreConfig.from_settings(
        _settings(
            database_url="postgresql+asyncpg://agent@db/store",
            database_pool_size="7",
            database_max_overflow="0",
        )
    )
    assert (config.pool.size, config.pool.max_overflow) == (7, 0)


# Seeding itself


async def test_seeding_twice_adds_nothing_and_changes_nothing(database_url: str) -> None:
    async with await Store.open(database_url, migrate=True, seed_demo_data=False) as store:
        assert await store.seed_demo_data() == ALL_DEMO_DATA
        await store.cancel_order(
            order_id="100102",
            customer_id="C-1001",
            reason=CancelReason.NO_LONGER_NEEDED,
            call_id="call-1",
        )

        assert await store.seed_demo_data() == DemoDataAdded(customers=0, orders=0)
        order = await store.get_order("100102")
        assert order is not None
        assert order.status is OrderStatus.CANCELLED
        assert len(await store.recent_orders("C-1001", 10)) == 2


async def test_the_demo_orders_are_dated_back_from_the_day_they_are_seeded(
    database_url: str,
) -> None:
    # Late in the evening UTC: the seeding day is the clock's day in UTC.
    clock = FixedClock(dt.datetime(2031, 3, 15, 23, 30, tzinfo=dt.UTC))
    seeded_on = dt.date(2031, 3, 15)

    def days_before(days: int) -> dt.date:
        return seeded_on - dt.timedelta(days=days)

    async with await Store.open(
        database_url, migrate=True, seed_demo_data=False, clock=clock
    ) as store:
        assert await store.seed_demo_data() == ALL_DEMO_DATA
        delivered = await store.get_order("200201")
        assert delivered is not None
        assert delivered.status is OrderStatus.DELIVERED
        # Delivered recently enough for a 30-day return window, whenever it is seeded.
        assert (delivered.placed_on, delivered.delivered_on) == (days_before(21), days_before(17))
        placed = {
            order_id: order.placed_on
            for order_id in DEMO_ORDER_IDS
            if (order := await store.get_order(order_id)) is not None
        }
        assert placed == {
            "100101": days_before(24),
            "100102": days_before(22),
            "200201": days_before(21),
            "200202": days_before(10),
            "300301": days_before(8),
        }

    # Seeded once: a later day changes no date already written.
    clock.advance(dt.timedelta(days=90))
    async with await Store.open(
        database_url, migrate=True, seed_demo_data=False, clock=clock
    ) as store:
        assert await store.seed_demo_data() == DemoDataAdded(customers=0, orders=0)
        delivered = await store.get_order("200201")
        assert delivered is not None
        assert delivered.delivered_on == days_before(17)


async def test_demo_orders_never_go_to_someone_else_holding_a_demo_id(database_url: str) -> None:
    someone = Customer(
        customer_id="C-1001",
        full_name="Sam Rivera",
        phone="+13125550100",
        email="sam@example.com",
        postal_code="60614",
        country="US",
    )
    async with await Store.open(database_url, migrate=True, seed_demo_data=False) as store:
        await _add_customer(store, someone)
        with pytest.raises(DemoDataRefused):
            await store.seed_demo_data()  # someone else holds a demo id: not a demo store

        assert await store.seed_demo_data(force=True) == DemoDataAdded(customers=2, orders=3)
        assert await store.get_customer("C-1001") == someone
        assert await store.recent_orders("C-1001", 10) == []
        assert len(await store.recent_orders("C-1002", 10)) == 2


# Never next to real customers, unless forced

SAM = Customer(
    customer_id="C-7001",
    full_name="Sam Rivera",
    phone="+13125550100",
    email="sam@example.com",
    postal_code="60614",
    country="US",
)
REFUSED = (
    "It holds customers other than the demo ones, so the demo customers (whose details are "
    "public) were not added: use `python src/agent.py seed-demo --force` or "
    "SEED_DEMO_DATA=force to add them anyway, or SEED_DEMO_DATA=false."
)


async def _add_customer(store: Store, customer: Customer) -> None:
    async with AsyncSession(store.engine) as session, session.begin():
        session.add(customer_to_row(customer))


async def _database_of_real_customers(database_url: str) -> None:
    async with await Store.open(database_url, migrate=True, seed_demo_data=False) as store:
        await _add_customer(store, SAM)


async def test_a_database_of_other_customers_gets_no_demo_data_unless_forced(
    database_url: str,
) -> None:
    await _database_of_real_customers(database_url)
    async with await Store.open(database_url, migrate=False, seed_demo_data=False) as store:
        with pytest.raises(DemoDataRefused) as raised:
            await store.seed_demo_data()
        assert str(raised.value) == REFUSED
        assert await _demo_customers(store) == []
        assert await store.recent_orders("C-1001", 10) == []
        assert await store.get_customer("C-7001") == SAM

        assert await store.seed_demo_data(force=True) == ALL_DEMO_DATA
        assert await _demo_customers(store) == ["C-1001", "C-1002", "C-1003"]
        # Once there, seeding again has nothing to add, and nothing to refuse.
        assert await store.seed_demo_data() == DemoDataAdded(customers=0, orders=0)
        assert await store.get_customer("C-7001") == SAM


async def test_seed_demo_data_true_refuses_a_database_of_other_customers_on_open(
    database_url: str,
) -> None:
    await _database_of_real_customers(database_url)
    settings = _settings(database_url=database_url, seed_demo_data="true")
    with pytest.raises(DemoDataRefused) as raised:
        await StoreConfig.from_settings(settings).open()
    assert store_problem(raised.value, database_url) == f"{shown_url(database_url)}: {REFUSED}"

    forced = StoreConfig.from_settings(_settings(database_url=database_url, seed_demo_data="force"))
    assert (forced.seed_demo_data, forced.force_demo_data) == (True, True)
    async with await forced.open() as store:
        assert await _demo_customers(store) == ["C-1001", "C-1002", "C-1003"]
        assert await store.get_customer("C-7001") == SAM


def test_seed_demo_and_start_refuse_a_database_of_other_customers_unless_forced(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_database_of_real_customers(database_url))
    settings = _settings(database_url=database_url)
    where = shown_url(database_url)
    # A voice command told to seed stops at start-up with the line, before any call.
    seeding = _settings(database_url=database_url, seed_demo_data="true")
    assert store_startup_problem(["start"], seeding) == f"{where}: {REFUSED}"

    assert run_store_command(["seed-demo"], settings) == MISCONFIGURED_EXIT_CODE
    assert capsys.readouterr() == ("", f"{where}: {REFUSED}\n")

    assert run_store_command(["seed-demo", "--force"], settings) == 0
    assert capsys.readouterr() == (f"{where}: added 3 demo customers and 5 demo orders.\n", "")
    assert run_store_command(["seed-demo"], settings) == 0
    assert capsys.readouterr() == (f"{where}: the demo data is already there.\n", "")
