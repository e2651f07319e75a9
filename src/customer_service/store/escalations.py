"""Hand-offs to a human: what the person taking over the call reads first."""

from __future__ import annotations

from sqlalchemy import select

from customer_service.store.convert import escalation_from_row, escalation_to_row, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.events import AuditEvent
from customer_service.store.records import EscalationRecord
from customer_service.store.schema import EscalationRow

__all__ = ["EscalationStore"]


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
            session.add(escalation_to_row(record))
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
            return [escalation_from_row(row) for row in rows]
