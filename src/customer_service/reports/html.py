"""`report DIR --html FILE`: the summary and each call, as one self-contained page.

At the top, the days the calls span; then the figures, each table beside its chart
(`charts`), and the fleet view (`fleet_view`); then every call in a list, each linked to
its details further down (`call_details`); at the end, each name the page uses beside
the name the reports and the text summary give it, with what it means (`names`). The
page holds no script and refers to nothing on the network.
"""

from __future__ import annotations

import html

from customer_service.reports.call_details import call_sections, calls_list
from customer_service.reports.calls import Call, date_range
from customer_service.reports.charts import (
    cost_chart,
    delegations_chart,
    latency_chart,
    outcomes_chart,
)
from customer_service.reports.fleet import Fleet
from customer_service.reports.fleet_view import fleet_section
from customer_service.reports.markup import Vocabulary, table, when
from customer_service.reports.summary import (
    USAGE_AMOUNTS,
    StepLatency,
    Summary,
    calls_counted,
    estimated_cost,
    seconds,
    usage_rows,
)

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Call reports: {calls}</title>
<style>
body {{ font-family: sans-serif; margin: 2em auto; max-width: 60em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
th, td {{ border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; }}
td.n {{ text-align: right; }}
abbr[title] {{ text-decoration: underline dotted; cursor: help; }}
figure {{ margin: 1em 0; }}
svg {{ max-width: 100%; height: auto; }}
section.call {{ border-top: 1px solid #ccc; margin-top: 1.5em; }}
section.call:target {{ background: #fff8dc; }}
</style>
</head>
<body>
<h1>Call reports: {calls}</h1>
{sections}
</body>
</html>
"""


def dates(calls: list[Call]) -> str:
    span = date_range(calls)
    if span is None:
        text = "No report says when its call started."
    elif span[0] == span[1]:
        text = f"Calls started at {when(span[0])} (UTC)."
    else:
        text = f"Calls started from {when(span[0])} to {when(span[1])} (UTC)."
    return f'<p id="dates">{html.escape(text)}</p>'


def _spread(step: StepLatency) -> list[str]:
    return [seconds(step.median_s), seconds(step.p95_s)]


def page(summary: Summary, calls: list[Call], fleet: Fleet | None = None) -> str:
    """The page; with `fleet`, its fleet view after the usage."""
    names = Vocabulary()
    priced = [model for model in summary.usage if model.cost_usd is not None]
    sections = [
        dates(calls),
        '<nav><a href="#calls">Each call</a> · <a href="#names">What the names mean</a></nav>',
        '<section id="outcomes"><h2>Outcomes</h2>',
        table(
            "outcomes",
            ["Outcome", "Calls"],
            [[names.cell(outcome), str(n)] for outcome, n in summary.outcomes.most_common()],
        ),
        outcomes_chart(summary),
        '</section><section id="specialists"><h2>Specialists</h2>',
        table(
            "delegations",
            ["Specialist", "Outcome", "Runs"],
            [
                [names.cell(specialist), names.cell(outcome), str(n)]
                for (specialist, outcome), n in sorted(summary.delegations.items())
            ],
        ),
        delegations_chart(summary) if summary.delegations else "<p>No specialist ran.</p>",
        '</section><section id="latency"><h2>Latency</h2>',
        table(
            "latency",
            ["Step", "Samples", "Median (s)", "95th percentile (s)"],
            [
                [names.cell(step.step), str(step.count), *_spread(step)]
                for step in summary.latencies
            ],
        ),
        latency_chart(summary) if summary.latencies else "<p>No step was timed.</p>",
        '</section><section id="usage"><h2>Usage and cost</h2>',
        table(
            "usage",
            ["Kind", "Model", *(names.cell(amount) for amount in USAGE_AMOUNTS), "Cost"],
            [[names.cell(kind), *rest] for kind, *rest in usage_rows(summary)],
        ),
        f"<p>Estimated cost: {html.escape(estimated_cost(summary))}</p>",
        cost_chart(priced) if priced else "",
        "</section>",
        fleet_section(fleet, names) if fleet is not None else "",
        calls_list(calls, names),
        call_sections(calls, names),
        names.glossary(),
    ]
    return PAGE.format(calls=calls_counted(summary.calls), sections="\n".join(sections))
