"""The fleet's figures as OTel metrics, call by call (`record_call`, at each call's end),
and the store's report writes (`count_report_write`). The instruments are the global
meter provider's: no-ops until `exporters.install_otlp` installs one.

Attributes are outcomes, flows, refusal kinds and results: words the code chose.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import metrics as metrics_api

from customer_service.reports.fleet import facts_of

__all__ = ["count_report_write", "record_call"]

_meter = metrics_api.get_meter("customer_service")
_calls = _meter.create_counter("customer_service.calls", description="Calls by outcome")
_handoffs = _meter.create_counter(
    "customer_service.handoffs", description="Calls handed to a person (transfer or call back)"
)
_identity_locks = _meter.create_counter(
    "customer_service.identity_locks", description="Calls whose identity checks locked"
)
_refusals = _meter.create_counter("customer_service.refusals", description="Refusals by kind")
_wait = _meter.create_histogram(
    "customer_service.caller_wait", unit="s", description="The caller's wait per turn, by flow"
)
_cost = _meter.create_histogram(
    "customer_service.call_cost", unit="USD", description="Estimated cost per call"
)
_report_writes = _meter.create_counter(
    "customer_service.call_report_writes", description="Call report rows by result"
)


def record_call(report: dict[str, Any]) -> None:
    """Counts one finished call from its report."""
    facts = facts_of(report)
    _calls.add(1, {"outcome": facts.outcome})
    if facts.handed_off:
        _handoffs.add(1, {"outcome": facts.outcome})
    if facts.identity_locked:
        _identity_locks.add(1)
    for refusal in facts.refusals:
        _refusals.add(1, {"kind": refusal})
    for wait in facts.waits_s:
        _wait.record(wait, {"flow": facts.flow})
    if facts.cost_usd is not None:
        _cost.record(facts.cost_usd)


def count_report_write(result: str) -> None:
    """One call report row: stored, failed or retried."""
    _report_writes.add(1, {"result": result})
