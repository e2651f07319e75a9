"""What a store does in the database, counted from the engine's own events."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event

from customer_service.store import Store

_WRITES = ("INSERT", "UPDATE", "DELETE")


@dataclass
class Transactions:
    """Committed transactions, each as the first words of the statements it ran."""

    committed: list[list[str]] = field(default_factory=list)
    _open: dict[int, list[str]] = field(default_factory=dict)

    @property
    def writes(self) -> list[list[str]]:
        """The committed transactions that wrote something."""
        return [
            statements
            for statements in self.committed
            if any(statement.startswith(_WRITES) for statement in statements)
        ]


@contextmanager
def transactions(store: Store) -> Iterator[Transactions]:
    """Counts the transactions `store`'s engine commits while the block runs. Each
    statement is kept as its verb and table ("INSERT INTO audit_events")."""
    seen = Transactions()
    engine = store.engine.sync_engine

    def executed(connection: Any, cursor: Any, statement: str, *_: Any) -> None:
        words = " ".join(statement.split()[:3])
        seen._open.setdefault(id(connection), []).append(words)

    def committed(connection: Any) -> None:
        seen.committed.append(seen._open.pop(id(connection), []))

    def rolled_back(connection: Any) -> None:
        seen._open.pop(id(connection), None)

    listeners = (
        ("before_cursor_execute", executed),
        ("commit", committed),
        ("rollback", rolled_back),
    )
    for name, listener in listeners:
        event.listen(engine, name, listener)
    try:
        yield seen
    finally:
        for name, listener in listeners:
            event.remove(engine, name, listener)
