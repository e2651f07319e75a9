"""Failed identity checks, kept across calls: the per-account limit on guessing.

A failed check counts against every account that matches any one detail the caller
gave (the name, the phone number or the email address), so guesses spread over many
calls still run into one limit per account.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Index, String, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.domain import Customer
from customer_service.normalize import (
    digits_from_speech,
    emails_match,
    name_key,
    normalize_email,
    phones_match,
)
from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.customers import (
    PHONE_TAIL_DIGITS,
    CustomerRow,
    customer_from_row,
    postal_code_condition,
)
from customer_service.store.tables import Base, UTCDateTime, serial_id, utc_now

__all__ = ["IdentityCandidate", "IdentityFailureRow", "IdentityFailureStore"]


class IdentityFailureRow(Base):
    __tablename__ = "identity_failures"
    __table_args__ = (
        # "How many failures for this account since then": one index range scan.
        Index("ix_identity_failures_customer_failed_at", "customer_id", "failed_at"),
    )

    id: Mapped[int] = serial_id()
    # No foreign key, as for audit events: the count belongs to the account id as named.
    customer_id: Mapped[str] = mapped_column(String(32))
    failed_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), index=True)
    call_id: Mapped[str] = mapped_column(String(128))


@dataclass(frozen=True)
class IdentityCandidate:
    """A customer an identity check may match, and its recent failed checks."""

    customer: Customer
    recent_failures: int


class IdentityFailureStore(StoreCore):
    """The `Store` methods that count failed identity checks per account, across calls."""

    async def record_identity_failure(
        self, customer_ids: Sequence[str], call_id: str, at: dt.datetime | None = None
    ) -> None:
        """Records one failed check against each account (once each, however often it
        is named), all in one transaction. `at` defaults to now; it must be aware."""
        unique_ids = list(dict.fromkeys(customer_ids))
        if not unique_ids:
            return
        failed_at = at if at is not None else utc_now()
        async with self._session("record a failed identity check") as session:
            session.add_all(
                IdentityFailureRow(customer_id=customer_id, failed_at=failed_at, call_id=call_id)
                for customer_id in unique_ids
            )

    async def record_failed_identity_check(
        self,
        full_name: str,
        phone_or_email: str,
        call_id: str,
        events: Sequence[AuditEvent] = (),
    ) -> list[str]:
        """One failed check, in one transaction: counted against every account matching
        the name, the phone or the email given (`customers_matching_any`), with `events`
        stored alongside. Returns the ids of the accounts it counted against."""
        # Reads, then writes: SQLite must take the write lock first (see `_write_session`).
        async with self._write_session("record a failed identity check") as session:
            customer_ids = await _customers_matching_any(session, full_name, phone_or_email)
            failed_at = utc_now()
            session.add_all(
                IdentityFailureRow(customer_id=customer_id, failed_at=failed_at, call_id=call_id)
                for customer_id in customer_ids
            )
            session.add_all(event_to_row(event) for event in events)
        return customer_ids

    async def identity_candidates(
        self, postal_code: str, failures_since: dt.datetime
    ) -> list[IdentityCandidate]:
        """The customers filed under `postal_code` (as `customers_with_postal_code`
        finds them), each with its failed checks at or after `failures_since`: what an
        identity check needs, in one read."""
        condition = postal_code_condition(postal_code)
        if condition is None:
            return []
        failures = (
            select(func.count())
            .select_from(IdentityFailureRow)
            .where(IdentityFailureRow.customer_id == CustomerRow.customer_id)
            .where(IdentityFailureRow.failed_at >= failures_since)
            .correlate(CustomerRow)
            .scalar_subquery()
        )
        statement = select(CustomerRow, failures).where(condition).order_by(CustomerRow.customer_id)
        async with self._session("look up customers") as session:
            rows = (await session.execute(statement)).all()
            return [
                IdentityCandidate(customer_from_row(row), int(count or 0)) for row, count in rows
            ]

    async def identity_failures_since(self, customer_id: str, since: dt.datetime) -> int:
        """Failed checks counted against the account at or after `since` (aware)."""
        statement = (
            select(func.count())
            .select_from(IdentityFailureRow)
            .where(IdentityFailureRow.customer_id == customer_id)
            .where(IdentityFailureRow.failed_at >= since)
        )
        async with self._session("count failed identity checks") as session:
            return int(await session.scalar(statement) or 0)

    async def customers_matching_any(self, full_name: str, phone_or_email: str) -> list[str]:
        """Ids (sorted) of the customers whose name matches `full_name`, or whose phone
        number or email address matches `phone_or_email`, by the `normalize` rules.

        The name is an indexed equality on `name_key`. Email and phone are narrowed in
        SQL (the lower-cased address; the last digits of the number) and then decided
        by `emails_match` and `phones_match`.
        """
        async with self._session("look up customers by one detail") as session:
            return await _customers_matching_any(session, full_name, phone_or_email)


async def _customers_matching_any(
    session: AsyncSession, full_name: str, phone_or_email: str
) -> list[str]:
    matched: set[str] = set()
    contact = _contact_condition(phone_or_email)
    if contact is not None:
        rows = await session.scalars(select(CustomerRow).where(contact))
        matched.update(
            row.customer_id
            for row in rows
            if emails_match(phone_or_email, row.email)
            or phones_match(phone_or_email, row.phone, row.country)
        )
    key = name_key(full_name)
    if key:
        named = await session.scalars(
            select(CustomerRow.customer_id).where(CustomerRow.name_key == key)
        )
        matched.update(named)
    return sorted(matched)


def _contact_condition(phone_or_email: str) -> ColumnElement[bool] | None:
    """A superset, in SQL, of the customers whose phone or email `phone_or_email` may be:
    the same email key, or a number ending in the same digits."""
    conditions: list[ColumnElement[bool]] = []
    email = normalize_email(phone_or_email)
    if email is not None:
        conditions.append(CustomerRow.email_key == email)
    digits = digits_from_speech(phone_or_email)
    if len(digits) >= PHONE_TAIL_DIGITS:
        conditions.append(CustomerRow.phone_tail == digits[-PHONE_TAIL_DIGITS:])
    return or_(*conditions) if conditions else None
