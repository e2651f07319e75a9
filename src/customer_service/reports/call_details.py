"""The report page's calls: one line each in a list, linked to its details further down.

A call's details are counts and timings: how it ended, the specialists that ran with
how each ended and how long it took, and each turn's timed steps and tool calls. A
plain table per call keeps a page of hundreds of calls readable without a script.
"""

from __future__ import annotations

import html
from collections import Counter

from customer_service.reports.calls import TURN_STEPS, Call
from customer_service.reports.markup import Cell, Vocabulary, duration, link, table, when
from customer_service.reports.summary import seconds


def anchor(position: int) -> str:
    """The id of the call's details: its place in the list, from 1."""
    return f"call-{position}"


def specialists_run(call: Call, names: Vocabulary) -> str:
    """ "Identity check, Delivery address change"; a specialist run more than once is
    named once with how often: "Identity check (2)"."""
    runs = Counter(run.specialist for run in call.specialists)
    return ", ".join(
        names.label(name) + (f" ({count})" if count > 1 else "") for name, count in runs.items()
    )


def calls_list(calls: list[Call], names: Vocabulary) -> str:
    rows: list[list[Cell]] = [
        [
            when(call.started_at) if call.started_at else "-",
            link(anchor(position), call.call_id),
            names.label(call.outcome),
            duration(call.duration_s),
            specialists_run(call, names),
        ]
        for position, call in enumerate(calls, start=1)
    ]
    return (
        '<section id="calls"><h2>Each call</h2>'
        "<p>Earliest first; each call links to its details below.</p>"
        + table("calls", ["Started (UTC)", "Call", "Outcome", "Duration", "Specialists"], rows)
        + "</section>"
    )


def call_sections(calls: list[Call], names: Vocabulary) -> str:
    return "\n".join(
        _details(call, anchor(position), names) for position, call in enumerate(calls, start=1)
    )


def _details(call: Call, anchor: str, names: Vocabulary) -> str:
    started = f"{when(call.started_at)} (UTC)" if call.started_at else "at a time not recorded"
    caller_turns = sum(1 for turn in call.turns if turn.turn > 0)
    parts = [
        f'<section class="call" id="{anchor}"><h3>{html.escape(call.call_id)}</h3>',
        f"<p>Started {html.escape(started)}; {names.cell(call.outcome)}; "
        f"{html.escape(duration(call.duration_s))}; "
        f"{caller_turns} caller turn{'' if caller_turns == 1 else 's'}.</p>",
    ]
    if call.specialists:
        parts.append(
            table(
                "specialists",
                ["Specialist", "Outcome", "Time (s)"],
                [
                    [
                        names.cell(run.specialist),
                        names.cell(run.outcome),
                        "-" if run.duration_s is None else seconds(run.duration_s),
                    ]
                    for run in call.specialists
                ],
            )
        )
    else:
        parts.append("<p>No specialist ran.</p>")
    measured = [step for step in TURN_STEPS if any(step in turn.steps for turn in call.turns)]
    if call.turns:
        parts.append(
            table(
                "turns",
                ["Turn", *(names.cell(step) for step in measured), "Tool calls", "Tool time (s)"],
                [
                    [
                        str(turn.turn),
                        *(
                            seconds(turn.steps[step]) if step in turn.steps else "-"
                            for step in measured
                        ),
                        str(turn.tool_calls),
                        "-" if turn.tool_s is None else seconds(turn.tool_s),
                    ]
                    for turn in call.turns
                ],
            )
        )
    else:
        parts.append("<p>No turn was timed.</p>")
    parts.append(f"<p>{link('calls', 'Back to the list of calls')}</p></section>")
    return "\n".join(parts)
