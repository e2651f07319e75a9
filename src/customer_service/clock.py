"""The one "now" of the agent: every time rule (the identity check's window, when a
consent was asked or an address changed, the demo data's dates) reads it from a `Clock`,
never from the system directly, so that tests can pin it.

The store carries the clock it was opened with (`Store.clock`) and the call reads the
store's (`CallState.clock`).
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol

__all__ = ["Clock", "FixedClock", "SystemClock"]


class Clock(Protocol):
    def now(self) -> dt.datetime:
        """The current time, timezone-aware, in UTC."""
        ...

    def today(self) -> dt.date:
        """The current day in UTC, the day `now()` falls on."""
        ...


class SystemClock:
    """The system's time."""

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)

    def today(self) -> dt.date:
        return self.now().date()


class FixedClock:
    """A clock that stands still at `at` until `advance` or `set` moves it: for tests."""

    def __init__(self, at: dt.datetime) -> None:
        self._at = _utc(at)

    def now(self) -> dt.datetime:
        return self._at

    def today(self) -> dt.date:
        return self._at.date()

    def advance(self, by: dt.timedelta) -> None:
        self._at += by

    def set(self, at: dt.datetime) -> None:
        self._at = _utc(at)

    def __repr__(self) -> str:
        return f"FixedClock({self._at.isoformat()})"


def _utc(at: dt.datetime) -> dt.datetime:
    if at.tzinfo is None:
        raise ValueError("a clock's time must be timezone-aware")
    return at.astimezone(dt.UTC)
