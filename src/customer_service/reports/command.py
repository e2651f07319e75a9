"""`python src/agent.py report DIR [--html FILE]`: a folder of call reports summarised."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from customer_service.entry import MISCONFIGURED_EXIT_CODE
from customer_service.reports.summary import (
    NoReports,
    as_text,
    printable,
    read_reports,
    summarise,
)

DESCRIPTION = (
    "Summarise a folder of call reports (REPORT_DIR): calls by outcome, specialist runs by "
    "outcome, latency medians and 95th percentiles per step, usage and estimated cost."
)
NO_REPORTS_EXIT_CODE = 1
"""A folder that holds no call report: nothing to summarise, though nothing was wrong."""
UNWRITABLE_EXIT_CODE = MISCONFIGURED_EXIT_CODE
"""The page (--html) could not be written where it was asked for."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="agent.py report", description=DESCRIPTION)
    parser.add_argument("directory", type=Path, metavar="DIR", help="the folder of reports")
    parser.add_argument(
        "--html", type=Path, metavar="FILE", help="also write the summary as one page with charts"
    )
    arguments = parser.parse_args(argv)
    problem = path_problem(arguments.directory)
    if problem is not None:
        print(problem, file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE
    try:
        loaded = read_reports(arguments.directory)
    except NoReports as problem:
        print(problem, file=sys.stderr)
        return NO_REPORTS_EXIT_CODE
    for skipped in loaded.skipped:
        print(f"skipped {skipped.name}: {skipped.reason}", file=sys.stderr)
    summary = summarise(loaded.reports)
    print(as_text(summary), end="")
    if arguments.html is not None:
        # Imported here: the plotting library is needed for the page alone.
        from customer_service.reports.calls import calls_in
        from customer_service.reports.html import page

        shown = printable(str(arguments.html))
        try:
            arguments.html.write_text(page(summary, calls_in(loaded.reports)), encoding="utf-8")
        except OSError as error:
            reason = error.strerror or type(error).__name__
            print(f"--html {shown}: the page cannot be written there: {reason}", file=sys.stderr)
            return UNWRITABLE_EXIT_CODE
        print(f"\nwrote {shown}")
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
