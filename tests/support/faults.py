"""Database faults on demand, at the edge between the store and its driver.

For tests of what the agent does when the store fails. A fault is an engine event, so
everything above the driver (the store's transactions, its error mapping, the code
that calls it) runs as it would in a real outage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection

from customer_service.store import Store, StoreUnavailable

__all__ = ["fail_everything", "fail_writes", "lose_after_commit"]

_WRITE_STATEMENTS = frozenset({"INSERT", "UPDATE", "DELETE"})


def fail_writes(store: Store) -> Callable[[], None]:
    """Makes every INSERT, UPDATE and DELETE of `store` fail with "database is locked".

    Reads keep working, as when another process holds SQLite's write lock. Returns the
    function that removes the fault; calling it again does nothing.
    """
    return _install(store, lambda statement: _first_word(statement) in _WRITE_STATEMENTS)


def lose_after_commit(store: Store, *writes: str) -> None:
    """Makes each of `store`'s `writes` (method names) commit, then fail as a connection
    that dropped before the answer came back: the change is made, the caller of the
    method sees an outage."""
    for name in writes:
        write = getattr(store, name)

        async def committed_then_lost(*arguments: Any, _write: Any = write, **named: Any) -> Any:
            await _write(*arguments, **named)
            raise StoreUnavailable("the connection dropped after the commit")

        setattr(store, name, committed_then_lost)


def fail_everything(store: Store) -> Callable[[], None]:
    """Makes every statement of `store` fail with "database is locked", reads included.

    Returns the function that removes the fault; calling it again does nothing.
    """
    return _install(store, lambda statement: True)


def _install(store: Store, applies: Callable[[str], bool]) -> Callable[[], None]:
    engine = store.engine.sync_engine

    def fail(
        connection: Connection,
        cursor: Any,
        statement: str,
        parameters: Any,
        context: Any,
        executemany: bool,
    ) -> None:
        if applies(statement):
            # The dialect's own class, so SQLAlchemy wraps it as it would a real error:
            # on SQLite this is sqlite3.OperationalError, on PostgreSQL asyncpg's adapter.
            raise connection.dialect.loaded_dbapi.OperationalError("database is locked")

    event.listen(engine, "before_cursor_execute", fail)

    def undo() -> None:
        if event.contains(engine, "before_cursor_execute", fail):
            event.remove(engine, "before_cursor_execute", fail)

    return undo


def _first_word(statement: str) -> str:
    words = statement.split(maxsplit=1)
    return words[0].upper() if words else ""
