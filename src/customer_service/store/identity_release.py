"""An operator's release of a held account: every failed check counted against it is
cleared, in one transaction with an audit event that keeps what was cleared (the rows
are gone, so the event is their record)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pydantic import JsonValue
from sqlalchemy import delete, select

from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.customers import CustomerRow
from customer_service.store.identity_failures import IdentityFailureRow

__all__ = ["HOLD_RELEASED", "IdentityHoldRelease", "IdentityReleaseStore"]

HOLD_RELEASED = "identity_hold_released"
"""The audit kind of a release: what was cleared, when, and by whom."""


@dataclass(frozen=True)
class IdentityHoldRelease:
    """What releasing one account's hold cleared: its failed checks, however old."""

    customer_id: str
    failures: int
    first_failed_at: dt.datetime | None
    last_failed_at: dt.datetime | None
    call_ids: tuple[str, ...]
    """The calls the cleared failures came from, oldest first, each once."""


class IdentityReleaseStore(StoreCore):
    """The `Store` method an operator releases a held account with."""

    async def release_identity_hold(
        self, customer_id: str, *, call_id: str, released_by: str
    ) -> IdentityHoldRelease | None:
        """Clears every failed check counted against the account, in one transaction with
        a `HOLD_RELEASED` audit event that keeps what was cleared. None, writing nothing,
        when no customer has that id."""
        async with self._write_session("release an identity hold") as session:
            if await session.get(CustomerRow, customer_id) is None:
                return None
            failures = (
                await session.execute(
                    select(IdentityFailureRow.failed_at, IdentityFailureRow.call_id)
                    .where(IdentityFailureRow.customer_id == customer_id)
                    .order_by(IdentityFailureRow.failed_at, IdentityFailureRow.id)
                )
            ).all()
            await session.execute(
                delete(IdentityFailureRow).where(IdentityFailureRow.customer_id == customer_id)
            )
            release = IdentityHoldRelease(
                customer_id=customer_id,
                failures=len(failures),
                first_failed_at=failures[0].failed_at if failures else None,
                last_failed_at=failures[-1].failed_at if failures else None,
                call_ids=tuple(dict.fromkeys(failure.call_id for failure in failures)),
            )
            session.add(event_to_row(_release_event(release, call_id, released_by)))
        return release


def _release_event(release: IdentityHoldRelease, call_id: str, released_by: str) -> AuditEvent:
    # The failure rows are gone once released: the event is their record.
    def when(moment: dt.datetime | None) -> str | None:
        return None if moment is None else moment.isoformat()

    call_ids: list[JsonValue] = list(release.call_ids)
    return AuditEvent(
        call_id=call_id,
        kind=HOLD_RELEASED,
        customer_id=release.customer_id,
        detail={
            "released_by": released_by,
            "failures_cleared": release.failures,
            "first_failed_at": when(release.first_failed_at),
            "last_failed_at": when(release.last_failed_at),
            "failed_call_ids": call_ids,
        },
    )
