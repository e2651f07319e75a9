"""One scripted call as a job: what `benchmarks.job_process` dispatches through the pool.

Runs in the job process. The job's metadata says which generated caller it is, in
which round, how long the caller pauses and where the shared store is; the call's
figures (process CPU seconds, duration, full collections, failure) go to a JSON file
the driver reads. The call's model requests go through the provider plugin's client unless
the job says otherwise. Both agents' calls of one caller in one round pause alike: a call's
CPU holds its process's background work while it lasts, so a call that lasted longer by
chance would cost more by chance.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from benchmarks.callers import BenchPopulation, add_population, check_outcome
from benchmarks.common import process_bench_settings, quiet_logs
from benchmarks.concurrency import plan
from benchmarks.conversation import AgentKind, run_flow
from benchmarks.load import full_collections
from customer_service.store import Store
from customer_service.testing import open_demo_store, sqlite_url

STORE_KEY = "bench_store"


async def prepare_store(folder: Path, calls: int) -> str:
    """A SQLite store with the demo data and `calls` generated callers."""
    url = sqlite_url(folder / "store.sqlite3")
    store = await open_demo_store(url)
    async with store:
        await add_population(store, BenchPopulation(customers=calls))
    return url


async def _process_store(ctx: Any, url: str) -> Store:
    """The process's one engine, as the server keeps it; a handle per call."""
    if STORE_KEY not in ctx.proc.userdata:
        ctx.proc.userdata[STORE_KEY] = await open_demo_store(url)
    store: Store = ctx.proc.userdata[STORE_KEY]
    return store


def write_figures(path: Path, figures: dict[str, Any]) -> None:
    path.write_text(json.dumps(figures))


async def _call(ctx: Any, agent: AgentKind) -> None:
    quiet_logs(verbose=False)
    job = json.loads(ctx.job.metadata)
    index, round_index = int(job["index"]), int(job["round"])
    shared = await _process_store(ctx, job["database"])
    caller = BenchPopulation(customers=index + 1).caller(index)
    intent, variant = plan(index)
    # Read before the call, as a job process of the server finds its settings read.
    settings = process_bench_settings()
    cpu_before, wall_before = time.process_time(), time.perf_counter()
    with full_collections() as collections:
        run = await run_flow(
            agent,
            caller,
            intent,
            variant,
            store=shared,
            settings=settings,
            measure=False,
            check=False,
            pause_s=float(job["pause_s"]),
            pause_seed=f"round {round_index}, caller {index}",
            provider_client=bool(job["provider_client"]),
        )
    figures = {
        "index": index,
        "round": round_index,
        "pid": os.getpid(),  # the driver adds the CPU this process took to launch
        "cpu_s": time.process_time() - cpu_before,
        "wall_s": time.perf_counter() - wall_before,
        "turns": len(run.turn_seconds),
        "turn_s": run.turn_seconds,
        "longest_full_gc_s": collections.longest,
        "failure": run.failure or await check_outcome(shared, run.call_id, caller, intent),
    }
    write_figures(Path(job["results"], f"call-{index}.json"), figures)
    ctx.shutdown(reason="call done")


async def supervised_call(ctx: Any) -> None:
    await _call(ctx, AgentKind.SUPERVISED)


async def single_agent_call(ctx: Any) -> None:
    await _call(ctx, AgentKind.SINGLE)
