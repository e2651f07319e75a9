"""Concurrency, proven through whole calls: fifty callers at once, in one process and
spread over four worker processes, changing addresses (each their own order, and eight
of them the same order), cancelling orders (each their own, and eight the same one) and
guessing at one account's identity, on a SQLite file and on PostgreSQL.

Afterwards the database must hold exactly what the callers were told: every confirmed
change applied once with one audit record, each change to the shared order starting
from the address the one before it left, the shared order cancelled by exactly one call
while the others heard it already was, and exactly one failed-check row per failed
check naming the guessed account, which is then held: its right details hear so. No caller
hears an apology and no call raises. See `calls_at_once` and `outcome_checks`.
"""

from __future__ import annotations

from collections import Counter

from concurrency.calls_at_once import (
    CallKind,
    Population,
    add_population,
    build_population,
    run_calls,
    run_in_processes,
    shares,
)
from concurrency.outcome_checks import check_right_details_held_over_the_limit, check_the_load
from customer_service.settings import Settings
from customer_service.store import Store
from customer_service.testing import open_demo_store

WORKER_PROCESSES = 4


async def _prepared(database_url: str) -> Population:
    population = build_population()
    async with await open_demo_store(database_url) as store:
        await add_population(store, population)
    return population


def test_the_load_is_fifty_calls_of_every_kind_in_every_worker() -> None:
    population = build_population()
    assert len(population.plans) == 50
    for share in shares(population.plans, WORKER_PROCESSES):
        kinds = Counter(plan.kind for plan in share)
        # Every worker races the others on the shared order and the shared cancellation.
        assert kinds[CallKind.SHARED_CHANGE] >= 2, kinds
        assert kinds[CallKind.SHARED_CANCEL] >= 2, kinds
        assert kinds[CallKind.LOCKOUT] + kinds[CallKind.GUESS_THEN_RIGHT] >= 2, kinds


async def test_fifty_calls_at_once_in_one_process(database_url: str, settings: Settings) -> None:
    population = await _prepared(database_url)
    async with await Store.open(database_url) as shared:
        outcomes = await run_calls(population.plans, shared, settings)
        await check_the_load(shared, population, outcomes, settings)
        await check_right_details_held_over_the_limit(shared, population, settings)


async def test_fifty_calls_at_once_over_four_worker_processes(
    database_url: str, settings: Settings
) -> None:
    population = await _prepared(database_url)
    outcomes = await run_in_processes(
        database_url, population.plans, settings, processes=WORKER_PROCESSES
    )
    assert {outcome.worker for outcome in outcomes} == set(range(WORKER_PROCESSES))
    async with await Store.open(database_url) as store:
        await check_the_load(store, population, outcomes, settings)
        await check_right_details_held_over_the_limit(store, population, settings)
