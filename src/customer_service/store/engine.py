"""How the store connects: one async engine per URL, tuned for its backend.

SQLite files run in WAL mode (readers never wait for the writer, the writer never waits
for readers) with a busy timeout, so a second writer waits for the lock instead of
failing at once. A server database gets a sized pool of connections that are checked
before use. Only the async drivers are supported: `sqlite+aiosqlite` and
`postgresql+asyncpg`; `postgres://` and `postgresql://`, the form hosting providers give,
mean the latter (`store_url`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from customer_service.store.errors import StoreMisconfigured, database_errors, split_credentials

__all__ = [
    "CONNECT_TIMEOUT_S",
    "POSTGRES_EXTRA",
    "SQLITE_BUSY_TIMEOUT_S",
    "PoolSize",
    "create_store_engine",
    "is_sqlite_memory",
    "store_url",
]

SQLITE_BUSY_TIMEOUT_S = 15.0
"""How long a SQLite connection waits for another one's write lock before it gives up."""
CONNECT_TIMEOUT_S = 10.0
"""How long connecting to a database server may take before the attempt fails."""
POSTGRES_EXTRA = "pip install '.[postgres]'"
"""What installs the PostgreSQL driver (the container image has it)."""

_URL_EXAMPLES = (
    "sqlite+aiosqlite:///path/to/store.sqlite3 or postgresql+asyncpg://user:password@host/dbname"
)
_NOT_A_URL = f"It is not a database URL; use {_URL_EXAMPLES}."
_RAW_AT = (
    "Its user name or password holds a raw '@': write it as %40 in the URL (and ':' as "
    "%3A, '/' as %2F)."
)
_DRIVERS = frozenset({("sqlite", "aiosqlite"), ("postgresql", "asyncpg")})
"""The async drivers the store is built and tested on (backend, driver)."""
_POSTGRES_WITHOUT_DRIVER = frozenset({"postgres", "postgresql"})
"""Schemes that name PostgreSQL and no driver: hosted databases hand out such URLs."""


@dataclass(frozen=True)
class PoolSize:
    """Connections one engine keeps to a database server; SQLite ignores it."""

    size: int = 5
    max_overflow: int = 10


def is_sqlite_memory(url: URL) -> bool:
    return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")


def store_url(database_url: str) -> URL:
    """`database_url` as the store connects to it. `postgres://` and `postgresql://` mean
    PostgreSQL through asyncpg, and libpq's `sslmode` query parameter (in hosted URLs)
    becomes asyncpg's `ssl`, which takes the same values.

    Raises `StoreMisconfigured` when it is not a URL or names a driver the store does not
    use (read from the URL alone: no dialect is loaded to find out).
    """
    _, credentials = split_credentials(database_url)
    raw_at = credentials is not None and "@" in credentials
    try:
        url = make_url(database_url)
    except (ArgumentError, ValueError) as exc:  # ValueError: a port that is not a number
        raise StoreMisconfigured(_RAW_AT if raw_at else _NOT_A_URL) from exc
    if raw_at and "@" in (url.host or ""):
        # SQLAlchemy ends the password at its first '@' and would look up the rest as the
        # host name.
        raise StoreMisconfigured(_RAW_AT)
    if url.drivername in _POSTGRES_WITHOUT_DRIVER:
        url = url.set(drivername="postgresql+asyncpg")
    backend, _, driver = url.drivername.partition("+")
    if (backend, driver) not in _DRIVERS:
        raise StoreMisconfigured(
            f"It names the driver {url.drivername}, which the store does not use; "
            f"use {_URL_EXAMPLES}."
        )
    if backend == "postgresql" and "sslmode" in url.query and "ssl" not in url.query:
        query = dict(url.query)
        query["ssl"] = query.pop("sslmode")
        url = url.set(query=query)
    return url


def create_store_engine(database_url: str, pool: PoolSize | None = None) -> AsyncEngine:
    """An engine for `database_url` (as `store_url` reads it); nothing connects yet.

    Raises `StoreMisconfigured` when the URL is malformed, names another driver, or
    names one that is not installed (asyncpg: `pip install '.[postgres]'`), and
    `StoreUnavailable` when a SQLite file's folder cannot be created.
    """
    url = store_url(database_url)
    options: dict[str, Any] = {}
    sqlite = url.get_backend_name() == "sqlite"
    if is_sqlite_memory(url):
        # One connection, or every connection would be a database of its own.
        options["poolclass"] = StaticPool
    elif sqlite:
        # No pre-ping: a file has no server to restart, and each ping costs a round
        # trip through the driver's thread on every transaction.
        with database_errors("create the database directory"):
            _create_sqlite_directory(url)
    else:
        pool = pool or PoolSize()
        options.update(
            # Notice a server restart between calls instead of failing the next query.
            pool_pre_ping=True,
            pool_size=pool.size,
            max_overflow=pool.max_overflow,
            connect_args={"timeout": CONNECT_TIMEOUT_S},  # asyncpg's own default: 60 s
        )
    try:
        # Errors and SQL log lines would otherwise quote the bound values: caller data.
        engine = create_async_engine(url, hide_parameters=True, **options)
    except ModuleNotFoundError as exc:
        install = POSTGRES_EXTRA if url.get_driver_name() == "asyncpg" else "pip install ."
        raise StoreMisconfigured(
            f"Its database driver, {url.get_driver_name()}, is not installed: install it "
            f"with `{install}` (the container image has it)."
        ) from exc
    if sqlite and not is_sqlite_memory(url):
        event.listen(engine.sync_engine, "connect", _tune_sqlite_connection)
    return engine


def _tune_sqlite_connection(dbapi_connection: Any, _record: Any) -> None:
    """WAL mode (kept in the file once set) and the busy timeout, on every new connection."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
    finally:
        cursor.close()


def _create_sqlite_directory(url: URL) -> None:
    """Creates the folder of a SQLite file; SQLite creates the file but not its folder."""
    if not url.database or url.database.startswith("file:"):
        # A URI filename (uri=true) may carry query parameters; leave it to SQLite.
        return
    Path(url.database).parent.mkdir(parents=True, exist_ok=True)
