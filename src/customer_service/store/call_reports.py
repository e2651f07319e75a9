"""Call records: each call's report, the same masked JSON its file holds, as one row.

Every agent server of a fleet writes its calls' reports to the one store, so an operator
reads them all in one place (`python src/agent.py report --database-url URL`) and prunes
the old ones on a schedule (`report --prune DAYS`). The columns are what an operator
filters by; the report itself is kept whole beside them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue
from sqlalchemy import JSON, Float, String, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.store.core import StoreCore
from customer_service.store.errors import StoreUnavailable
from customer_service.store.tables import (
    Base,
    UTCDateTime,
    UTCTimestamp,
    record_from_row,
    row_from_record,
)

__all__ = ["CallReportRecord", "CallReportRow", "CallReportStore"]

SPECIALISTS_MAX = 1000
"""The width of the specialists column: far more names than one call's bounds allow."""


class CallReportRecord(BaseModel):
    """One call's report: already masked (`customer_service.reports`), stored as given."""

    model_config = ConfigDict(frozen=True)

    call_id: str = Field(min_length=1, max_length=128)
    started_at: UTCTimestamp | None
    ended_at: UTCTimestamp
    outcome: str = Field(min_length=1, max_length=32)
    specialists: str = Field(max_length=SPECIALISTS_MAX)
    """The specialists that ran, each once, in the order they first ran, comma-separated
    ("" for none): a column an operator can filter with LIKE."""
    cost_usd: float | None
    report: dict[str, JsonValue]


class CallReportRow(Base):
    __tablename__ = "call_reports"

    call_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    started_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime(), index=True)
    ended_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), index=True)
    outcome: Mapped[str] = mapped_column(String(32), index=True)
    specialists: Mapped[str] = mapped_column(String(SPECIALISTS_MAX))
    cost_usd: Mapped[float | None] = mapped_column(Float())
    report: Mapped[dict[str, Any]] = mapped_column(JSON)


class CallReportStore(StoreCore):
    """The `Store` methods that keep call reports, read them and prune them."""

    async def add_call_report(self, record: CallReportRecord) -> bool:
        """Stores the report in a transaction of its own. False when the call's report is
        already stored (a retry of a write that reached the database after all)."""
        try:
            async with self._session("store a call report") as session:
                if await session.get(CallReportRow, record.call_id) is not None:
                    return False
                session.add(row_from_record(record, CallReportRow))
        except StoreUnavailable as error:
            if isinstance(error.__cause__, IntegrityError):
                return False  # another process stored it in the meantime
            raise
        return True

    async def call_reports(
        self, *, since: dt.datetime | None = None, outcomes: Collection[str] = ()
    ) -> list[CallReportRecord]:
        """Stored reports, earliest end first: those that ended at or after `since`,
        and whose outcome is one of `outcomes` when any is given."""
        statement = select(CallReportRow).order_by(CallReportRow.ended_at, CallReportRow.call_id)
        if since is not None:
            statement = statement.where(CallReportRow.ended_at >= since)
        if outcomes:
            statement = statement.where(CallReportRow.outcome.in_(sorted(outcomes)))
        async with self._session("read call reports") as session:
            rows = await session.scalars(statement)
            return [record_from_row(row, CallReportRecord) for row in rows]

    async def prune_call_reports(self, *, ended_before: dt.datetime) -> int:
        """Deletes the reports of calls that ended before `ended_before`; how many."""
        statement = delete(CallReportRow).where(CallReportRow.ended_at < ended_before)
        async with self._session("prune call reports") as session:
            result = await session.execute(statement)
            return int(getattr(result, "rowcount", 0) or 0)
