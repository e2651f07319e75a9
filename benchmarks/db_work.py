"""Database work during a conversation: SQL statements, transactions, write transactions.

Counted with SQLAlchemy's engine events on the store's engine (`before_cursor_execute`,
and `begin`, `commit`, `rollback` on its sync engine), so every statement the store
sends through SQLAlchemy counts, whichever method sent it:

- statements: SQL statements executed (an INSERT of several rows in one `executemany`
  is one), not counting transaction control and settings (BEGIN, PRAGMA, SAVEPOINT...):
  those are counted apart, as `control`. On SQLite the only one a call sends is the
  `BEGIN IMMEDIATE` that a read-then-write transaction starts with; the driver's own
  implicit BEGIN and the PRAGMAs set when a connection opens never pass through
  SQLAlchemy and are not counted at all.
- transactions: transactions begun on a connection, each ended by a commit or a rollback.
- writes: transactions that executed an INSERT, UPDATE or DELETE (REPLACE, too).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

_CONTROL = frozenset(
    {"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE", "PRAGMA", "SET"}
)
_WRITE = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)


@dataclass
class DatabaseWork:
    statements: int = 0
    control: int = 0
    """BEGIN, PRAGMA and the like, sent through SQLAlchemy; not in `statements`."""
    transactions: int = 0
    writes: int = 0
    """Transactions that executed an INSERT, UPDATE or DELETE."""


def _first_word(statement: str) -> str:
    words = statement.split(None, 1)
    return words[0].upper() if words else ""


def is_write(statement: str) -> bool:
    """An INSERT, UPDATE or DELETE, also after a WITH clause; not SELECT ... FOR UPDATE."""
    verb = _first_word(statement)
    if verb in ("INSERT", "UPDATE", "DELETE", "REPLACE"):
        return True
    return verb == "WITH" and _WRITE.search(statement) is not None


@contextmanager
def counting(engine: AsyncEngine) -> Iterator[DatabaseWork]:
    """The work done on `engine` inside the block, by every user of the engine (so give
    the counted call an engine of its own)."""
    work = DatabaseWork()
    wrote: dict[Connection, bool] = {}
    """The transactions open now, by connection, and whether each has written."""

    def before_cursor_execute(
        conn: Connection, _cursor: Any, statement: str, *_args: Any, **_kwargs: Any
    ) -> None:
        if _first_word(statement) in _CONTROL:
            work.control += 1
            return
        work.statements += 1
        if is_write(statement):
            wrote[conn] = True

    def begin(conn: Connection) -> None:
        work.transactions += 1
        wrote[conn] = False

    def end(conn: Connection) -> None:
        if wrote.pop(conn, False):
            work.writes += 1

    listeners: list[tuple[str, Callable[..., None]]] = [
        ("before_cursor_execute", before_cursor_execute),
        ("begin", begin),
        ("commit", end),
        ("rollback", end),
    ]
    target = engine.sync_engine
    for name, listener in listeners:
        event.listen(target, name, listener)
    try:
        yield work
    finally:
        for name, listener in listeners:
            event.remove(target, name, listener)
