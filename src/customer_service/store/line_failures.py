"""Failed identity checks counted per calling line, across calls: the bound on a guesser
who calls again and again with details that come close to no account.

A near miss counts against the account it came close to (`identity_failures`); a guess
that comes close to none (an email address that is nobody's, a name alone) counts
against no account, only against the call. Counted here as well, by the line it came
from, every failed check adds up across calls from that line, whatever it guessed
(`customer_service.call.identity_policy.line_is_held`). A line is kept as an HMAC-SHA256
of the number the phone network presented, keyed with `CALLER_LINE_SECRET`
(`line_key`), never the number in clear: without the key, trying every number does not
find it again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac

from sqlalchemy import Index, String, func, select
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.normalize import digits_from_speech
from customer_service.store.core import StoreCore
from customer_service.store.tables import Base, UTCDateTime, serial_id

__all__ = ["LineFailureRow", "LineFailureStore", "line_failure_row", "line_key"]

_KEY_CONTEXT = b"customer-service identity line\x00"
"""Put before the secret in the key, so the digest is this table's own."""


def line_key(caller_number: str, secret: str) -> str | None:
    """The key a calling number's failed checks are counted under: an HMAC-SHA256 of its
    digits keyed with `secret`, so the table holds no phone number. None for a number with
    no digits."""
    digits = digits_from_speech(caller_number)
    if not digits:
        return None
    key = _KEY_CONTEXT + secret.encode("utf-8")
    return hmac.new(key, digits.encode("ascii"), hashlib.sha256).hexdigest()


class LineFailureRow(Base):
    __tablename__ = "identity_line_failures"
    __table_args__ = (
        # "How many failures from this line since then": one index range scan.
        Index("ix_identity_line_failures_line_failed_at", "line_key", "failed_at"),
    )

    id: Mapped[int] = serial_id()
    line_key: Mapped[str] = mapped_column(String(64))
    failed_at: Mapped[dt.datetime] = mapped_column(UTCDateTime())
    call_id: Mapped[str] = mapped_column(String(128))


def line_failure_row(key: str, call_id: str, failed_at: dt.datetime) -> LineFailureRow:
    """One failed check from the line `key`, for the transaction that counts it."""
    return LineFailureRow(line_key=key, failed_at=failed_at, call_id=call_id)


class LineFailureStore(StoreCore):
    """The `Store` method that reads failed identity checks per calling line; they are
    written with the check's other counts (`IdentityFailureStore`)."""

    async def line_failures_since(self, key: str, since: dt.datetime) -> int:
        """Failed checks from the line `key` (`line_key`) at or after `since` (aware)."""
        statement = (
            select(func.count())
            .select_from(LineFailureRow)
            .where(LineFailureRow.line_key == key, LineFailureRow.failed_at >= since)
        )
        async with self._session("count failed identity checks") as session:
            return int(await session.scalar(statement) or 0)
