"""The audit record: what was decided in a call, kept apart from the data it concerns."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue
from sqlalchemy import JSON, String, select
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.store.core import StoreCore
from customer_service.store.tables import (
    Base,
    UTCDateTime,
    UTCTimestamp,
    record_from_row,
    row_from_record,
    serial_id,
    utc_now,
)

__all__ = ["AuditEvent", "AuditEventRow", "AuditStore", "event_to_row"]


class AuditEvent(BaseModel):
    """One decision or delegation in a call.

    `detail` never holds full personal data: callers pass values through
    `customer_service.privacy` first.
    """

    model_config = ConfigDict(frozen=True)

    call_id: str = Field(min_length=1, max_length=128)
    kind: str = Field(
        min_length=1,
        max_length=64,
        description='For example "identity_verified", "identity_failed", "order_disclosed".',
    )
    customer_id: str | None = Field(default=None, max_length=32)
    order_id: str | None = Field(default=None, max_length=32)
    detail: dict[str, JsonValue] = Field(default_factory=dict)
    created_at: UTCTimestamp = Field(default_factory=utc_now)

    def about(self, order_id: str) -> AuditEvent:
        """The same event, about one order (one of several it covers, say)."""
        return self.model_copy(update={"order_id": order_id})


class AuditEventRow(Base):
    __tablename__ = "audit_events"

    id: Mapped[int] = serial_id()
    call_id: Mapped[str] = mapped_column(String(128), index=True)
    kind: Mapped[str] = mapped_column(String(64), index=True)
    # No foreign keys: an audit record must outlive, and may name, rows that do not exist.
    customer_id: Mapped[str | None] = mapped_column(String(32))
    order_id: Mapped[str | None] = mapped_column(String(32))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), index=True)


def event_to_row(event: AuditEvent) -> AuditEventRow:
    """For the write methods that store their audit event in their own transaction."""
    return row_from_record(event, AuditEventRow)


class AuditStore(StoreCore):
    """The `Store` methods that write and read audit events."""

    async def add_audit_event(self, event: AuditEvent) -> None:
        await self.add_audit_events([event])

    async def add_audit_events(self, events: Sequence[AuditEvent]) -> None:
        """Stores the events in one transaction, in order: all of them or none."""
        if not events:
            return
        async with self._session("write an audit event") as session:
            session.add_all(event_to_row(event) for event in events)

    async def audit_events(
        self, *, call_id: str | None = None, kind: str | None = None
    ) -> list[AuditEvent]:
        """Audit events, oldest first, optionally only one call's and/or one kind."""
        statement = select(AuditEventRow).order_by(AuditEventRow.created_at, AuditEventRow.id)
        if call_id is not None:
            statement = statement.where(AuditEventRow.call_id == call_id)
        if kind is not None:
            statement = statement.where(AuditEventRow.kind == kind)
        async with self._session("read audit events") as session:
            rows = await session.scalars(statement)
            return [record_from_row(row, AuditEvent) for row in rows]
