"""The report page's charts: pygal's SVG, inlined, and nothing that runs or loads.

Each chart is rendered without pygal's tooltip script (its `js` option points at a CDN
by default), the settings it would read, and pygal's comments, so the page has no script
and refers to nothing on the network: it opens the same on a machine with no connection.
Counts are drawn on whole-number axes, outcomes in the colours of their tone
(`names.outcome_colours`), and every name in its plain form (`names.plain`).
"""

from __future__ import annotations

import math
import re
from typing import Any

import pygal
from pygal.style import Style

from customer_service.reports.names import NEUTRAL_COLOURS, outcome_colours, plain
from customer_service.reports.summary import ModelTotals, Summary

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SCRIPT = re.compile(r"<script\b.*?</script>", re.DOTALL)
"""pygal's per-chart settings for its tooltip script, which the page does not load."""
_NAMESPACE = re.compile(r'\s+xmlns(:\w+)?="[^"]*"')

MAX_COUNT_LABELS = 10


def figure(chart: Any, name: str) -> str:
    svg = chart.render(is_unicode=True, disable_xml_declaration=True)
    svg = _NAMESPACE.sub("", _SCRIPT.sub("", _COMMENT.sub("", svg)))
    return f'<figure data-chart="{name}">{svg}</figure>'


def count_axis(highest: int) -> list[int]:
    """Whole numbers from 0 past `highest`, in steps of 1, 2 or 5 times a power of ten,
    at most `MAX_COUNT_LABELS` steps."""
    magnitude = 1
    while True:
        for multiple in (1, 2, 5):
            step = multiple * magnitude
            if highest <= step * MAX_COUNT_LABELS:
                top = max(step, math.ceil(highest / step) * step)
                return list(range(0, top + 1, step))
        magnitude *= 10


def _new(kind: Any, title: str, colours: tuple[str, ...], **options: Any) -> Any:
    return kind(
        title=title,
        js=[],  # no tooltip script: it would load from the network
        style=Style(colors=colours or NEUTRAL_COLOURS),
        width=800,
        height=360,
        print_values=True,
        print_zeroes=False,  # a zero's label sits on the bar below it
        legend_at_bottom=True,
        **options,
    )


def outcomes_chart(summary: Summary) -> str:
    ranked = summary.outcomes.most_common()
    chart = _new(
        pygal.Bar,
        "Calls by outcome",
        outcome_colours([outcome for outcome, _ in ranked]),
        y_labels=count_axis(max((count for _, count in ranked), default=0)),
    )
    for outcome, count in ranked:
        chart.add(plain(outcome), [count])
    return figure(chart, "outcomes")


def delegations_chart(summary: Summary) -> str:
    specialists = sorted({specialist for specialist, _ in summary.delegations})
    outcomes = sorted({outcome for _, outcome in summary.delegations})
    runs = {
        name: sum(n for (specialist, _), n in summary.delegations.items() if specialist == name)
        for name in specialists
    }
    chart = _new(
        pygal.StackedBar,
        "Specialist runs by outcome",
        outcome_colours(outcomes),
        y_labels=count_axis(max(runs.values(), default=0)),
    )
    chart.x_labels = [plain(name) for name in specialists]
    for outcome in outcomes:
        chart.add(
            plain(outcome),
            [summary.delegations.get((name, outcome)) or None for name in specialists],
        )
    return figure(chart, "delegations")


def latency_chart(summary: Summary) -> str:
    chart = _new(
        pygal.Bar,
        "Latency per step (seconds)",
        NEUTRAL_COLOURS[2:],
        print_values_position="top",  # a short bar has no room for its value inside
    )
    chart.x_labels = [plain(step.step) for step in summary.latencies]
    chart.add("Median", [round(step.median_s, 3) for step in summary.latencies])
    chart.add("95th percentile", [round(step.p95_s, 3) for step in summary.latencies])
    return figure(chart, "latency")


def cost_chart(priced: list[ModelTotals]) -> str:
    chart = _new(pygal.Bar, "Estimated cost per model (US dollars)", NEUTRAL_COLOURS[2:])
    for model in priced:
        chart.add(model.name, [round(model.cost_usd or 0.0, 4)])
    return figure(chart, "cost")
