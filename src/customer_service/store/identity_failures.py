"""Failed identity checks, kept across calls: the per-account limit on guessing.

A failed check counts against an account only when it came close to it: at least
`NEAR_MISS_FACTORS` of the three details (the name, the postal code, the phone number
or email address) match that account. Guesses at one account spread over many calls
still run into one limit per account, while a stranger who knows one public detail (a
name, an email address) cannot put a customer, or every namesake, over it. Each counted
check keeps whether it was made of the name and postal code alone (`label_only`): those
two are printed on every parcel, and the hold rule (`customer_service.call.identity_hold`)
weighs them apart. An operator releases a held account (`release_identity_hold`); the
audit event keeps what was cleared.

Under `IDENTITY_POLICY=email-or-name-zip`, where the email address alone or the name
and postal code together verify, a failed check counts against the account whose email
it gave (the kind with the contact), and, when it gave a name with a postal code,
against every account of that name (the label-only kind): those are the guesses aimed
at one account (`record_failed_email_or_name_zip_check`). An email that is nobody's,
a postal code, or a name given without one counts against nobody.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import JsonValue
from sqlalchemy import Boolean, ColumnElement, Index, String, delete, false, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.selectable import ScalarSelect

from customer_service.domain import Customer
from customer_service.normalize import (
    digits_from_speech,
    emails_match,
    name_key,
    names_match,
    normalize_email,
    phones_match,
    postal_codes_match,
)
from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.customers import (
    PHONE_TAIL_DIGITS,
    CustomerRow,
    customer_from_row,
    postal_code_condition,
)
from customer_service.store.tables import Base, UTCDateTime, serial_id

__all__ = [
    "HOLD_RELEASED",
    "NEAR_MISS_FACTORS",
    "IdentityCandidate",
    "IdentityFailureRow",
    "IdentityFailureStore",
    "IdentityHoldRelease",
    "NearMiss",
]

NEAR_MISS_FACTORS = 2
"""Of the three details a check compares (name, postal code, phone or email), how many
must match an account for a failed check to count against it."""

HOLD_RELEASED = "identity_hold_released"
"""The audit kind of a release: what was cleared, when, and by whom."""


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
    label_only: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """The check matched the account's name and postal code and not its phone or email.
    Rows from before the column read as false: counted as the stricter kind."""


@dataclass(frozen=True)
class NearMiss:
    """One account a failed check came close to."""

    customer_id: str
    label_only: bool
    """Only the name and postal code matched: the two details on a parcel label."""


@dataclass(frozen=True)
class IdentityCandidate:
    """A customer an identity check may match, and its recent failed checks."""

    customer: Customer
    recent_failures: int
    """Every near miss counted against the account within the window."""
    recent_label_only: int
    """Those of them made of the name and postal code alone."""

    @property
    def recent_with_contact(self) -> int:
        """Near misses within the window that matched the phone number or email address."""
        return self.recent_failures - self.recent_label_only


@dataclass(frozen=True)
class IdentityHoldRelease:
    """What releasing one account's hold cleared: its failed checks, however old."""

    customer_id: str
    failures: int
    first_failed_at: dt.datetime | None
    last_failed_at: dt.datetime | None
    call_ids: tuple[str, ...]
    """The calls the cleared failures came from, oldest first, each once."""


class IdentityFailureStore(StoreCore):
    """The `Store` methods that count failed identity checks per account, across calls."""

    async def record_identity_failure(
        self,
        customer_ids: Sequence[str],
        call_id: str,
        at: dt.datetime | None = None,
        *,
        label_only: bool = False,
    ) -> None:
        """Records one failed check against each account (once each, however often it
        is named), all in one transaction, each of the kind `label_only` says. `at`
        defaults to the store's clock's now; it must be aware."""
        unique_ids = list(dict.fromkeys(customer_ids))
        if not unique_ids:
            return
        failed_at = at if at is not None else self.clock.now()
        async with self._session("record a failed identity check") as session:
            session.add_all(
                IdentityFailureRow(
                    customer_id=customer_id,
                    failed_at=failed_at,
                    call_id=call_id,
                    label_only=label_only,
                )
                for customer_id in unique_ids
            )

    async def record_failed_identity_check(
        self,
        full_name: str,
        postal_code: str,
        phone_or_email: str,
        call_id: str,
        events: Sequence[AuditEvent] = (),
    ) -> list[str]:
        """One failed check, in one transaction: counted against every account it came
        close to (`near_miss_accounts`), with `events` stored alongside. Returns the ids
        of the accounts it counted against."""
        # Reads, then writes: SQLite must take the write lock first (see `_write_session`).
        async with self._write_session("record a failed identity check") as session:
            near_misses = await _near_misses(session, full_name, postal_code, phone_or_email)
            return self._counted(session, near_misses, call_id, events)

    async def record_failed_email_or_name_zip_check(
        self,
        email: str,
        full_name: str,
        postal_code: str,
        call_id: str,
        events: Sequence[AuditEvent] = (),
    ) -> list[str]:
        """One failed check under `IDENTITY_POLICY=email-or-name-zip`, in one
        transaction: counted against the account whose email address is `email`, and,
        when `postal_code` was given too, against each account named `full_name` (see
        the module's docstring), with `events` stored alongside. Returns the ids of the
        accounts it counted against."""
        async with self._write_session("record a failed identity check") as session:
            near_misses = await _email_or_name_zip_near_misses(
                session, email, full_name, postal_code
            )
            return self._counted(session, near_misses, call_id, events)

    def _counted(
        self,
        session: AsyncSession,
        near_misses: list[NearMiss],
        call_id: str,
        events: Sequence[AuditEvent],
    ) -> list[str]:
        """Adds one failed check against each near miss, and `events`, to `session`'s
        transaction; the ids it counted against."""
        failed_at = self.clock.now()
        session.add_all(
            IdentityFailureRow(
                customer_id=near_miss.customer_id,
                failed_at=failed_at,
                call_id=call_id,
                label_only=near_miss.label_only,
            )
            for near_miss in near_misses
        )
        session.add_all(event_to_row(event) for event in events)
        return [near_miss.customer_id for near_miss in near_misses]

    async def identity_candidates(
        self, postal_code: str, failures_since: dt.datetime
    ) -> list[IdentityCandidate]:
        """The customers filed under `postal_code` (as `customers_with_postal_code`
        finds them), each with its failed checks at or after `failures_since`, of both
        kinds: what an identity check needs, in one read."""
        condition = postal_code_condition(postal_code)
        if condition is None:
            return []

        def failures(*only: ColumnElement[bool]) -> ScalarSelect[int]:
            return (
                select(func.count())
                .select_from(IdentityFailureRow)
                .where(IdentityFailureRow.customer_id == CustomerRow.customer_id)
                .where(IdentityFailureRow.failed_at >= failures_since, *only)
                .correlate(CustomerRow)
                .scalar_subquery()
            )

        statement = (
            select(CustomerRow, failures(), failures(IdentityFailureRow.label_only.is_(True)))
            .where(condition)
            .order_by(CustomerRow.customer_id)
        )
        async with self._session("look up customers") as session:
            rows = (await session.execute(statement)).all()
            return [
                IdentityCandidate(customer_from_row(row), int(every or 0), int(label_only or 0))
                for row, every, label_only in rows
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

    async def near_miss_accounts(
        self, full_name: str, postal_code: str, phone_or_email: str
    ) -> list[str]:
        """Ids (sorted) of the customers with at least `NEAR_MISS_FACTORS` of the three
        details matching, by the `normalize` rules: whom a failed check counts against.

        Two matching details always include the name or the phone or email, so the
        customers are found by indexed equalities on those (`name_key`; the lower-cased
        address; the last digits of the number) and the details compared in code.
        """
        async with self._session("look up customers by their details") as session:
            near_misses = await _near_misses(session, full_name, postal_code, phone_or_email)
            return [near_miss.customer_id for near_miss in near_misses]

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


async def _near_misses(
    session: AsyncSession, full_name: str, postal_code: str, phone_or_email: str
) -> list[NearMiss]:
    found = _name_or_contact_condition(full_name, phone_or_email)
    if found is None:
        return []
    near_misses: list[NearMiss] = []
    for row in await session.scalars(select(CustomerRow).where(found)):
        name = names_match(full_name, row.full_name)
        postal = postal_codes_match(postal_code, row.postal_code, row.country)
        contact = emails_match(phone_or_email, row.email) or phones_match(
            phone_or_email, row.phone, row.country
        )
        if name + postal + contact >= NEAR_MISS_FACTORS:
            near_misses.append(NearMiss(row.customer_id, label_only=not contact))
    return sorted(near_misses, key=lambda near_miss: near_miss.customer_id)


async def _email_or_name_zip_near_misses(
    session: AsyncSession, email: str, full_name: str, postal_code: str
) -> list[NearMiss]:
    email_key = normalize_email(email)
    name = name_key(full_name) if postal_code.strip() else ""
    conditions: list[ColumnElement[bool]] = []
    if email_key is not None:
        conditions.append(CustomerRow.email_key == email_key)
    if name:
        conditions.append(CustomerRow.name_key == name)
    if not conditions:
        return []
    near_misses: list[NearMiss] = []
    for row in await session.scalars(select(CustomerRow).where(or_(*conditions))):
        if email_key is not None and emails_match(email, row.email):
            near_misses.append(NearMiss(row.customer_id, label_only=False))
        elif name and names_match(full_name, row.full_name):
            near_misses.append(NearMiss(row.customer_id, label_only=True))
    return sorted(near_misses, key=lambda near_miss: near_miss.customer_id)


def _name_or_contact_condition(full_name: str, phone_or_email: str) -> ColumnElement[bool] | None:
    """A superset, in SQL, of the customers whose name is `full_name` or whose phone or
    email `phone_or_email` may be: the same name key, the same email key, or a number
    ending in the same digits. One read, each part an indexed equality."""
    conditions: list[ColumnElement[bool]] = []
    key = name_key(full_name)
    if key:
        conditions.append(CustomerRow.name_key == key)
    email = normalize_email(phone_or_email)
    if email is not None:
        conditions.append(CustomerRow.email_key == email)
    digits = digits_from_speech(phone_or_email)
    if len(digits) >= PHONE_TAIL_DIGITS:
        conditions.append(CustomerRow.phone_tail == digits[-PHONE_TAIL_DIGITS:])
    return or_(*conditions) if conditions else None
