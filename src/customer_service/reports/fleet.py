"""What an operator alerts on, read from call reports: calls by outcome, hand-offs to
people, identity locks, refusals by kind, the caller's wait (95th percentile) per flow
and the cost per call. The report page's fleet view shows them for the reports read; the
OTel metrics (`customer_service.telemetry.metrics`) count the same facts call by call.

A call's flow is the last specialist it ran (what the call came to be about), "none"
when it ran none. The caller's wait is each turn's time from their last word to the
agent's first audio, or to the model's first token on a call without audio.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from customer_service.reports.summary import percentile, printable

HANDED_OFF = frozenset({"escalated", "transferred"})
"""Outcomes of a call handed to a person."""
LOCKED = "locked"
NO_FLOW = "none"


@dataclass(frozen=True)
class CallFacts:
    """One call's figures, as the fleet view and the metrics count them."""

    outcome: str
    handed_off: bool
    identity_locked: bool
    refusals: list[str]
    flow: str
    waits_s: list[float]
    cost_usd: float | None


@dataclass(frozen=True)
class FlowWait:
    flow: str
    samples: int
    p95_s: float


@dataclass(frozen=True)
class Fleet:
    calls: int
    outcomes: Counter[str]
    handed_off: int
    identity_locked: int
    refusals: Counter[str]
    waits: list[FlowWait]
    cost_per_call_usd: float | None
    """The mean of the priced calls; None when none was priced."""
    cost_p95_usd: float | None


def facts_of(report: dict[str, Any]) -> CallFacts:
    outcome = printable(str(report["outcome"]))
    runs = report.get("specialists") or []
    cost = report.get("cost_usd")
    return CallFacts(
        outcome=outcome,
        handed_off=outcome in HANDED_OFF,
        identity_locked=outcome == LOCKED,
        refusals=[_refusal(event) for event in report.get("audit_events") or [] if _refused(event)],
        flow=printable(str(runs[-1]["specialist"])) if runs else NO_FLOW,
        waits_s=[wait for turn in report.get("turns") or [] if (wait := _wait(turn)) is not None],
        cost_usd=None if isinstance(cost, bool) or not isinstance(cost, int | float) else cost,
    )


def _refused(event: object) -> bool:
    return isinstance(event, dict) and "refus" in str(event.get("kind", ""))


def _refusal(event: dict[str, Any]) -> str:
    """The kind of refusal: the event's kind, and the bound or reason it names."""
    detail = event.get("detail") or {}
    why = detail.get("bound") or detail.get("reason") if isinstance(detail, dict) else None
    kind = printable(str(event["kind"]))
    return f"{kind}:{printable(str(why))}" if why else kind


def _wait(turn: object) -> float | None:
    if not isinstance(turn, dict):
        return None
    for step in ("caller_to_agent_audio_s", "llm_ttft_s"):
        value = turn.get(step)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            return float(value)
    return None


def fleet_of(reports: Iterable[dict[str, Any]]) -> Fleet:
    facts = [facts_of(report) for report in reports]
    waits: dict[str, list[float]] = defaultdict(list)
    for call in facts:
        waits[call.flow].extend(call.waits_s)
    costs = [call.cost_usd for call in facts if call.cost_usd is not None]
    return Fleet(
        calls=len(facts),
        outcomes=Counter(call.outcome for call in facts),
        handed_off=sum(call.handed_off for call in facts),
        identity_locked=sum(call.identity_locked for call in facts),
        refusals=Counter(refusal for call in facts for refusal in call.refusals),
        waits=[
            FlowWait(flow, len(samples), percentile(samples, 0.95))
            for flow, samples in sorted(waits.items())
            if samples
        ],
        cost_per_call_usd=statistics.fmean(costs) if costs else None,
        cost_p95_usd=percentile(costs, 0.95) if costs else None,
    )
