"""Near misses counted against an account from earlier calls, seeded and read back, for
the identity hold's tests under either `IDENTITY_POLICY`."""

from __future__ import annotations

import datetime as dt

from customer_service.store import Store
from support.clock import TEST_NOW

JORDAN_ID = "C-1001"


async def seed_near_misses(
    database_url: str, count: int, *, label_only: bool, customer_id: str = JORDAN_ID
) -> None:
    """`count` near misses against the account from earlier calls, an hour ago."""
    async with await Store.open(database_url) as store:
        for index in range(count):
            await store.record_identity_failure(
                [customer_id],
                f"call-earlier-{index}",
                at=TEST_NOW - dt.timedelta(hours=1),
                label_only=label_only,
            )


async def near_misses_counted(database_url: str, customer_id: str = JORDAN_ID) -> int:
    """Every near miss counted against the account within a year of the tests' time."""
    async with await Store.open(database_url) as store:
        return await store.identity_failures_since(customer_id, TEST_NOW - dt.timedelta(days=365))
