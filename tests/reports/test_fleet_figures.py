"""The fleet view's figures, from reports of known content: calls by outcome, hand-offs to
people, identity locks, refusals by kind, the caller's wait at the 95th percentile per
flow and the cost per call; and the page's tables of them."""

from __future__ import annotations

from typing import Any

import pytest
from reports_folder import REPORTS, turn

from customer_service.reports.calls import calls_in
from customer_service.reports.fleet import FlowWait, fleet_of
from customer_service.reports.html import page
from customer_service.reports.summary import summarise


def with_(report: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**report, **fields}


REFUSED = {
    "kind": "delegation_refused",
    "detail": {"specialist": "returns_task", "bound": "attempts_per_specialist"},
}
FLEET = [
    with_(REPORTS[0], cost_usd=0.25),
    with_(
        REPORTS[1],
        outcome="transferred",
        cost_usd=0.5,
        audit_events=[REFUSED, REFUSED, {"kind": "identity_verified", "detail": {}}],
        turns=[turn(1, caller_to_agent_audio_s=1.5, llm_ttft_s=0.1), turn(2, llm_ttft_s=0.4)],
    ),
    with_(REPORTS[2], cost_usd=0.125),
    with_(REPORTS[2], call_id="call-4", outcome="escalated", cost_usd=None, specialists=[]),
]


def test_the_fleet_figures_count_what_an_operator_alerts_on() -> None:
    fleet = fleet_of(FLEET)

    assert fleet.calls == 4
    assert fleet.outcomes == {"resolved": 1, "transferred": 1, "locked": 1, "escalated": 1}
    assert fleet.handed_off == 2
    assert fleet.identity_locked == 1
    assert fleet.refusals == {"delegation_refused:attempts_per_specialist": 2}
    # The audio wait where measured (1.5 s), else the first token (a text turn).
    assert fleet.waits == [
        FlowWait("address_update_task", 2, 1.5),
        FlowWait("none", 1, 1.0),
        FlowWait("verify_identity_task", 3, 1.0),
    ]
    assert fleet.cost_per_call_usd == pytest.approx((0.25 + 0.5 + 0.125) / 3)
    assert fleet.cost_p95_usd == 0.5


def test_the_page_shows_the_fleet_view_when_given_it() -> None:
    summary, calls = summarise(FLEET), calls_in(FLEET)

    with_fleet = page(summary, calls, fleet_of(FLEET))

    assert 'id="fleet"' not in page(summary, calls)
    assert '<table data-table="fleet">' in with_fleet
    assert '<td>Handed to a person</td><td class="n">2</td>' in with_fleet
    assert '<table data-table="refusals">' in with_fleet
    assert "Cost per call: $0.2917 on average, $0.5000 at the 95th percentile." in with_fleet
