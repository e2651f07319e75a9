"""The report page's fleet view: what an operator alerts on (`fleet`), as tables."""

from __future__ import annotations

import html

from customer_service.reports.fleet import Fleet
from customer_service.reports.markup import Vocabulary, table
from customer_service.reports.summary import dollars, seconds


def fleet_section(fleet: Fleet, names: Vocabulary) -> str:
    cost = (
        f"Cost per call: {dollars(fleet.cost_per_call_usd)} on average, "
        f"{dollars(fleet.cost_p95_usd)} at the 95th percentile."
        if fleet.cost_per_call_usd is not None
        else "Cost per call: not priced."
    )
    return "\n".join(
        [
            '<section id="fleet"><h2>Fleet</h2>',
            table(
                "fleet",
                ["Figure", "Calls"],
                [
                    ["Calls", str(fleet.calls)],
                    ["Handed to a person", str(fleet.handed_off)],
                    ["Identity checks locked", str(fleet.identity_locked)],
                ],
            ),
            table(
                "refusals",
                ["Refusal", "Times"],
                [[names.cell(kind), str(n)] for kind, n in sorted(fleet.refusals.items())]
                or [["none", "0"]],
            ),
            table(
                "wait",
                ["Flow (last specialist)", "Turns", "Caller's wait, 95th percentile (s)"],
                [
                    [names.cell(wait.flow), str(wait.samples), seconds(wait.p95_s)]
                    for wait in fleet.waits
                ],
            ),
            f"<p>{html.escape(cost)}</p>",
            "</section>",
        ]
    )
