"""Each call of a folder of reports as the page lists it: when it started, how it ended,
how long it lasted, the specialists that ran and how each turn was timed.

Counts and timings only: what was said stays in the reports (masked, and withheld when
the caller did not agree to recording), never on the page.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from customer_service.reports.summary import printable
from customer_service.reports.turns import STEPS

TURN_STEPS = tuple(step for step in STEPS if step not in ("tool_s", "specialist_s"))
"""The steps timed once per turn; tools and specialists are timed one by one."""


@dataclass(frozen=True)
class SpecialistRun:
    specialist: str
    outcome: str
    duration_s: float | None


@dataclass(frozen=True)
class TurnTimings:
    turn: int
    steps: dict[str, float]
    """Each of `TURN_STEPS` the turn measured, in seconds."""
    tool_calls: int
    tool_s: float | None
    """The time of its timed tool calls together; None when none was timed."""


@dataclass(frozen=True)
class Call:
    call_id: str
    started_at: datetime | None
    """In UTC; None when the report does not say."""
    outcome: str
    duration_s: float | None
    specialists: list[SpecialistRun]
    turns: list[TurnTimings]


def calls_in(reports: Iterable[dict[str, Any]]) -> list[Call]:
    """One `Call` per report, earliest start first; calls without a start come last."""
    calls = [_call(report) for report in reports]
    return sorted(
        calls, key=lambda call: (call.started_at is None, call.started_at or datetime.min)
    )


def date_range(calls: Iterable[Call]) -> tuple[datetime, datetime] | None:
    """The first and the last call's start, when any report gives one."""
    starts = [call.started_at for call in calls if call.started_at is not None]
    return (min(starts), max(starts)) if starts else None


def _call(report: dict[str, Any]) -> Call:
    duration_ms = _measure(report.get("duration_ms"))
    return Call(
        call_id=printable(str(report.get("call_id") or "-")),
        started_at=_moment(report.get("started_at")),
        outcome=printable(report["outcome"]),
        duration_s=None if duration_ms is None else duration_ms / 1000,
        specialists=[
            SpecialistRun(
                printable(run["specialist"]),
                printable(run["outcome"]),
                None if (ms := _measure(run.get("duration_ms"))) is None else ms / 1000,
            )
            for run in report.get("specialists", [])
        ],
        turns=[_turn(turn) for turn in report.get("turns", [])],
    )


def _turn(turn: dict[str, Any]) -> TurnTimings:
    tools = turn.get("tools", [])
    timed = [seconds for tool in tools if (seconds := _measure(tool.get("duration_s"))) is not None]
    return TurnTimings(
        turn=turn["turn"] if isinstance(turn.get("turn"), int) else 0,
        steps={
            step: seconds
            for step in TURN_STEPS
            if (seconds := _measure(turn.get(step))) is not None
        },
        tool_calls=len(tools),
        tool_s=sum(timed) if timed else None,
    )


def _measure(value: object) -> float | None:
    """A duration as a report holds it; None for anything that is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def _moment(value: object) -> datetime | None:
    if (seconds := _measure(value)) is None:
        return None
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None  # a time no calendar holds
