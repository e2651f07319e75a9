"""What job-process calls cost, and how the two agents compare on it.

The figures `benchmarks.job_process` judges: CPU per call, calls per machine-hour at the
server's load threshold, and each as this agent's over the single agent's with a 95 %
bootstrap interval, over the callers both agents completed in the same rounds.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import psutil

from benchmarks.callers import Intent, Variant
from benchmarks.common import verdict
from benchmarks.concurrency import plan

LOAD_THRESHOLD = 0.7
"""`AgentServer`'s default `load_threshold` in production."""
CORES = psutil.cpu_count() or 1
IDLE_POOL = CORES
"""`AgentServer`'s default `num_idle_processes` in production: one warm process a core."""
BOOTSTRAP_RESAMPLES = 2000
FLOWS = [plan(index) for index in range(len(Intent) * len(Variant))]
"""One call of each benchmark flow, in `concurrency.plan`'s order (a job's index picks it)."""

CallFigures = dict[str, Any]
"""One call's figures, as `job_call` writes them, with its process's launch added."""
Pair = tuple[CallFigures, CallFigures]
"""This agent's call and the single agent's of the same caller in the same round."""


def completed(figures: dict[str, Any]) -> list[CallFigures]:
    return [call for call in figures["calls"] if not call["failure"]]


def mean_cpu(calls: Sequence[CallFigures]) -> float:
    return statistics.fmean(call["cpu_s"] for call in calls)


def mean_cpu_with_launch(calls: Sequence[CallFigures]) -> float:
    return statistics.fmean(call["launch_cpu_s"] + call["cpu_s"] for call in calls)


def calls_per_hour(calls: Sequence[CallFigures], idle_cpu_per_s: float) -> float:
    """Calls one machine completes per hour at the load threshold: the CPU the threshold
    leaves (0.7 x cores, every second) once the warm idle processes have had theirs, over
    what a call takes: its process's launch and the call, whose CPU already counts what its
    own process does in the background while the call lasts."""
    spare = LOAD_THRESHOLD * CORES - IDLE_POOL * idle_cpu_per_s
    return 3600 * spare / mean_cpu_with_launch(calls)


def concurrent_calls(calls: Sequence[CallFigures], idle_cpu_per_s: float) -> float:
    """Calls held at once at the load threshold."""
    wall = statistics.fmean(call["wall_s"] for call in calls)
    return calls_per_hour(calls, idle_cpu_per_s) * wall / 3600


def paired(ours: Sequence[CallFigures], theirs: Sequence[CallFigures]) -> list[Pair]:
    """Each of this agent's calls with the single agent's call of the same caller in the
    same round: the two paused alike (`job_call`), so their difference is the agents'.
    A caller whose call failed for either agent is left out for both."""
    theirs_by_call = {(call["round"], call["index"]): call for call in theirs}
    return [
        (call, theirs_by_call[key])
        for call in ours
        if (key := (call["round"], call["index"])) in theirs_by_call
    ]


def by_flow(pairs: Sequence[Pair]) -> list[list[Pair]]:
    groups: dict[int, list[Pair]] = {}
    for pair in pairs:
        groups.setdefault(pair[0]["index"] % len(FLOWS), []).append(pair)
    return list(groups.values())


def resampled(pairs: Sequence[Pair], draw: random.Random) -> list[Pair]:
    """The pairs drawn again with replacement, flow by flow, so every resample keeps the
    run's mix of flows (a cancellation costs more than a lookup)."""
    return [pair for group in by_flow(pairs) for pair in draw.choices(group, k=len(group))]


@dataclass(frozen=True)
class Ratio:
    """This agent's figure over the single agent's, with a 95 % bootstrap interval."""

    value: float
    low: float
    high: float

    def shown(self) -> str:
        return f"{self.value:.2f}x (95 % interval {self.low:.2f}-{self.high:.2f}x)"

    def judged(self, *, at_most: float | None = None, at_least: float | None = None) -> str:
        """MET when the whole interval meets the bound, MISSED when the whole interval
        misses it; otherwise the run cannot tell, and says so."""
        if at_most is not None:
            met, missed = self.high <= at_most, self.low > at_most
        else:
            assert at_least is not None
            met, missed = self.low >= at_least, self.high < at_least
        if met or missed:
            return f"{verdict(met)}: {self.shown()}"
        return f"NOT TOLD APART: {self.shown()}; more rounds (--rounds) narrow the interval"


def ratio(
    ours: Sequence[CallFigures],
    theirs: Sequence[CallFigures],
    figure: Callable[[Sequence[CallFigures]], float],
    their_figure: Callable[[Sequence[CallFigures]], float] | None = None,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> Ratio:
    """`figure` of this agent's calls over `their_figure` (the same unless given) of the
    single agent's, over the callers both completed (`paired`), with the interval of the
    ratio over `resamples` resamples of those pairs: a caller drawn brings both agents'
    calls, so what the caller's pauses cost is drawn alike for both."""
    their_figure = their_figure or figure
    pairs = paired(ours, theirs)

    def of(drawn: Sequence[Pair]) -> float:
        return figure([call for call, _ in drawn]) / their_figure([call for _, call in drawn])

    draw = random.Random(0)  # the same run gives the same interval
    values = sorted(of(resampled(pairs, draw)) for _ in range(resamples))
    return Ratio(
        of(pairs),
        values[int(0.025 * resamples)],
        values[int(0.975 * resamples) - 1],
    )
