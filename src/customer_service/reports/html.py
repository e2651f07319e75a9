"""`report DIR --html FILE`: the summary as one self-contained page with charts.

The charts are pygal's SVG, inlined, without pygal's tooltip script (its `js` option
points at a CDN by default), the settings it would read, and pygal's comments, so the
page has no script and refers to nothing on the network: it opens the same on a machine
with no connection.
"""

from __future__ import annotations

import html
import re
from typing import Any

import pygal
from pygal.style import DefaultStyle

from customer_service.reports.summary import (
    USAGE_AMOUNTS,
    Summary,
    calls_counted,
    dollars,
    seconds,
    usage_rows,
)

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SCRIPT = re.compile(r"<script\b.*?</script>", re.DOTALL)
"""pygal's per-chart settings for its tooltip script, which the page does not load."""
_NAMESPACE = re.compile(r'\s+xmlns(:\w+)?="[^"]*"')

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
figure {{ margin: 1em 0; }}
svg {{ max-width: 100%; height: auto; }}
</style>
</head>
<body>
<h1>Call reports: {calls}</h1>
{sections}
</body>
</html>
"""


def _chart(chart: Any, name: str) -> str:
    svg = chart.render(is_unicode=True, disable_xml_declaration=True)
    svg = _NAMESPACE.sub("", _SCRIPT.sub("", _COMMENT.sub("", svg)))
    return f'<figure data-chart="{name}">{svg}</figure>'


def _new(kind: Any, title: str) -> Any:
    return kind(
        title=title,
        js=[],  # no tooltip script: it would load from the network
        style=DefaultStyle,
        width=800,
        height=360,
        print_values=True,
        legend_at_bottom=True,
    )


def _table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(cell)}</th>" for cell in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{html.escape(cell)}</td>'
            if cell[:1].isdigit() or cell[:1] == "$"
            else f"<td>{html.escape(cell)}</td>"
            for cell in row
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def page(summary: Summary) -> str:
    outcomes = _new(pygal.Bar, "Calls by outcome")
    for outcome, count in summary.outcomes.most_common():
        outcomes.add(outcome, [count])

    specialists = sorted({specialist for specialist, _ in summary.delegations})
    delegations = _new(pygal.StackedBar, "Specialist runs by outcome")
    delegations.x_labels = specialists
    for outcome in sorted({outcome for _, outcome in summary.delegations}):
        delegations.add(
            outcome, [summary.delegations.get((name, outcome), 0) for name in specialists]
        )

    latency = _new(pygal.Bar, "Latency per step (seconds)")
    latency.x_labels = [step.step for step in summary.latencies]
    latency.add("median", [round(step.median_s, 3) for step in summary.latencies])
    latency.add("p95", [round(step.p95_s, 3) for step in summary.latencies])

    cost = _new(pygal.Bar, "Estimated cost per model (US dollars)")
    for model in summary.usage:
        cost.add(f"{model.provider}/{model.model}", [round(model.cost_usd or 0.0, 4)])

    sections = [
        "<h2>Outcomes</h2>",
        _table(
            ["outcome", "calls"],
            [[outcome, str(count)] for outcome, count in summary.outcomes.most_common()],
        ),
        _chart(outcomes, "outcomes"),
        "<h2>Specialists</h2>",
        _table(
            ["specialist", "outcome", "runs"],
            [[s, o, str(n)] for (s, o), n in sorted(summary.delegations.items())],
        ),
        _chart(delegations, "delegations"),
        "<h2>Latency</h2>",
        _table(
            ["step", "samples", "median (s)", "p95 (s)"],
            [
                [step.step, str(step.count), seconds(step.median_s), seconds(step.p95_s)]
                for step in summary.latencies
            ],
        ),
        _chart(latency, "latency"),
        "<h2>Usage and cost</h2>",
        _table(["kind", "model", *USAGE_AMOUNTS, "cost"], usage_rows(summary)),
        f"<p>Estimated cost: {html.escape(dollars(summary.cost_usd))}</p>",
        _chart(cost, "cost"),
    ]
    return PAGE.format(calls=calls_counted(summary.calls), sections="\n".join(sections))
