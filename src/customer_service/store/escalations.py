"""Hand-offs to a human: what the person taking over the call reads first."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue
from sqlalchemy import JSON, Boolean, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.tables import (
    Base,
    UTCDateTime,
    UTCTimestamp,
    record_from_row,
    row_from_record,
    utc_now,
)

__all__ = ["EscalationRecord", "EscalationRow", "EscalationStore"]


def _new_escalation_id() -> str:
    return uuid.uuid4().hex


class EscalationRecord(BaseModel):
    """A hand-off to a human: why, what is known, and what was already tried.

    `collected` is stored as given, so the caller masks personal data in it first.
    """

    model_config = ConfigDict(frozen=True)

    escalation_id: str = Field(default_factory=_new_escalation_id, min_length=1, max_length=64)
    call_id: str = Field(min_length=1, max_length=128)
    reason: str = Field(max_length=500)
    """The model's own words on why (`collected["reason_source"]`), never a fact: the
    hand-off masks them like logs and keeps at most 200 characters (older rows, 500)."""
    verified: bool
    customer_id: str | None = Field(max_length=32)
    collected: dict[str, JsonValue]
    failed_specialist: str | None = Field(max_length=64)
    failure: str | None
    summary: str = Field(max_length=2000)
    created_at: UTCTimestamp = Field(default_factory=utc_now)


class EscalationRow(Base):
    __tablename__ = "escalations"

    escalation_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    call_id: Mapped[str] = mapped_column(String(128), index=True)
    reason: Mapped[str] = mapped_column(String(500))
    verified: Mapped[bool] = mapped_column(Boolean)
    # No foreign keys, as for audit events: a hand-off may name what could not be found.
    customer_id: Mapped[str | None] = mapped_column(String(32))
    collected: Mapped[dict[str, Any]] = mapped_column(JSON)
    failed_specialist: Mapped[str | None] = mapped_column(String(64))
    failure: Mapped[str | None] = mapped_column(Text)
    summary: Mapped[str] = mapped_column(String(2000))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), index=True)


class EscalationStore(StoreCore):
    """The `Store` methods that record escalations and read them back."""

    async def add_escalation(self, record: EscalationRecord) -> None:
        """Records the escalation and its audit event together, or neither.

        The audit detail leaves out the reason, the summary and what was collected:
        those may quote the caller, and the escalation row already keeps them.
        """
        event = AuditEvent(
            call_id=record.call_id,
            kind="escalated",
            customer_id=record.customer_id,
            detail={
                "escalation_id": record.escalation_id,
                "verified": record.verified,
                "failed_specialist": record.failed_specialist,
            },
            created_at=record.created_at,
        )
        async with self._session("record an escalation") as session:
            session.add(row_from_record(record, EscalationRow))
            session.add(event_to_row(event))

    async def escalations(self, *, call_id: str | None = None) -> list[EscalationRecord]:
        """Escalations, oldest first, optionally only one call's."""
        statement = select(EscalationRow).order_by(
            EscalationRow.created_at, EscalationRow.escalation_id
        )
        if call_id is not None:
            statement = statement.where(EscalationRow.call_id == call_id)
        async with self._session("read escalations") as session:
            rows = await session.scalars(statement)
            return [record_from_row(row, EscalationRecord) for row in rows]

    async def request_callback(self, escalation_id: str, *, transfer_failure: str) -> bool:
        """Marks a hand-off whose live transfer failed as waiting for a call back.

        `collected` gains `callback_requested: true` and `transfer_failure`, and a
        `callback_requested` audit event is stored with it, or neither. (A hand-off made
        with no transfer tried is a call-back request as it stands.) No new column, so an
        older database works unchanged. Returns False when there is no such escalation.
        """
        async with self._write_session("request a call back") as session:
            row = await session.get(EscalationRow, escalation_id)
            if row is None:
                return False
            # A new dict, so the JSON column is written back.
            row.collected = {
                **row.collected,
                "callback_requested": True,
                "transfer_failure": transfer_failure,
            }
            session.add(
                event_to_row(
                    AuditEvent(
                        call_id=row.call_id,
                        kind="callback_requested",
                        customer_id=row.customer_id,
                        detail={
                            "escalation_id": escalation_id,
                            "transfer_failure": transfer_failure,
                        },
                    )
                )
            )
            return True
