"""Consent answers: topic, answer, wording version and time, as the caller gave them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Boolean, Index, String, select
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.tables import (
    Base,
    UTCDateTime,
    UTCTimestamp,
    record_from_row,
    row_from_record,
    serial_id,
)

__all__ = ["ConsentRecord", "ConsentRow", "ConsentStore"]


class ConsentRecord(BaseModel):
    """A caller's answer to a consent question asked in fixed, versioned wording."""

    model_config = ConfigDict(frozen=True)

    topic: str = Field(min_length=1, max_length=64)
    granted: bool
    wording_version: str = Field(min_length=1, max_length=32)
    asked_at: UTCTimestamp
    call_id: str = Field(min_length=1, max_length=128)
    customer_id: str | None = Field(
        default=None,
        max_length=32,
        description="None when the caller was not verified; the consent then binds the call.",
    )


class ConsentRow(Base):
    __tablename__ = "consents"
    __table_args__ = (
        Index("ix_consents_topic_customer_asked_at", "topic", "customer_id", "asked_at"),
        Index("ix_consents_topic_call_asked_at", "topic", "call_id", "asked_at"),
    )

    id: Mapped[int] = serial_id()
    topic: Mapped[str] = mapped_column(String(64))
    granted: Mapped[bool] = mapped_column(Boolean)
    wording_version: Mapped[str] = mapped_column(String(32))
    asked_at: Mapped[dt.datetime] = mapped_column(UTCDateTime())
    call_id: Mapped[str] = mapped_column(String(128))
    # No foreign key: consent is often asked before, or without, identity verification.
    customer_id: Mapped[str | None] = mapped_column(String(32))


class ConsentStore(StoreCore):
    """The `Store` methods that record consent answers and read the one in force."""

    async def record_consent(
        self, record: ConsentRecord, other_events: Sequence[AuditEvent] = ()
    ) -> None:
        """Records the answer and its audit event together, or neither; `other_events`
        (audit events kept for the call's next write) go in the same transaction."""
        event = AuditEvent(
            call_id=record.call_id,
            kind="consent_recorded",
            customer_id=record.customer_id,
            detail={
                "topic": record.topic,
                "granted": record.granted,
                "wording_version": record.wording_version,
            },
            created_at=record.asked_at,
        )
        async with self._session("record a consent") as session:
            session.add_all(event_to_row(kept) for kept in other_events)
            session.add(row_from_record(record, ConsentRow))
            session.add(event_to_row(event))

    async def latest_consent(
        self, *, topic: str, customer_id: str | None = None, call_id: str | None = None
    ) -> ConsentRecord | None:
        """The newest answer (by `asked_at`) on `topic` of one customer or of one call.

        Give exactly one of `customer_id` and `call_id`; anything else raises ValueError,
        since an answer on the wrong scope would be someone else's consent.
        """
        if (customer_id is None) == (call_id is None):
            raise ValueError("give exactly one of customer_id and call_id")
        statement = select(ConsentRow).where(ConsentRow.topic == topic)
        if customer_id is not None:
            statement = statement.where(ConsentRow.customer_id == customer_id)
        else:
            statement = statement.where(ConsentRow.call_id == call_id)
        # Among answers given in the same instant, the one recorded last wins.
        statement = statement.order_by(ConsentRow.asked_at.desc(), ConsentRow.id.desc()).limit(1)
        async with self._session("read consents") as session:
            row = await session.scalar(statement)
            return None if row is None else record_from_row(row, ConsentRecord)
