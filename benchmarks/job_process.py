"""Job processes as the server runs them: start-up, memory, CPU per call, calls per machine.

    .venv/bin/python -m benchmarks.job_process [--calls 8] [--pause 3]

Each agent is measured in a driver process of its own (`--kind`), because the
forkserver that job processes are forked from is one per process: the driver builds the
framework's own `ProcPool` with the same start method and forkserver preloads as
`AgentServer` (the registered plugins, the server's `preload_modules`, the framework's
warm-up and its `gc.freeze`), and the same set-up function as the server (`prewarm`).

- **Start-up and memory**: 4 idle processes are started; for each, the seconds from
  `process_created` to `process_ready` (the first also pays for the forkserver's
  preloads) and its unique memory (USS: pages no other process shares) once ready.
  "bare" is a worker whose job process loads Silero and nothing of ours.
- **CPU per call and calls per machine**: N paced calls are dispatched as jobs through
  the pool (fake jobs on the framework's mock room; the job runs a scripted call on a
  shared SQLite store). Each job reports its process CPU seconds and its duration; idle
  job processes are measured for their own CPU. LiveKit's default load is the
  machine's CPU use averaged over 2.5 s, and a server stops taking calls at 0.7: the
  calls one machine holds there are 0.7 x cores / (CPU per call-second + idle CPU per
  process-second); divided by a call's mean duration, the calls completed per hour.
  Memory would bind first where USS x calls passes the machine's RAM:
  both are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psutil

from benchmarks.common import PROJECT_ROOT, machine, print_table

KINDS = ("this agent", "single agent", "bare")
IDLE_PROCESSES = 4
LOAD_THRESHOLD = 0.7
"""`AgentServer`'s default `load_threshold` in production."""
MEMORY_TARGET = "job process unique memory at most 1.5x a bare worker's"
STARTUP_TARGET = "job process launch-to-ready at most 1.5x a bare worker's"
CAPACITY_TARGET = "calls per worker machine at the default load threshold, against the single agent"


def bare_prewarm(proc: Any) -> None:
    """A bare worker's set-up: Silero, nothing of ours."""
    from livekit.plugins import silero

    proc.userdata["vad"] = silero.VAD.load()


async def bare_entrypoint(ctx: Any) -> None:
    ctx.shutdown(reason="done")


def pool_functions(kind: str) -> tuple[Any, Any, list[str]]:
    """The set-up function, job entrypoint and forkserver preload modules for `kind`."""
    if kind == "bare":
        return bare_prewarm, bare_entrypoint, []
    from benchmarks import job_call
    from customer_service import server

    preload = list(server.server._preload_modules)
    entry = job_call.supervised_call if kind == "this agent" else job_call.single_agent_call
    return server.prewarm, entry, preload


def forkserver_context(preload: list[str]) -> multiprocessing.context.BaseContext:
    """The start method and preloads `AgentServer` sets up on Linux."""
    from livekit.agents import Plugin

    context = multiprocessing.get_context("forkserver")
    packages = list(dict.fromkeys([p.package for p in Plugin.registered_plugins] + preload))
    context.set_forkserver_preload(
        [*packages, "livekit.agents.ipc._preload", "livekit.agents.ipc._preload_freeze"]
    )
    return context


def new_pool(kind: str, idle: int) -> Any:
    from livekit.agents.ipc.proc_pool import ProcPool
    from livekit.agents.job import JobExecutorType

    prewarm, entry, preload = pool_functions(kind)
    return ProcPool(
        initialize_process_fnc=prewarm,
        job_entrypoint_fnc=entry,
        session_end_fnc=None,
        simulation_end_fnc=None,
        num_idle_processes=idle,
        initialize_timeout=120,
        close_timeout=20,
        session_end_timeout=20,
        inference_executor=None,
        job_executor_type=JobExecutorType.PROCESS,
        mp_ctx=forkserver_context(preload),
        memory_warn_mb=0,
        memory_limit_mb=0,
        http_proxy=None,
        loop=asyncio.get_running_loop(),
    )


async def startup_and_memory(kind: str) -> dict[str, Any]:
    created: dict[int, float] = {}
    ready: list[tuple[float, int]] = []
    pool = new_pool(kind, IDLE_PROCESSES)
    pool.on("process_created", lambda proc: created.__setitem__(id(proc), time.perf_counter()))

    all_ready = asyncio.Event()

    def on_ready(proc: Any) -> None:
        ready.append((time.perf_counter() - created[id(proc)], proc.pid))
        if len(ready) == IDLE_PROCESSES:
            all_ready.set()

    pool.on("process_ready", on_ready)
    await pool.start()
    await all_ready.wait()
    await asyncio.sleep(1.0)  # settled: nothing still loading
    uss = [psutil.Process(pid).memory_full_info().uss for _, pid in ready]
    cpu_before = [sum(psutil.Process(pid).cpu_times()[:2]) for _, pid in ready]
    await asyncio.sleep(10.0)
    cpu_after = [sum(psutil.Process(pid).cpu_times()[:2]) for _, pid in ready]
    await pool.aclose()
    return {
        "ready_s": [seconds for seconds, _ in ready],
        "uss_mb": [value / 2**20 for value in uss],
        "idle_cpu_per_s": statistics.median(
            (after - before) / 10.0 for before, after in zip(cpu_before, cpu_after, strict=True)
        ),
    }


def finished_calls(results: Path) -> list[Path]:
    return list(results.glob("call-*.json"))


async def calls_in_pool(kind: str, calls: int, pause_s: float, results: Path) -> dict[str, Any]:
    from livekit.agents.job import JobAcceptArguments, RunningJobInfo
    from livekit.protocol import agent, models

    from benchmarks import job_call

    database = await job_call.prepare_store(results, calls)
    pool = new_pool(kind, calls)
    await pool.start()
    samples: list[float] = []
    psutil.cpu_percent(None)
    started = time.perf_counter()
    for index in range(calls):
        metadata = json.dumps(
            {"index": index, "pause_s": pause_s, "database": database, "results": str(results)}
        )
        room = models.Room(name=f"room-{index}")
        job = agent.Job(id=f"job-{index}", room=room, metadata=metadata)
        info = RunningJobInfo(
            accept_arguments=JobAcceptArguments(name="bench", identity="bench", metadata=""),
            job=job,
            url="ws://127.0.0.1:1",
            token="",
            worker_id="bench",
            fake_job=True,
        )
        await pool.launch_job(info)
    deadline = started + 60 + 30 * pause_s  # a hung call must not hang the benchmark
    while len(finished_calls(results)) < calls and time.perf_counter() < deadline:
        await asyncio.sleep(0.5)
        samples.append(psutil.cpu_percent(None) / 100)
    wall = time.perf_counter() - started
    await pool.aclose()
    reports = [json.loads(path.read_text()) for path in finished_calls(results)]
    return {"calls": reports, "machine_load": samples, "wall_s": wall}


def drive(kind: str, calls: int, pause_s: float) -> dict[str, Any]:
    """One agent's figures, measured in this process (run by `--kind`)."""
    with tempfile.TemporaryDirectory(prefix="cs-bench-jobs-") as scratch:
        figures = asyncio.run(startup_and_memory(kind))
        if kind != "bare" and calls:
            figures |= asyncio.run(calls_in_pool(kind, calls, pause_s, Path(scratch)))
    return figures


def measure(calls: int, pause_s: float) -> dict[str, dict[str, Any]]:
    measured = {}
    for kind in KINDS:
        completed = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.job_process",
                "--kind",
                kind,
                "--calls",
                str(calls),
                "--pause",
                str(pause_s),
            ],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            raise RuntimeError(f"{kind}: {completed.stderr[-2000:]}")
        measured[kind] = json.loads(completed.stdout.strip().splitlines()[-1])
    return measured


def capacity(figures: dict[str, Any]) -> tuple[float, float, float]:
    """CPU per call-second, calls held at the load threshold, and calls memory allows."""
    done = [call for call in figures["calls"] if not call["failure"]]
    per_call_second = sum(call["cpu_s"] for call in done) / sum(call["wall_s"] for call in done)
    cores = psutil.cpu_count() or 1
    by_cpu = LOAD_THRESHOLD * cores / (per_call_second + figures["idle_cpu_per_s"])
    by_memory = psutil.virtual_memory().total / 2**20 / statistics.median(figures["uss_mb"])
    return per_call_second, by_cpu, by_memory


def report(measured: dict[str, dict[str, Any]]) -> dict[str, str]:
    rows = []
    for kind, figures in measured.items():
        ready = figures["ready_s"]
        row = [
            kind,
            f"{ready[0]:.2f}",
            f"{statistics.median(ready[1:]):.2f}",
            f"{statistics.median(figures['uss_mb']):.1f}",
            f"{figures['idle_cpu_per_s'] * 1000:.2f}",
        ]
        if "calls" in figures:
            done = [call for call in figures["calls"] if not call["failure"]]
            per_second, by_cpu, by_memory = capacity(figures)
            load = figures["machine_load"]
            row += [
                f"{len(done)}/{len(figures['calls'])}",
                f"{statistics.median(call['cpu_s'] for call in done) * 1000:.0f}",
                f"{per_second * 1000:.2f}",
                f"{max((c['longest_full_gc_s'] for c in done), default=0) * 1000:.1f}",
                f"{statistics.mean(load):.2f}" if load else "n/a",
                f"{by_cpu:.0f}",
                f"{by_cpu * 3600 / statistics.mean(call['wall_s'] for call in done):.0f}",
                f"{by_memory:.0f}",
            ]
        else:
            row += ["-"] * 8
        rows.append(row)
    print_table(
        "Job processes as the server runs them (forkserver, the server's preloads)",
        [
            "agent",
            "first ready s",
            "ready s",
            "USS MB",
            "idle CPU ms/s",
            "calls done",
            "CPU ms/call",
            "CPU ms/call-s",
            "longest full GC ms",
            "machine load",
            "calls at 0.7 load",
            "calls/hour at 0.7",
            "calls by RAM",
        ],
        rows,
    )
    bare, ours, single = measured["bare"], measured["this agent"], measured["single agent"]
    uss = statistics.median(ours["uss_mb"]) / statistics.median(bare["uss_mb"])
    ready = statistics.median(ours["ready_s"][1:]) / statistics.median(bare["ready_s"][1:])
    ours_calls, single_calls = capacity(ours)[1], capacity(single)[1]
    ours_hourly = ours_calls / statistics.mean(call["wall_s"] for call in ours["calls"])
    single_hourly = single_calls / statistics.mean(call["wall_s"] for call in single["calls"])
    return {
        MEMORY_TARGET: f"{'MET' if uss <= 1.5 else 'MISSED'}: {uss:.2f}x",
        STARTUP_TARGET: f"{'MET' if ready <= 1.5 else 'MISSED'}: {ready:.2f}x (warm forkserver)",
        CAPACITY_TARGET: f"{ours_calls:.0f} concurrent calls against {single_calls:.0f} "
        f"({ours_calls / single_calls:.2f}x), calls completed per hour "
        f"{ours_hourly / single_hourly:.2f}x the single agent's; text-only scripted calls, "
        "see RESULTS.md",
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=8, help="paced calls through the pool (8)")
    parser.add_argument("--pause", type=float, default=3.0, help="mean caller pause, s (3)")
    parser.add_argument("--kind", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.kind:
        print(json.dumps(drive(args.kind, args.calls, args.pause)))
        return
    print(f"Machine: {machine()}; load average {os.getloadavg()[0]:.2f} at the start")
    targets = report(measure(args.calls, args.pause))
    print("\n## Targets\n")
    for target, shown in targets.items():
        print(f"- {target}: {shown}")


if __name__ == "__main__":
    main()
