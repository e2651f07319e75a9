"""Job processes as the server runs them: start-up, memory, CPU per call, calls per machine.

    .venv/bin/python -m benchmarks.job_process [--rounds 6] [--pause 3] [--without-rehearsal]

Each agent is measured in driver processes of its own (`--kind`), because the
forkserver that job processes are forked from is one per process: the driver builds the
framework's own `ProcPool` with the same start method and forkserver preloads as
`AgentServer` (the registered plugins, the server's `preload_modules`, the framework's
warm-up and its `gc.freeze`), and the same set-up function as the server (`prewarm`).

- **Start-up and memory**: 4 idle processes are started; for each, the seconds from
  `process_created` to `process_ready` (the first also pays for the forkserver's
  preloads) and its unique memory (USS: pages no other process shares) once ready.
  "bare" is a worker whose job process loads Silero and nothing of ours.
- **CPU per call and calls per machine**: `--rounds` rounds, each one paced call of
  every benchmark flow per agent, dispatched as jobs through a fresh pool (fake jobs on
  the framework's mock room; each job runs a scripted call on a shared SQLite store),
  the agents taking turns to go first. Each job reports its process CPU seconds (its
  process's first-use work included: every call is a fresh process) and its duration;
  idle job processes are measured for their own CPU. Every process's CPU is also read
  as it becomes ready (its launch: the fork and the server's `prewarm`), since the server
  launches one for every call it takes. LiveKit's default load is the machine's CPU use
  averaged over 2.5 s, and a server stops taking calls at 0.7, with as many warm idle
  processes as cores waiting: one machine completes 3600 x (0.7 x cores - cores x idle
  CPU per process-second) / (launch CPU + CPU per call) calls per hour. Memory would bind
  first where USS x calls passes the machine's RAM: both are printed.
- **The rehearsal**: the server's forkserver plays rehearsal calls before it forks any
  job process (`customer_service.simulation.rehearsal`), so calls start with its first-use work
  done; `--without-rehearsal` measures both agents without it, to compare. Each call's
  reply time in its first turn and over all its turns (zero-latency scripted models)
  shows what that work cost the caller's wait.
- **The model's client**: every request goes through the OpenAI plugin's client
  (`customer_service.simulation.plugin_client`): it renders the context and the tools'
  schemas, encodes the request and parses the streamed answer, as a job process does for
  every request in production; only the network is a stand-in, answering with the
  scripted model's reply. `--scripted-model` has the scripted model answer the framework
  directly, to compare.
- **Paired calls**: in a round, both agents take the same callers, and a caller pauses
  alike before each turn for either agent. A call's CPU holds what its process does in
  the background while the call lasts, so pauses drawn apart would make one agent's
  calls dearer by chance.
- **Judged** (`benchmarks.job_report`, with `benchmarks.job_figures`): CPU per call and
  calls per hour against the single agent's, each as a ratio with a 95 % bootstrap
  interval (each round's callers drawn again, flow by flow, each with both agents'
  calls). A target is met or missed only when the whole interval says so; otherwise the
  run cannot tell the agents apart on it, and says that.
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

from benchmarks.common import PROJECT_ROOT, machine
from benchmarks.job_figures import FLOWS
from benchmarks.job_report import report
from customer_service.simulation.rehearsal import FORKSERVER_MODULE

KINDS = ("this agent", "single agent", "bare")
IDLE_PROCESSES = 4


def bare_prewarm(proc: Any) -> None:
    """A bare worker's set-up: Silero, nothing of ours."""
    from livekit.plugins import silero

    proc.userdata["vad"] = silero.VAD.load()


async def bare_entrypoint(ctx: Any) -> None:
    ctx.shutdown(reason="done")


def pool_functions(kind: str, *, rehearsal: bool = True) -> tuple[Any, Any, list[str]]:
    """The set-up function, job entrypoint and forkserver preload modules for `kind`;
    without `rehearsal`, the server's preloads but the rehearsal calls."""
    if kind == "bare":
        return bare_prewarm, bare_entrypoint, []
    from benchmarks import job_call
    from customer_service import server

    preload = [
        module
        for module in server.server._preload_modules
        if rehearsal or module != FORKSERVER_MODULE
    ]
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


def new_pool(kind: str, idle: int, *, rehearsal: bool) -> Any:
    from livekit.agents.ipc.proc_pool import ProcPool
    from livekit.agents.job import JobExecutorType

    prewarm, entry, preload = pool_functions(kind, rehearsal=rehearsal)
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


async def startup_and_memory(kind: str, *, rehearsal: bool) -> dict[str, Any]:
    created: dict[int, float] = {}
    ready: list[tuple[float, int]] = []
    pool = new_pool(kind, IDLE_PROCESSES, rehearsal=rehearsal)
    pool.on("process_created", lambda proc: created.__setitem__(id(proc), time.perf_counter()))

    all_ready = asyncio.Event()
    launch: list[float] = []

    def on_ready(proc: Any) -> None:
        ready.append((time.perf_counter() - created[id(proc)], proc.pid))
        launch.append(process_cpu_s(proc.pid))
        if len(ready) == IDLE_PROCESSES:
            all_ready.set()

    pool.on("process_ready", on_ready)
    await pool.start()
    await all_ready.wait()
    await asyncio.sleep(1.0)  # settled: nothing still loading
    uss = [psutil.Process(pid).memory_full_info().uss for _, pid in ready]
    cpu_before = [process_cpu_s(pid) for _, pid in ready]
    await asyncio.sleep(10.0)
    cpu_after = [process_cpu_s(pid) for _, pid in ready]
    await pool.aclose()
    return {
        "ready_s": [seconds for seconds, _ in ready],
        "launch_cpu_s": launch,
        "uss_mb": [value / 2**20 for value in uss],
        "idle_cpu_per_s": statistics.median(
            (after - before) / 10.0 for before, after in zip(cpu_before, cpu_after, strict=True)
        ),
    }


def process_cpu_s(pid: int) -> float:
    """The process's CPU seconds so far, user and system."""
    return float(sum(psutil.Process(pid).cpu_times()[:2]))


def finished_calls(results: Path) -> list[Path]:
    return list(results.glob("call-*.json"))


async def calls_in_pool(
    kind: str,
    calls: int,
    pause_s: float,
    results: Path,
    *,
    round_index: int,
    rehearsal: bool,
    provider_client: bool,
) -> dict[str, Any]:
    from livekit.agents.job import JobAcceptArguments, RunningJobInfo
    from livekit.protocol import agent, models

    from benchmarks import job_call

    database = await job_call.prepare_store(results, calls)
    pool = new_pool(kind, calls, rehearsal=rehearsal)
    launch: dict[int, float] = {}
    pool.on("process_ready", lambda proc: launch.__setitem__(proc.pid, process_cpu_s(proc.pid)))
    await pool.start()
    samples: list[float] = []
    psutil.cpu_percent(None)
    started = time.perf_counter()
    for index in range(calls):
        metadata = json.dumps(
            {
                "index": index,
                "round": round_index,
                "pause_s": pause_s,
                "provider_client": provider_client,
                "database": database,
                "results": str(results),
            }
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
    for call in reports:  # the launch of the process the call ran in
        call["launch_cpu_s"] = launch[call.pop("pid")]
    return {"calls": reports, "machine_load": samples, "wall_s": wall}


def drive(
    kind: str,
    calls: int,
    pause_s: float,
    *,
    startup: bool,
    round_index: int = 0,
    rehearsal: bool = True,
    provider_client: bool = True,
) -> dict[str, Any]:
    """One agent's figures, measured in this process (run by `--kind`): start-up and
    memory when `startup`, then `calls` calls of round `round_index` through a pool of
    its own."""
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="cs-bench-jobs-") as scratch:
        if startup:
            figures |= asyncio.run(startup_and_memory(kind, rehearsal=rehearsal))
        if kind != "bare" and calls:
            figures |= asyncio.run(
                calls_in_pool(
                    kind,
                    calls,
                    pause_s,
                    Path(scratch),
                    round_index=round_index,
                    rehearsal=rehearsal,
                    provider_client=provider_client,
                )
            )
    return figures


def _driver(
    kind: str,
    calls: int,
    pause_s: float,
    *,
    startup: bool,
    rehearsal: bool,
    provider_client: bool = True,
    round_index: int = 0,
) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.job_process", "--kind", kind]
    command += ["--calls", str(calls), "--pause", str(pause_s), "--round", str(round_index)]
    if not startup:
        command.append("--no-startup")
    if not rehearsal:
        command.append("--without-rehearsal")
    if not provider_client:
        command.append("--scripted-model")
    completed = subprocess.run(
        command, cwd=PROJECT_ROOT, capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{kind}: {completed.stderr[-2000:]}")
    figures: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return figures


def measure(
    rounds: int, pause_s: float, *, rehearsal: bool = True, provider_client: bool = True
) -> dict[str, dict[str, Any]]:
    """Start-up and memory of each kind, then `rounds` rounds of one call of every flow
    per agent, the agents taking turns to go first, each round in fresh driver processes:
    a slow minute of the machine falls on both agents, not on one. In a round, both
    agents' calls of a caller pause alike."""
    measured = {
        kind: _driver(kind, 0, pause_s, startup=True, rehearsal=rehearsal) for kind in KINDS
    }
    agents = [kind for kind in KINDS if kind != "bare"]
    for kind in agents:
        measured[kind] |= {"calls": [], "machine_load": [], "wall_s": 0.0}
    for round_index in range(rounds):
        order = agents if round_index % 2 == 0 else agents[::-1]
        for kind in order:
            figures = _driver(
                kind,
                len(FLOWS),
                pause_s,
                startup=False,
                rehearsal=rehearsal,
                provider_client=provider_client,
                round_index=round_index,
            )
            measured[kind]["calls"] += figures["calls"]
            measured[kind]["machine_load"] += figures["machine_load"]
            measured[kind]["wall_s"] += figures["wall_s"]
    return measured


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--rounds", type=int, default=6, help="rounds of one call of every flow per agent (6)"
    )
    parser.add_argument("--pause", type=float, default=3.0, help="mean caller pause, s (3)")
    parser.add_argument(
        "--without-rehearsal",
        action="store_true",
        help="job processes forked without the server's rehearsal calls, to compare",
    )
    parser.add_argument(
        "--scripted-model",
        action="store_true",
        help="requests answered by the scripted model directly, without the provider "
        "plugin's client, to compare",
    )
    parser.add_argument("--kind", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--no-startup", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--round", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.kind:
        figures = drive(
            args.kind,
            args.calls,
            args.pause,
            startup=not args.no_startup,
            round_index=args.round,
            rehearsal=not args.without_rehearsal,
            provider_client=not args.scripted_model,
        )
        print(json.dumps(figures))
        return
    print(f"Machine: {machine()}; load average {os.getloadavg()[0]:.2f} at the start")
    if args.without_rehearsal:
        print("Without the rehearsal calls in the forkserver (--without-rehearsal)")
    if args.scripted_model:
        print("Requests answered by the scripted model directly (--scripted-model)")
    measured = measure(
        args.rounds,
        args.pause,
        rehearsal=not args.without_rehearsal,
        provider_client=not args.scripted_model,
    )
    targets = report(measured)
    print("\n## Targets\n")
    for target, shown in targets.items():
        print(f"- {target}: {shown}")


if __name__ == "__main__":
    main()
