"""Memory per call: what N calls hold while all of them are open at once.

N calls run their flows together; each, at its end, waits with its session still open
until every other has got there too. At that moment the Python allocations traced
since before the calls started (`tracemalloc`: every chat history, agent, task, store
engine and connection object the calls keep) are divided by N. Resident memory grown
over the same span is reported beside it, divided by N as well; it also counts memory
outside Python's allocator (SQLite's page cache, drivers) but can read low when memory
freed by an earlier run is reused. Neither is the process peak, which is mostly imports.
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from benchmarks.callers import BenchPopulation, Intent, Variant, add_population
from benchmarks.common import rss_bytes
from benchmarks.conversation import AgentKind, FlowRun, run_bare, run_flow
from customer_service.store import Store


@dataclass(frozen=True)
class Memory:
    traced_per_call: float
    rss_per_call: float
    completed: int
    failures: tuple[str, ...] = ()


class AllOpen:
    """Holds every call open at its end until all N have arrived, then measures once."""

    def __init__(self, parties: int, measure: Callable[[], None]) -> None:
        self._left = parties
        self._measure = measure
        self._measured = asyncio.Event()

    def _arrive(self) -> None:
        self._left -= 1
        if self._left == 0:
            self._measure()
            self._measured.set()

    async def hold(self) -> None:
        self._arrive()
        await self._measured.wait()

    def gone(self) -> None:
        """For a call that ended before it could hold (it failed to start)."""
        self._arrive()


async def _held(
    start: Callable[[Callable[[], Awaitable[None]]], Awaitable[FlowRun]], gate: AllOpen
) -> FlowRun:
    held = False

    async def hold() -> None:
        nonlocal held
        held = True
        await gate.hold()

    run = await start(hold)
    if not held:
        gate.gone()
    return run


async def memory_per_call(calls: int, store: Store | None, *, bare: bool) -> Memory:
    """Per-call memory of `calls` open calls of this agent (on `store`, which gets its
    own generated customers) or, with `bare`, of the bare agent."""
    population = BenchPopulation(customers=calls, first_order=700000)
    if not bare:
        if store is None:
            raise ValueError("this agent's calls need a store")
        await add_population(store, population)
    gc.collect()
    tracemalloc.start()
    traced_before = tracemalloc.get_traced_memory()[0]
    rss_before = rss_bytes()
    figures: dict[str, float] = {}

    def measure() -> None:
        gc.collect()
        figures["traced"] = (tracemalloc.get_traced_memory()[0] - traced_before) / calls
        figures["rss"] = (rss_bytes() - rss_before) / calls

    gate = AllOpen(calls, measure)
    intents = list(Intent)

    def start(index: int) -> Callable[[Callable[[], Awaitable[None]]], Awaitable[FlowRun]]:
        if bare:
            return lambda hold: run_bare(5, before_close=hold)
        intent = intents[index % len(intents)]
        return lambda hold: run_flow(
            AgentKind.SUPERVISED,
            population.caller(index),
            intent,
            Variant.ASKED,
            store=store,
            measure=False,
            check=False,
            before_close=hold,
        )

    try:
        runs = await asyncio.gather(*(_held(start(index), gate) for index in range(calls)))
    finally:
        tracemalloc.stop()
    return Memory(
        traced_per_call=figures.get("traced", float("nan")),
        rss_per_call=figures.get("rss", float("nan")),
        completed=sum(run.succeeded for run in runs),
        failures=tuple(run.failure for run in runs if run.failure),
    )
