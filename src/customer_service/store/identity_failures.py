"""Failed identity checks, kept across calls: the per-account limit on guessing.

A failed check counts against an account only when it came close to it: at least
`NEAR_MISS_FACTORS` of the three details (the name, the postal code, the phone number
or email address) match that account. Guesses at one account spread over many calls
still run into one limit per account, while a stranger who knows one public detail (a
name, an email address) cannot put a customer, or every namesake, over it. Each counted
check keeps whether it was made of the name and postal code alone (`label_only`): those
two are printed on every parcel, and the hold rule (`customer_service.call.identity_hold`)
weighs them apart. An operator releases a held account (`customer_service.store.identity_release`).

Under `IDENTITY_POLICY=email-or-name-zip`, where the email address alone or the name
and postal code together verify, a failed check counts against the account whose email
it gave (the kind with the contact), and, when it gave a name with that account's
postal code, against the account (the label-only kind): those are the guesses aimed at
one account (`record_failed_email_or_name_zip_check`). An email that is nobody's, a
postal code, or a name, alone or with a postal code not its account's, counts against
nobody.

Under either policy a failed check from a phone line that presented a number is also
counted against that line, in the same transaction (`customer_service.store.line_failures`).
Both counts are written by the same statements whether the check came close to an
account or not, and the accounts a check may match are read in one query either way, so
the time a check takes tells nothing about whether a detail was someone's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import (
    Boolean,
    ColumnElement,
    Index,
    String,
    case,
    false,
    func,
    insert,
    literal,
    or_,
    select,
)
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
from customer_service.store.line_failures import line_failure_row
from customer_service.store.tables import Base, UTCDateTime, serial_id

__all__ = [
    "NEAR_MISS_FACTORS",
    "IdentityCandidate",
    "IdentityFailureRow",
    "IdentityFailureStore",
    "NearMiss",
]

NEAR_MISS_FACTORS = 2
"""Of the three details a check compares (name, postal code, phone or email), how many
must match an account for a failed check to count against it."""


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
        *,
        line: str | None = None,
    ) -> list[str]:
        """One failed check, in one transaction: counted against every account it came
        close to (`near_miss_accounts`) and against the calling `line` (a `line_key`),
        with `events` stored alongside. Returns the ids of the accounts it counted
        against."""
        # Reads, then writes: SQLite must take the write lock first (see `_write_session`).
        async with self._write_session("record a failed identity check") as session:
            near_misses = await _near_misses(session, full_name, postal_code, phone_or_email)
            return await self._counted(session, near_misses, call_id, events, line)

    async def record_failed_email_or_name_zip_check(
        self,
        email: str,
        full_name: str,
        postal_code: str,
        call_id: str,
        events: Sequence[AuditEvent] = (),
        *,
        line: str | None = None,
    ) -> list[str]:
        """One failed check under `IDENTITY_POLICY=email-or-name-zip`, in one
        transaction: counted against the account whose email address is `email`, and
        against each account named `full_name` whose postal code is `postal_code` (see
        the module's docstring), and against the calling `line`, with `events` stored
        alongside. Returns the ids of the accounts it counted against."""
        async with self._write_session("record a failed identity check") as session:
            near_misses = await _email_or_name_zip_near_misses(
                session, email, full_name, postal_code
            )
            return await self._counted(session, near_misses, call_id, events, line)

    async def _counted(
        self,
        session: AsyncSession,
        near_misses: list[NearMiss],
        call_id: str,
        events: Sequence[AuditEvent],
        line: str | None,
    ) -> list[str]:
        """Adds one failed check against each near miss and the line, and `events`, to
        `session`'s transaction; the ids it counted against. The accounts' rows are one
        INSERT ... SELECT, run for none as for some: the same statements either way."""
        failed_at = self.clock.now()
        ids = [near_miss.customer_id for near_miss in near_misses]
        label_only = [near_miss.customer_id for near_miss in near_misses if near_miss.label_only]
        counted = select(
            CustomerRow.customer_id,
            literal(failed_at, UTCDateTime()),
            literal(call_id),
            case((CustomerRow.customer_id.in_(label_only), True), else_=False),
        ).where(CustomerRow.customer_id.in_(ids))
        columns = ["customer_id", "failed_at", "call_id", "label_only"]
        await session.execute(insert(IdentityFailureRow).from_select(columns, counted))
        if line is not None:
            session.add(line_failure_row(line, call_id, failed_at))
        session.add_all(event_to_row(event) for event in events)
        return ids

    async def identity_candidates(
        self, postal_code: str, failures_since: dt.datetime
    ) -> list[IdentityCandidate]:
        """The customers filed under `postal_code` (as `customers_with_postal_code`
        finds them), each with its failed checks at or after `failures_since`, of both
        kinds: what an identity check needs, in one read."""
        condition = postal_code_condition(postal_code)
        if condition is None:
            return []
        return await self._candidates(condition, failures_since)

    async def identity_candidates_by_email(
        self, email: str, failures_since: dt.datetime
    ) -> list[IdentityCandidate]:
        """The customers whose email address is `email`, each with its failed checks at or
        after `failures_since`: one read, the same whether anyone has it or not."""
        key = normalize_email(email)
        condition = false() if key is None else CustomerRow.email_key == key
        return await self._candidates(condition, failures_since)

    async def _candidates(
        self, condition: ColumnElement[bool], failures_since: dt.datetime
    ) -> list[IdentityCandidate]:
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
        elif (
            name
            and names_match(full_name, row.full_name)
            and postal_codes_match(postal_code, row.postal_code, row.country)
        ):
            # The label case: a name alone is public, and counts against nobody.
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
