"""What a call's report costs after the call, in processes like job processes, beside
the call's own CPU: the report (built, written to REPORT_DIR, counted in the metrics,
stored as a row of `call_reports`) and, apart, the row alone.

    .venv/bin/python -m benchmarks.report_write [--processes 2] [--calls 6]
    scripts/with-postgres .venv/bin/python -m benchmarks.report_write   # PostgreSQL too

Each process is forked from this one with the agent already imported (as the server's
forkserver does) and takes its calls one after another on the offline model, as the
server gives a job process one call at a time, with one engine for the process; its
first call warms it up and is left out. A call's CPU is the process's from the greeting
to the session's close; the report's is the process's from there to the report's end.
The offline model costs next to nothing and there is no speech, so a call's CPU here is
far below a call in a room: the report's share of it is an upper bound.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from multiprocessing.connection import Connection
from pathlib import Path

from benchmarks.common import machine, print_table, quiet_logs
from customer_service.offline_llm import OfflineLLM
from customer_service.reports.collect import SessionEvents, report_call
from customer_service.reports.stored import record_of
from customer_service.settings import Settings
from customer_service.store import Store
from customer_service.testing import call_session, open_demo_store, sqlite_url

LINES = ("Where is my order 100101?", "Jordan Lee, 94107, jordan.lee@example.com", "bye")
"""A resolved call: identity checked, one order read back."""
POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "")

Figures = dict[str, list[float]]
FIGURES = ("call_cpu_ms", "call_s", "report_cpu_ms", "report_ms", "row_cpu_ms", "row_ms")


async def _one_call(store: Store, directory: Path, figures: Figures) -> None:
    cpu, wall = time.process_time(), time.perf_counter()
    async with call_session(
        OfflineLLM(), store=store, settings=Settings(report_dir=directory)
    ) as session:
        events = SessionEvents(session)
        for line in LINES:
            await session.run(user_input=line)
        state = session.userdata
        await session.aclose()
        ended_cpu, ended = time.process_time(), time.perf_counter()
        call = await report_call(state, events.session_report(session, call_id=state.call_id))
        reported_cpu, reported = time.process_time(), time.perf_counter()
        # The row alone, again under another call id: one more transaction like the first.
        record = record_of({**call.content, "call_id": f"{state.call_id}-again"})
        await store.add_call_report(record)
        row_cpu, row = time.process_time(), time.perf_counter()
    figures["call_cpu_ms"].append((ended_cpu - cpu) * 1000)
    figures["call_s"].append(ended - wall)
    figures["report_cpu_ms"].append((reported_cpu - ended_cpu) * 1000)
    figures["report_ms"].append((reported - ended) * 1000)
    figures["row_cpu_ms"].append((row_cpu - reported_cpu) * 1000)
    figures["row_ms"].append((row - reported) * 1000)


def _process(url: str, directory: str, calls: int, results: Connection) -> None:
    quiet_logs(verbose=False)

    async def run() -> Figures:
        figures: Figures = {name: [] for name in FIGURES}
        store = await Store.open(url, migrate=False, seed_demo_data=False)
        async with store:
            for _ in range(calls):
                await _one_call(store.for_call(), Path(directory), figures)
        # The first call of a process does its lazy work: left out.
        return {name: values[1:] for name, values in figures.items()}

    results.send(asyncio.run(run()))


@asynccontextmanager
async def _database(backend: str, folder: Path) -> AsyncIterator[str]:
    if backend == "sqlite":
        url = sqlite_url(folder / "store.sqlite3")
        await (await open_demo_store(url)).close()
        yield url
        return
    from support.databases import new_demo_database

    async with new_demo_database("postgresql", folder) as url:
        yield url


def measure(backend: str, *, processes: int, calls: int) -> Figures:
    with tempfile.TemporaryDirectory(prefix="report-write-") as folder:

        async def prepare_and_run() -> Figures:
            async with _database(backend, Path(folder)) as url:
                return await asyncio.to_thread(_run_processes, url, folder, processes, calls)

        return asyncio.run(prepare_and_run())


def _run_processes(url: str, folder: str, processes: int, calls: int) -> Figures:
    context = multiprocessing.get_context("fork")
    joined: Figures = {}
    # One process at a time: each measures its own CPU, with no neighbour on the cores.
    for _ in range(processes):
        receiving, sending = context.Pipe(duplex=False)
        process = context.Process(
            target=_process, args=(url, str(Path(folder) / "reports"), calls, sending)
        )
        process.start()
        figures: Figures = receiving.recv()
        process.join()
        for name, values in figures.items():
            joined.setdefault(name, []).extend(values)
    return joined


def report(measured: dict[str, Figures]) -> None:
    rows = []
    for backend, figures in measured.items():
        call_cpu = statistics.median(figures["call_cpu_ms"])
        report_cpu = statistics.median(figures["report_cpu_ms"])
        row_cpu = statistics.median(figures["row_cpu_ms"])
        rows.append(
            [
                backend,
                len(figures["call_cpu_ms"]),
                f"{call_cpu:.0f}",
                f"{statistics.median(figures['call_s']):.2f}",
                f"{report_cpu:.1f}",
                f"{statistics.median(figures['report_ms']):.1f}",
                f"{row_cpu:.1f}",
                f"{statistics.median(figures['row_ms']):.1f}",
                f"{100 * report_cpu / call_cpu:.1f}%",
                f"{100 * row_cpu / call_cpu:.1f}%",
            ]
        )
    print_table(
        "The report after a call (medians), beside the call's CPU",
        [
            "store",
            "calls",
            "call CPU ms",
            "call s",
            "report CPU ms",
            "report ms",
            "row CPU ms",
            "row ms",
            "report/call CPU",
            "row/call CPU",
        ],
        rows,
    )
    print(machine())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--processes", type=int, default=2, help="job-like processes (2)")
    parser.add_argument("--calls", type=int, default=6, help="calls per process, first left out")
    args = parser.parse_args()
    quiet_logs(verbose=False)
    backends = ["sqlite", *(["postgresql"] if POSTGRES_URL else [])]
    report(
        {
            backend: measure(backend, processes=args.processes, calls=args.calls)
            for backend in backends
        }
    )


if __name__ == "__main__":
    main()
