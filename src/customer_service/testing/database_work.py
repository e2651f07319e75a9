"""What a store does in the database, recorded from SQLAlchemy's engine events.

    with recording(store.engine) as work:
        ...  # a call, a store method
    work.statements, work.transactions, work.writes   # counts
    work.committed                                    # each transaction's statements

Every statement sent through SQLAlchemy counts, whichever method sent it. Each is kept as
its first three words ("INSERT INTO audit_events"). Transaction control and settings
(BEGIN, PRAGMA, SAVEPOINT, ...) are kept in their transaction but counted apart, as
`control`: on SQLite the only one a call sends is the `BEGIN IMMEDIATE` that starts a
read-then-write transaction; the driver's own implicit BEGIN and the PRAGMAs run when a
connection opens never pass through SQLAlchemy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["DatabaseWork", "Transaction", "is_control", "is_write", "recording"]

_CONTROL = frozenset(
    {"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE", "PRAGMA", "SET"}
)
_WRITE_VERBS = frozenset({"INSERT", "UPDATE", "DELETE", "REPLACE"})
_WRITE = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)


def _first_word(statement: str) -> str:
    words = statement.split(None, 1)
    return words[0].upper() if words else ""


def is_control(statement: str) -> bool:
    return _first_word(statement) in _CONTROL


def is_write(statement: str) -> bool:
    """An INSERT, UPDATE or DELETE, also after a WITH clause; not SELECT ... FOR UPDATE."""
    verb = _first_word(statement)
    return verb in _WRITE_VERBS or (verb == "WITH" and _WRITE.search(statement) is not None)


@dataclass
class Transaction:
    statements: list[str] = field(default_factory=list)
    """Each statement's first three words, control statements included."""
    wrote: bool = False
    committed: bool = False


@dataclass
class DatabaseWork:
    """Transactions ended on the engine while recording, in the order they ended."""

    transactions_ended: list[Transaction] = field(default_factory=list)

    @property
    def committed(self) -> list[list[str]]:
        """The committed transactions, each as its statements."""
        return [t.statements for t in self.transactions_ended if t.committed]

    @property
    def writes_committed(self) -> list[list[str]]:
        """The committed transactions that wrote something, each as its statements."""
        return [t.statements for t in self.transactions_ended if t.committed and t.wrote]

    @property
    def statements(self) -> int:
        """Statements other than transaction control and settings."""
        return sum(
            not is_control(statement)
            for transaction in self.transactions_ended
            for statement in transaction.statements
        )

    @property
    def control(self) -> int:
        """BEGIN, PRAGMA and the like sent through SQLAlchemy; not in `statements`."""
        return sum(
            is_control(statement)
            for transaction in self.transactions_ended
            for statement in transaction.statements
        )

    @property
    def transactions(self) -> int:
        return len(self.transactions_ended)

    @property
    def writes(self) -> int:
        """Transactions that executed an INSERT, UPDATE or DELETE, committed or not."""
        return sum(transaction.wrote for transaction in self.transactions_ended)


@contextmanager
def recording(engine: AsyncEngine) -> Iterator[DatabaseWork]:
    """The work done on `engine` inside the block, by every user of the engine (so give
    the recorded call an engine, or a store, of its own)."""
    work = DatabaseWork()
    open_transactions: dict[int, Transaction] = {}
    """The transactions open now, by connection."""

    def executed(connection: Any, _cursor: Any, statement: str, *_: Any) -> None:
        transaction = open_transactions.setdefault(id(connection), Transaction())
        transaction.statements.append(" ".join(statement.split()[:3]))
        transaction.wrote = transaction.wrote or is_write(statement)

    def ended(committed: bool) -> Any:
        def end(connection: Any) -> None:
            transaction = open_transactions.pop(id(connection), Transaction())
            transaction.committed = committed
            work.transactions_ended.append(transaction)

        return end

    listeners = (
        ("before_cursor_execute", executed),
        ("commit", ended(committed=True)),
        ("rollback", ended(committed=False)),
    )
    target = engine.sync_engine
    for name, listener in listeners:
        event.listen(target, name, listener)
    try:
        yield work
    finally:
        for name, listener in listeners:
            event.remove(target, name, listener)
