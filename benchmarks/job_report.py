"""The job-process report: the figures of each agent's processes and calls as a table,
and the targets judged against the single agent's (`benchmarks.job_process` measures
them, `benchmarks.job_figures` computes them)."""

from __future__ import annotations

import statistics
from typing import Any

import psutil

from benchmarks.common import print_table
from benchmarks.job_figures import (
    FLOWS,
    by_flow,
    calls_per_hour,
    completed,
    concurrent_calls,
    mean_cpu,
    mean_cpu_with_launch,
    paired,
    ratio,
)

MEMORY_TARGET = "job process unique memory at most 1.5x a bare worker's"
STARTUP_TARGET = "job process launch-to-ready at most 1.5x a bare worker's"
CPU_LIMIT = 1.1
CPU_TARGET = f"CPU per call in a job process: at most {CPU_LIMIT}x the single agent's"
CAPACITY_TARGET = (
    "calls completed per hour per machine at the default load threshold, in job processes: "
    "at least the single agent's"
)


def launch_ms(figures: dict[str, Any]) -> float:
    """The mean launch CPU of the processes that took calls, else of the idle ones."""
    done = completed(figures) if "calls" in figures else []
    launches = [call["launch_cpu_s"] for call in done] or figures["launch_cpu_s"]
    return statistics.fmean(launches) * 1000


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
            f"{launch_ms(figures):.0f}",
        ]
        if "calls" in figures:
            done = completed(figures)
            idle = figures["idle_cpu_per_s"]
            load = figures["machine_load"]
            by_memory = psutil.virtual_memory().total / 2**20 / statistics.median(figures["uss_mb"])
            row += [
                f"{len(done)}/{len(figures['calls'])}",
                f"{mean_cpu(done) * 1000:.0f}",
                f"{statistics.fmean(call['wall_s'] for call in done):.1f}",
                f"{statistics.fmean(call['turn_s'][0] for call in done) * 1000:.0f}",
                f"{statistics.fmean(s for call in done for s in call['turn_s']) * 1000:.0f}",
                f"{max((c['longest_full_gc_s'] for c in done), default=0) * 1000:.1f}",
                f"{statistics.mean(load):.2f}" if load else "n/a",
                f"{concurrent_calls(done, idle):.0f}",
                f"{calls_per_hour(done, idle):.0f}",
                f"{by_memory:.0f}",
            ]
        else:
            row += ["-"] * 10
        rows.append(row)
    print_table(
        "Job processes as the server runs them (forkserver, the server's preloads)",
        [
            "agent",
            "first ready s",
            "ready s",
            "USS MB",
            "idle CPU ms/s",
            "launch CPU ms",
            "calls done",
            "CPU ms/call (mean)",
            "call s (mean)",
            "first turn ms (mean)",
            "turn ms (mean)",
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
    ours_done, single_done = completed(ours), completed(single)
    failed = len(ours["calls"]) - len(ours_done) + len(single["calls"]) - len(single_done)
    callers_by_flow = by_flow(paired(ours_done, single_done))
    if len(callers_by_flow) < len(FLOWS) or min(map(len, callers_by_flow)) < 2:
        # One caller of a flow resamples to itself: no interval, so no verdict.
        unjudged = (
            "not judged (needs two callers of every flow whose calls both agents completed: "
            "--rounds 2 or more)"
        )
        return {CPU_TARGET: unjudged, CAPACITY_TARGET: unjudged}
    cpu = ratio(ours_done, single_done, mean_cpu)
    hourly = ratio(  # each agent's calls per hour with its own processes' idle CPU
        ours_done,
        single_done,
        lambda calls: calls_per_hour(calls, ours["idle_cpu_per_s"]),
        lambda calls: calls_per_hour(calls, single["idle_cpu_per_s"]),
    )
    with_launch = ratio(ours_done, single_done, mean_cpu_with_launch)
    flows = len(FLOWS)
    print(
        f"({len(ours_done) // flows} rounds of the {flows} flows per agent; "
        f"{failed} calls failed; the ratios count only the callers both agents completed; "
        "intervals: 95 % bootstrap, each round's callers drawn again flow by flow, each "
        "with both agents' calls)\n"
        f"Reported, not judged: CPU per call with its process's launch, {with_launch.shown()}"
    )
    return {
        MEMORY_TARGET: f"{'MET' if uss <= 1.5 else 'MISSED'}: {uss:.2f}x",
        STARTUP_TARGET: f"{'MET' if ready <= 1.5 else 'MISSED'}: {ready:.2f}x (warm forkserver)",
        CPU_TARGET: cpu.judged(at_most=CPU_LIMIT),
        CAPACITY_TARGET: hourly.judged(at_least=1.0),
    }
