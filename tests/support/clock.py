"""The tests' time: every store a test's calls open runs on a `FixedClock` that starts at
`TEST_NOW` (the `clock` fixture), so no test depends on the real date."""

from __future__ import annotations

import datetime as dt

from customer_service.domain import Order
from customer_service.store.seed import demo_orders

TEST_NOW = dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.UTC)
TEST_DAY = TEST_NOW.date()

DEMO_ORDERS: tuple[Order, ...] = demo_orders(TEST_DAY)
"""The demo orders as the tests' stores are seeded with them (on `TEST_DAY`)."""
