"""Consent answers: topic, answer, wording version and time, as the caller gave them."""

from __future__ import annotations

from sqlalchemy import select

from customer_service.store.convert import consent_from_row, consent_to_row, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.events import AuditEvent
from customer_service.store.records import ConsentRecord
from customer_service.store.schema import ConsentRow

__all__ = ["ConsentStore"]


class ConsentStore(StoreCore):
    """The `Store` methods that record consent answers and read the one in force."""

    async def record_consent(self, record: ConsentRecord) -> None:
        """Records the answer and its audit event together, or neither."""
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
            session.add(consent_to_row(record))
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
            return None if row is None else consent_from_row(row)
