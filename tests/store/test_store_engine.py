"""How the store connects: SQLite files in WAL mode with a busy timeout, a sized pool for a
server, and one-line reasons when the database cannot be used."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest
from sqlalchemy.pool import QueuePool

from customer_service.store import PoolSize, Store, StoreMisconfigured, StoreUnavailable
from customer_service.store.engine import SQLITE_BUSY_TIMEOUT_S, create_store_engine, store_url
from customer_service.store.errors import shown_url, store_problem
from customer_service.testing import sqlite_url


async def _pragma(store: Store, name: str) -> object:
    async with store.engine.connect() as connection:
        return (await connection.exec_driver_sql(f"PRAGMA {name}")).scalar()


async def test_a_sqlite_file_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    async with await Store.open(sqlite_url(path)) as store:
        assert await _pragma(store, "journal_mode") == "wal"
        assert await _pragma(store, "busy_timeout") == int(SQLITE_BUSY_TIMEOUT_S * 1000)


async def test_a_server_database_gets_a_pool_of_the_given_size(database_url: str) -> None:
    pool = PoolSize(size=3, max_overflow=4)
    async with await Store.open(database_url, migrate=True, pool=pool) as store:
        engine_pool = store.engine.sync_engine.pool
        assert isinstance(engine_pool, QueuePool)
        sizes = (engine_pool.size(), engine_pool._max_overflow)
    if database_url.startswith("sqlite"):
        assert sizes != (3, 4)  # SQLite ignores it
    else:
        assert sizes == (3, 4)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_an_unreachable_server_is_one_line_without_the_password() -> None:
    url = f"postgresql+asyncpg://agent:s3cret@127.0.0.1:{_closed_port()}/store"
    with pytest.raises(StoreUnavailable) as raised:
        await Store.open(url)
    line = store_problem(raised.value, url)
    assert line == (
        f"DATABASE_URL=postgresql+asyncpg://agent:***@{url.split('@')[1]} cannot be used: "
        "nothing accepts connections at that host and port. Check that the database server "
        "is running and that the host, port, user, password and database name are right."
    )
    assert "s3cret" not in line


async def test_a_missing_driver_names_the_extra_that_installs_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "asyncpg", None)  # as if it were not installed
    url = "postgresql+asyncpg://agent:s3cret@db.example.com/store"
    with pytest.raises(StoreMisconfigured) as raised:
        await Store.open(url)
    assert store_problem(raised.value, url) == (
        "DATABASE_URL=postgresql+asyncpg://agent:***@db.example.com/store: Its database "
        "driver, asyncpg, is not installed: install it with `pip install '.[postgres]'` "
        "(the container image has it)."
    )


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg2://agent@db.example.com/store",
        "mysql+aiomysql://agent@db/store",
        "nosuchdatabase://agent@db/store",
    ],
)
async def test_a_driver_the_store_does_not_use_is_named(url: str) -> None:
    with pytest.raises(StoreMisconfigured) as raised:
        await Store.open(url)
    assert "which the store does not use; use sqlite+aiosqlite://" in str(raised.value)


async def test_a_malformed_url_is_not_quoted() -> None:
    with pytest.raises(StoreMisconfigured) as raised:
        await Store.open("s3cret")
    line = store_problem(raised.value, "s3cret")
    assert line.startswith("DATABASE_URL: It is not a database URL; use sqlite+aiosqlite://")
    assert "s3cret" not in line


async def test_a_sqlite_path_that_cannot_be_used_is_one_line(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)  # a folder, not a file
    with pytest.raises(StoreUnavailable) as raised:
        await Store.open(url)
    assert store_problem(raised.value, url) == (
        f"DATABASE_URL={url} cannot be used: unable to open database file. Check that the "
        "path is a SQLite database file in a folder you may write to."
    )


async def test_a_server_lost_during_a_call_is_the_store_being_unavailable() -> None:
    # A store whose server stops answering after the call began: every method raises
    # StoreUnavailable, which the tool guard turns into the spoken store apology.
    url = f"postgresql+asyncpg://agent:s3cret@127.0.0.1:{_closed_port()}/store"
    store = Store(create_store_engine(url))
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await store.get_order("100101")
        assert str(raised.value) == "The store could not read an order."
        assert isinstance(raised.value.__cause__, ConnectionRefusedError)
    finally:
        await store.close()


# The URL as hosts give it, and as messages show it


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("postgres://agent:pw@db.example.com:5432/store", "postgresql+asyncpg"),
        ("postgresql://agent:pw@db.example.com/store", "postgresql+asyncpg"),
        ("postgresql+asyncpg://agent:pw@db.example.com/store", "postgresql+asyncpg"),
        ("sqlite+aiosqlite:///store.sqlite3", "sqlite+aiosqlite"),
    ],
)
def test_postgres_urls_without_a_driver_mean_asyncpg(given: str, used: str) -> None:
    url = store_url(given)
    assert url.drivername == used
    assert url.password == (None if used.startswith("sqlite") else "pw")


def test_libpqs_sslmode_becomes_asyncpgs_ssl() -> None:
    url = store_url("postgres://agent@db.example.com/store?sslmode=require&application_name=a")
    assert dict(url.query) == {"ssl": "require", "application_name": "a"}
    kept = store_url("postgresql://agent@db/store?ssl=verify-full&sslmode=disable")
    assert dict(kept.query) == {"ssl": "verify-full", "sslmode": "disable"}


@pytest.mark.parametrize(
    "scheme", ["postgres", "postgresql", "postgresql+asyncpg"], ids=lambda scheme: scheme
)
async def test_a_postgres_url_in_any_of_its_forms_reaches_the_server(scheme: str) -> None:
    # Accepted as PostgreSQL: the failure is the server's absence, in one line.
    url = f"{scheme}://agent:s3cret@127.0.0.1:{_closed_port()}/store?sslmode=disable"
    with pytest.raises(StoreUnavailable) as raised:
        await Store.open(url)
    line = store_problem(raised.value, url)
    assert line.startswith(f"DATABASE_URL={scheme}://agent:***@127.0.0.1:")
    assert "nothing accepts connections at that host and port" in line
    assert "s3cret" not in line


async def test_a_postgres_url_opens_the_database(database_url: str) -> None:
    if database_url.startswith("sqlite"):
        pytest.skip("the postgres:// form is PostgreSQL's")
    hosted = database_url.replace("postgresql+asyncpg://", "postgres://", 1)
    async with await Store.open(hosted, migrate=True, seed_demo_data=True) as store:
        assert store.engine.url.drivername == "postgresql+asyncpg"
        assert await store.get_order("100101") is not None


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql+asyncpg://agent@db/store?password=s3cret",
            "postgresql+asyncpg://agent@db/store?password=***",
        ),
        (
            "postgres://agent:s3cret@db/store?sslmode=require&sslpassword=s3cret&pwd=s3cret",
            "postgres://agent:***@db/store?sslmode=require&sslpassword=***&pwd=***",
        ),
        (
            "postgresql://agent@db/store?auth_token=s3cret&client_secret=s3cret&passfile=x",
            "postgresql://agent@db/store?auth_token=***&client_secret=***&passfile=***",
        ),
        (
            "sqlite+aiosqlite:////var/lib/store.sqlite3",
            "sqlite+aiosqlite:////var/lib/store.sqlite3",
        ),
    ],
)
def test_shown_urls_mask_passwords_in_the_user_part_and_the_query(url: str, shown: str) -> None:
    assert shown_url(url) == f"DATABASE_URL={shown}"


RAW_PASSWORD = "Kq7@Zx9:Vb3/Wm5@Jt8"
"""A password written into the URL as it is, not percent-encoded: each of '@', ':' and '/'
ends a part of a URL for a parser that reads it left to right."""
PASSWORD_PIECES = ("Kq7", "Zx9", "Vb3", "Wm5", "Jt8")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            f"postgresql+asyncpg://agent:{RAW_PASSWORD}@db.example.com:5432/store",
            "postgresql+asyncpg://agent:***@db.example.com:5432/store",
        ),
        (
            f"postgres://agent:{RAW_PASSWORD}@db/store?sslmode=require",
            "postgres://agent:***@db/store?sslmode=require",
        ),
        ("postgresql://agent:p@ss@db/store", "postgresql://agent:***@db/store"),
        ("postgresql://agent:a/b:c@db/store", "postgresql://agent:***@db/store"),
        ("postgresql://agent:p%40ss@db/store", "postgresql://agent:***@db/store"),
    ],
)
def test_a_raw_at_colon_or_slash_in_the_password_never_shows(url: str, shown: str) -> None:
    assert shown_url(url) == f"DATABASE_URL={shown}"
    for piece in PASSWORD_PIECES:
        assert piece not in shown_url(url)


@pytest.mark.parametrize("password", [RAW_PASSWORD, "Kq7@Zx9"])
async def test_a_raw_at_in_the_password_is_one_line_that_says_how_to_write_it(
    password: str,
) -> None:
    url = f"postgresql+asyncpg://agent:{password}@db.example.com/store"
    with pytest.raises(StoreMisconfigured) as raised:
        await Store.open(url)
    line = store_problem(raised.value, url)
    assert line.startswith("DATABASE_URL=postgresql+asyncpg://agent:***@db.example.com/store: ")
    assert "%40" in line
    assert not any(piece in line for piece in PASSWORD_PIECES)


def test_an_at_in_the_query_string_is_not_taken_for_one_in_the_password() -> None:
    url = store_url("postgresql+asyncpg://agent:s3cret@db/store?application_name=ops@night")
    assert (url.host, url.password, url.query["application_name"]) == ("db", "s3cret", "ops@night")
