"""`python src/agent.py report DIR`: a folder of call reports summarised.

Calls by outcome, specialist runs by specialist and outcome, the median and 95th
percentile of each timed step, and usage and estimated cost per model, as plain-text
tables (or one HTML page with charts, `html`).
"""

from __future__ import annotations

import json
import math
import os
import stat
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from customer_service.reports.turns import STEPS

USAGE_AMOUNTS = ("input_tokens", "output_tokens", "characters", "audio_s")


def calls_counted(calls: int) -> str:
    """ "1 call", "12 calls"."""
    return f"{calls} call" if calls == 1 else f"{calls} calls"


class NoReports(Exception):
    """The folder holds no call report."""


@dataclass(frozen=True)
class StepLatency:
    step: str
    count: int
    median_s: float
    p95_s: float


@dataclass
class ModelTotals:
    kind: str
    provider: str
    model: str
    amounts: dict[str, float] = field(default_factory=dict)
    cost_usd: float | None = 0.0
    """None when some call could not price this model (no entry in the price table)."""

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.model}".strip("/")


@dataclass(frozen=True)
class Summary:
    calls: int
    outcomes: Counter[str]
    delegations: Counter[tuple[str, str]]
    latencies: list[StepLatency]
    usage: list[ModelTotals]

    @property
    def cost_usd(self) -> float:
        return sum(model.cost_usd or 0.0 for model in self.usage)


MAX_REPORT_BYTES = 16 * 1024 * 1024
"""A file larger than this is not read: a call's report is far smaller."""


@dataclass(frozen=True)
class Skipped:
    """A file of the folder that was not summarised, and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class Loaded:
    reports: list[dict[str, Any]]
    skipped: list[Skipped]


class _Checked(BaseModel):
    model_config = ConfigDict(strict=True)


class _Tool(_Checked):
    pass


class _Turn(_Checked):
    tools: list[_Tool] = []


class _SpecialistRun(_Checked):
    specialist: str
    outcome: str


class _Usage(_Checked):
    kind: str
    provider: str
    model: str
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    characters: float = 0.0
    audio_s: float = 0.0
    cost_usd: float | None = None


class _Report(_Checked):
    """What the summary reads of a report, checked before it is read: a file of another
    shape is skipped instead of stopping the summary."""

    outcome: str
    call_id: str | None = None
    started_at: float | None = None
    duration_ms: float | None = None
    turns: list[_Turn] = []
    specialists: list[_SpecialistRun] = []
    usage: list[_Usage] = []


def read_reports(directory: Path) -> Loaded:
    """The call reports among the `*.json` files of `directory`, and every other such
    file with the reason it was left out. Only regular files of at most MAX_REPORT_BYTES
    are read, opened so that a FIFO or a device never blocks. Raises `NoReports` when
    none is a call report."""
    if not directory.is_dir():
        raise NoReports(f"{printable(str(directory))} is not a folder.")
    reports: list[dict[str, Any]] = []
    skipped: list[Skipped] = []
    for path in sorted(directory.glob("*.json")):
        try:
            reports.append(_report_in(path))
        except _NotAReport as reason:
            skipped.append(Skipped(printable(path.name), str(reason)))
    if not reports:
        raise NoReports(
            f"{printable(str(directory))} holds no call report (REPORT_DIR writes them)."
        )
    return Loaded(reports, skipped)


def load(directory: Path) -> list[dict[str, Any]]:
    """Every call report in `directory` (files that are not one are left out)."""
    return read_reports(directory).reports


class _NotAReport(Exception):
    """Why a file is not summarised, in a few words."""


def _report_in(path: Path) -> dict[str, Any]:
    try:
        text = _bounded_text(path)
    except OSError as error:
        raise _NotAReport(f"cannot be read: {error.strerror or type(error).__name__}") from error
    try:
        content = json.loads(text, parse_constant=_not_a_number)
    except RecursionError as error:
        raise _NotAReport("not JSON: nested too deep") from error
    except ValueError as error:
        raise _NotAReport(f"not JSON: {printable(str(error))}") from error
    return _checked(content)


def checked_reports(named: Iterable[tuple[str, object]], *, where: str) -> Loaded:
    """The call reports among `named` contents (each with the name a skipped one is
    shown by), checked as a folder's files are; `NoReports` names `where` when none is."""
    reports: list[dict[str, Any]] = []
    skipped: list[Skipped] = []
    for name, content in named:
        try:
            reports.append(_checked(content))
        except _NotAReport as reason:
            skipped.append(Skipped(printable(name), str(reason)))
    if not reports:
        raise NoReports(f"{where} holds no call report.")
    return Loaded(reports, skipped)


def _checked(content: object) -> dict[str, Any]:
    if not isinstance(content, dict) or "report_version" not in content:
        raise _NotAReport("not a call report: it has no report_version")
    try:
        _Report.model_validate(content)
    except ValidationError as error:
        [first, *_] = error.errors()
        where = ".".join(str(part) for part in first["loc"])
        raise _NotAReport(f"not a call report: {printable(where)}: {first['msg']}") from error
    return content


def _not_a_number(constant: str) -> Any:
    # Python's reader takes NaN and Infinity, which JSON has not: no figure of a call is
    # infinite, and one that were would break every median and chart it reached.
    raise ValueError(f"{constant} is not a number JSON allows")


def _bounded_text(path: Path) -> str:
    # Non-blocking: opening a FIFO for reading would otherwise wait for a writer.
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise _NotAReport("not a regular file")
        if status.st_size > MAX_REPORT_BYTES:
            raise _NotAReport(f"larger than {MAX_REPORT_BYTES} bytes")
        with os.fdopen(os.dup(descriptor), "rb") as file:
            data = file.read(MAX_REPORT_BYTES + 1)
    finally:
        os.close(descriptor)
    if len(data) > MAX_REPORT_BYTES:
        raise _NotAReport(f"larger than {MAX_REPORT_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _NotAReport("not UTF-8 text") from error


def printable(text: str) -> str:
    """`text` with each character that does not print (terminal escapes, line breaks,
    direction overrides) written as its escape: "\\x1b", "\\n", "\\u202e"."""
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile: a value that was measured, never an interpolation."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def summarise(reports: Iterable[dict[str, Any]]) -> Summary:
    reports = list(reports)
    samples: dict[str, list[float]] = defaultdict(list)
    delegations: Counter[tuple[str, str]] = Counter()
    usage: dict[tuple[str, str, str], ModelTotals] = {}
    for report in reports:
        for turn in report.get("turns", []):
            for step in STEPS:
                if isinstance(value := turn.get(step), int | float):
                    samples[step].append(float(value))
            for tool in turn.get("tools", []):
                if isinstance(value := tool.get("duration_s"), int | float):
                    samples["tool_s"].append(float(value))
        for run in report.get("specialists", []):
            delegations[(printable(run["specialist"]), printable(run["outcome"]))] += 1
            if isinstance(value := run.get("duration_ms"), int | float):
                samples["specialist_s"].append(value / 1000)
        for entry in report.get("usage", []):
            key = (
                printable(entry["kind"]),
                printable(entry["provider"]),
                printable(entry["model"]),
            )
            totals = usage.setdefault(key, ModelTotals(*key))
            for amount in USAGE_AMOUNTS:
                if amount in entry:
                    totals.amounts[amount] = totals.amounts.get(amount, 0) + entry[amount]
            if entry.get("cost_usd") is None:
                totals.cost_usd = None
            elif totals.cost_usd is not None:
                totals.cost_usd += entry["cost_usd"]
    latencies = [
        StepLatency(
            step,
            len(samples[step]),
            statistics.median(samples[step]),
            percentile(samples[step], 0.95),
        )
        for step in STEPS
        if samples[step]
    ]
    return Summary(
        calls=len(reports),
        outcomes=Counter(printable(report["outcome"]) for report in reports),
        delegations=delegations,
        latencies=latencies,
        usage=sorted(usage.values(), key=lambda m: (m.kind, m.provider, m.model)),
    )


def table(headers: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell; numbers right-aligned."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.rjust(width) if _is_number(cell) else cell.ljust(width)
            for cell, width in zip(cells, widths, strict=True)
        ).rstrip()

    return "\n".join(
        [line(headers), line(["-" * width for width in widths])] + [line(row) for row in rows]
    )


def _is_number(cell: str) -> bool:
    return cell.removeprefix("$").removesuffix("%").replace(".", "", 1).isdigit()


def seconds(value: float) -> str:
    return f"{value:.3f}"


def dollars(value: float | None) -> str:
    return "not priced" if value is None else f"${value:.4f}"


def estimated_cost(summary: Summary) -> str:
    """The folder's cost, saying which models it leaves out for want of a price: "$1.2000",
    "$1.2000 for the priced models; not priced: acme/unknown", or "not priced"."""
    unpriced = list(dict.fromkeys(m.name for m in summary.usage if m.cost_usd is None))
    if not unpriced:
        return dollars(summary.cost_usd)
    if all(model.cost_usd is None for model in summary.usage):
        return dollars(None)
    return f"{dollars(summary.cost_usd)} for the priced models; not priced: {', '.join(unpriced)}"


def usage_rows(summary: Summary) -> list[list[str]]:
    return [
        [
            model.kind,
            model.name,
            *(_amount(model.amounts.get(amount)) for amount in USAGE_AMOUNTS),
            dollars(model.cost_usd),
        ]
        for model in summary.usage
    ]


def _amount(value: float | None) -> str:
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def as_text(summary: Summary) -> str:
    outcome_rows = [
        [outcome, str(count), f"{100 * count / summary.calls:.0f}%"]
        for outcome, count in summary.outcomes.most_common()
    ]
    delegation_rows = [
        [specialist, outcome, str(count)]
        for (specialist, outcome), count in sorted(summary.delegations.items())
    ]
    latency_rows = [
        [step.step, str(step.count), seconds(step.median_s), seconds(step.p95_s)]
        for step in summary.latencies
    ]
    parts = [
        calls_counted(summary.calls),
        table(["outcome", "calls", "share"], outcome_rows),
        table(["specialist", "outcome", "runs"], delegation_rows or [["-", "-", "0"]]),
        table(["step", "samples", "median_s", "p95_s"], latency_rows or [["-", "0", "-", "-"]]),
        table(
            ["kind", "model", *USAGE_AMOUNTS, "cost"],
            usage_rows(summary) or [["-", "-", "-", "-", "-", "-", "-"]],
        ),
        f"estimated cost: {estimated_cost(summary)}",
    ]
    return "\n\n".join(parts) + "\n"
