"""`python src/agent.py report`: call reports summarised, from a folder (`DIR`, one
machine's REPORT_DIR) or from the store every server writes to (`--database-url URL`),
as text and, with `--html FILE`, as one page with charts and the fleet view. Also
`--prune [DAYS]`, which deletes the store's reports older than DAYS
(REPORT_RETENTION_DAYS by default), and `DIR --store-unstored`, which stores the
folder's reports that a failed write left out of the store."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from customer_service.entry import MISCONFIGURED_EXIT_CODE
from customer_service.reports.summary import (
    Loaded,
    NoReports,
    as_text,
    printable,
    read_reports,
    summarise,
)

DESCRIPTION = (
    "Summarise call reports, from a folder (REPORT_DIR) or from the store every agent "
    "server writes them to (--database-url): calls by outcome, specialist runs by outcome, "
    "latency medians and 95th percentiles per step, usage and estimated cost. --prune "
    "deletes the store's old reports."
)
OUTCOMES = (
    "resolved",
    "escalated",
    "transferred",
    "abandoned",
    "locked",
    "ended_for_silence",
)
"""Every call outcome (`collect.Outcome`), for --outcome."""
NO_REPORTS_EXIT_CODE = 1
"""No call report to summarise, though nothing was wrong."""
UNWRITABLE_EXIT_CODE = MISCONFIGURED_EXIT_CODE
"""The page (--html) could not be written where it was asked for."""


def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(prog="agent.py report", description=DESCRIPTION)
    found.add_argument(
        "directory", type=Path, metavar="DIR", nargs="?", help="a folder of reports (REPORT_DIR)"
    )
    found.add_argument(
        "--database-url",
        metavar="URL",
        help="read the store's reports (every server's) instead of a folder; the store for "
        "--prune and --store-unstored (default: DATABASE_URL)",
    )
    found.add_argument(
        "--since",
        type=_moment,
        metavar="DATE",
        help="only calls that ended at or after DATE (YYYY-MM-DD or an ISO time; UTC unless "
        "it says otherwise)",
    )
    found.add_argument(
        "--outcome",
        action="append",
        choices=OUTCOMES,
        default=[],
        help="only calls with this outcome (repeat for several)",
    )
    found.add_argument(
        "--html", type=Path, metavar="FILE", help="also write the summary as one page with charts"
    )
    found.add_argument(
        "--prune",
        type=_days,
        nargs="?",
        const=0,
        metavar="DAYS",
        help="delete the store's reports of calls that ended more than DAYS days ago "
        "(default: REPORT_RETENTION_DAYS) and summarise nothing",
    )
    found.add_argument(
        "--store-unstored",
        action="store_true",
        help="store DIR's reports that a failed write left out of the store, and summarise nothing",
    )
    return found


def _days(text: str) -> int:
    try:
        days = int(text)
    except ValueError:
        days = 0
    if days < 1:
        raise argparse.ArgumentTypeError(f"{printable(text)} is not a number of days (1 or more)")
    return days


def _moment(text: str) -> dt.datetime:
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{printable(text)} is no date: give YYYY-MM-DD or an ISO time"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def main(argv: list[str]) -> int:
    command = parser()
    arguments = command.parse_args(argv)
    if arguments.prune is not None:
        return _prune(arguments.prune, _store_url(arguments.database_url))
    if arguments.store_unstored:
        if arguments.directory is None:
            command.error("--store-unstored needs DIR, the folder of reports")
        return _store_unstored(arguments.directory, _store_url(arguments.database_url))
    if (arguments.directory is None) == (arguments.database_url is None):
        command.error("give DIR (a folder of reports) or --database-url URL (the store), not both")
    try:
        loaded = _load(arguments.directory, arguments.database_url, arguments.since)
    except _Problem as problem:
        print(problem, file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE
    except NoReports as problem:
        print(problem, file=sys.stderr)
        return NO_REPORTS_EXIT_CODE
    for skipped in loaded.skipped:
        print(f"skipped {skipped.name}: {skipped.reason}", file=sys.stderr)
    reports = list(_chosen(loaded.reports, since=arguments.since, outcomes=arguments.outcome))
    if not reports:
        print("No call report matches --since and --outcome.", file=sys.stderr)
        return NO_REPORTS_EXIT_CODE
    summary = summarise(reports)
    print(as_text(summary), end="")
    if arguments.html is not None:
        # Imported here: the plotting library is needed for the page alone.
        from customer_service.reports.calls import calls_in
        from customer_service.reports.fleet import fleet_of
        from customer_service.reports.html import page

        shown = printable(str(arguments.html))
        text = page(summary, calls_in(reports), fleet_of(reports))
        try:
            arguments.html.write_text(text, encoding="utf-8")
        except OSError as error:
            reason = error.strerror or type(error).__name__
            print(f"--html {shown}: the page cannot be written there: {reason}", file=sys.stderr)
            return UNWRITABLE_EXIT_CODE
        print(f"\nwrote {shown}")
    return 0


class _Problem(Exception):
    """A folder or store that cannot be read, in one line."""


def _load(directory: Path | None, database_url: str | None, since: dt.datetime | None) -> Loaded:
    if directory is not None:
        problem = path_problem(directory)
        if problem is not None:
            raise _Problem(problem)
        return read_reports(directory)
    assert database_url is not None
    from customer_service.reports.from_store import StoreProblem, read_stored

    try:
        # The outcomes are chosen after reading, as a folder's are; the date in SQL.
        return read_stored(database_url, since=since, outcomes=())
    except StoreProblem as problem:
        raise _Problem(str(problem)) from None


def _chosen(
    reports: Iterable[dict[str, Any]], *, since: dt.datetime | None, outcomes: Collection[str]
) -> Iterable[dict[str, Any]]:
    for report in reports:
        if outcomes and report["outcome"] not in outcomes:
            continue
        if since is not None:
            ended = report.get("ended_at")
            if not isinstance(ended, int | float) or ended < since.timestamp():
                continue
        yield report


def _store_url(database_url: str | None) -> str:
    if database_url is not None:
        return database_url
    from customer_service.settings import get_settings

    return get_settings().database_url


def _prune(days: int, database_url: str) -> int:
    from customer_service.reports.from_store import StoreProblem, prune
    from customer_service.settings import get_settings

    days = days or get_settings().report_retention_days
    before = dt.datetime.now(dt.UTC) - dt.timedelta(days=days)
    try:
        deleted = prune(database_url, ended_before=before)
    except StoreProblem as problem:
        print(problem, file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE
    print(
        f"deleted {deleted} call report{'' if deleted == 1 else 's'} of calls that ended "
        f"before {before:%Y-%m-%d %H:%M} UTC ({days} days ago)"
    )
    return 0


def _store_unstored(directory: Path, database_url: str) -> int:
    from customer_service.reports.from_store import StoreProblem, store_folder

    problem = path_problem(directory)
    if problem is not None:
        print(problem, file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE
    try:
        stored = store_folder(database_url, directory)
    except StoreProblem as problem:
        print(problem, file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE
    print(f"stored {stored} call report{'' if stored == 1 else 's'} left out of the store")
    return 0


def path_problem(directory: Path) -> str | None:
    """What is wrong with DIR when it is no folder: it does not exist, or it is a file."""
    shown = printable(str(directory))
    if not directory.exists():
        return f"{shown}: no such folder."
    if not directory.is_dir():
        parent = printable(str(directory.parent))
        return (
            f"{shown} is a file, not a folder: give the folder that holds the call reports "
            f"({parent})."
        )
    return None
