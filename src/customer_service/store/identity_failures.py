"""Failed identity checks, kept across calls: the per-account limit on guessing.

A failed check counts against every account that matches any one detail the caller
gave (the name, the phone number or the email address), so guesses spread over many
calls still run into one limit per account.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import ColumnElement, Index, String, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.normalize import (
    digits_from_speech,
    emails_match,
    names_match,
    normalize_email,
    normalize_name,
    phones_match,
)
from customer_service.store.core import StoreCore
from customer_service.store.customers import CustomerRow
from customer_service.store.tables import Base, UTCDateTime, serial_id, utc_now

__all__ = ["IdentityFailureRow", "IdentityFailureStore"]

_PHONE_SUFFIX_DIGITS = 4
"""Digits at the end of a phone number that survive every way of saying it (with or
without country code, trunk prefix or carrier code): the SQL filter before `phones_match`."""
_NAME_BATCH = 500
"""Customers' names read per query while matching a name; bounds memory, not work."""


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

        Email and phone are narrowed in SQL (the lower-cased address; the last digits of
        the number) and then decided by `emails_match` and `phones_match`. Names are
        decided by `names_match` alone, which ignores accents, case and separators: no
        portable SQL expression does that, so names are read in batches of id and name
        only, never the whole table at once. (An indexed, normalised name column on
        `customers` would make this an equality; it needs a migration first.)
        """
        matched: set[str] = set()
        async with self._session("look up customers by one detail") as session:
            contact = _contact_condition(phone_or_email)
            if contact is not None:
                rows = await session.scalars(select(CustomerRow).where(contact))
                matched.update(
                    row.customer_id
                    for row in rows
                    if emails_match(phone_or_email, row.email)
                    or phones_match(phone_or_email, row.phone, row.country)
                )
            if normalize_name(full_name):
                matched.update(await _customers_named(session, full_name))
        return sorted(matched)


async def _customers_named(session: AsyncSession, full_name: str) -> list[str]:
    """Ids of the customers `names_match` says are called `full_name`, reading names in
    batches by key so that memory stays bounded however many customers there are."""
    named: list[str] = []
    after = ""
    while True:
        statement = (
            select(CustomerRow.customer_id, CustomerRow.full_name)
            .where(CustomerRow.customer_id > after)
            .order_by(CustomerRow.customer_id)
            .limit(_NAME_BATCH)
        )
        batch = (await session.execute(statement)).all()
        named.extend(customer_id for customer_id, name in batch if names_match(full_name, name))
        if len(batch) < _NAME_BATCH:
            return named
        after = batch[-1][0]


def _contact_condition(phone_or_email: str) -> ColumnElement[bool] | None:
    """A superset, in SQL, of the customers whose phone or email `phone_or_email` may be."""
    conditions: list[ColumnElement[bool]] = []
    email = normalize_email(phone_or_email)
    if email is not None:
        conditions.append(func.lower(func.trim(CustomerRow.email)) == email)
    digits = digits_from_speech(phone_or_email)
    if digits:
        # Digits only, so nothing in the pattern is a LIKE wildcard.
        conditions.append(CustomerRow.phone.like(f"%{digits[-_PHONE_SUFFIX_DIGITS:]}"))
    return or_(*conditions) if conditions else None
