"""The store at scale: 1,000,000 orders and 100,000 customers, through the `Store` API.

    .venv/bin/python -m benchmarks.store_scale [--customers 100000] [--samples 1000]
    scripts/with-postgres .venv/bin/python -m benchmarks.store_scale

Each operation the agent performs is timed one at a time, on the large store and, as
its baseline in the same run, on a small one (1,000 customers, 10,000 orders) built the
same way. Customers have 10 orders each (their first still processing); about three
customers share a postal code; names repeat as in real populations, each full name
shared by 40 customers (`NAMESAKES`) under 40 different postal codes, each with an email
address of its own. The SQLite file is built once (a few minutes) and kept under the
temporary folder, named by its size, its namesakes and a fingerprint of the schema and
the generated rows, so a changed schema or population builds a new one; PostgreSQL
(when TEST_POSTGRES_URL is set) is filled afresh each run. The customers measured are
checked first to have all their namesakes in the store.

Operations, as the agent's code calls them:
- order lookup: `get_order`
- identity match: `identity_candidates(postal_code, since)`, the customers filed under
  the postal code with each one's failed checks in the window (one read)
- recent orders: `recent_orders(limit=5)`
- order lookup path: what a verified caller waits for after asking about an order by
  number: `read_order_for_disclosure`, the order read in the transaction that stores
  the `order_disclosed` event with the `delegation` event kept from the identity check
  (one write transaction; on SQLite it takes the write lock first, `BEGIN IMMEDIATE`)
- lookup path as read + write: the same work in two transactions, `get_order` then
  `add_audit_events` with both events (for comparison)
- verify then look up: the identity match, the `identity_verified` audit write, then
  the order lookup path (one read, two writes)
- address change: `change_shipping_address` on a processing order (a new one each time)
- cancellation: `cancel_order` on a processing order (a new one each time)
- failed identity check, near miss: `record_failed_identity_check` with its
  `identity_failed` audit event, given the right name and postal code and a wrong email
  (one write transaction: the accounts with that name key or email in one indexed read,
  here the 40 namesakes; kept when two of the three details match, here the caller's
  alone; its failure row; the event)
- failed identity check, name only: the same given the right name, a wrong postal code
  and a wrong email (the 40 namesakes read, none counted: the event only)

The issue's "whole lookup path" target is judged on the order lookup path.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import random
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.schema import CreateTable

from benchmarks.callers import BenchPopulation, add_population, expected_address
from benchmarks.common import machine, median, ms, percentile, print_table, quiet_logs, verdict
from benchmarks.databases import backends, empty_database
from customer_service.domain import CancelReason, Customer
from customer_service.normalize import name_key
from customer_service.privacy import mask_name
from customer_service.store import AuditEvent, Store
from customer_service.store.customers import CustomerRow
from customer_service.store.orders import OrderRow
from customer_service.store.seed import DEMO_ORDER_IDS
from customer_service.store.tables import Base
from customer_service.testing import open_demo_store, sqlite_url

TARGET = (
    "1M orders: the agent's whole lookup path under 2 ms p95 and address change under "
    "10 ms p95 on both databases"
)
LOOKUP_PATH = "order lookup path"
"""The row the lookup-path target is judged on: what the caller waits for once verified."""
LOOKUP_READ_THEN_WRITE = "lookup path as read + write"
VERIFY_THEN_LOOKUP = "verify then look up"
ADDRESS_CHANGE = "address change"
LOOKUP_PATH_LIMIT_S = 0.002
ADDRESS_CHANGE_LIMIT_S = 0.010
ORDERS_EACH = 10
SMALL_CUSTOMERS = 1000
NAMESAKES = 40
"""Customers sharing each full name: about 40 accounts per name, as in real populations
(issue 19), where a unique name per customer made a failed check look cheaper than it is."""
FAILED_NEAR_MISS = "failed identity check, near miss"
FAILED_NAME_ONLY = "failed identity check, name only"
CACHE_DIR = Path(tempfile.gettempdir()) / "customer-service-bench"


def population(customers: int) -> BenchPopulation:
    """`customers` in all with the three demo customers, `NAMESAKES` to a full name; order
    numbers from 000000 up, skipping the demo orders' numbers."""
    return BenchPopulation(
        customers=customers - 3,
        orders_each=ORDERS_EACH,
        first_order=0,
        skip_orders=frozenset(int(order_id) for order_id in DEMO_ORDER_IDS),
        namesakes=NAMESAKES,
    )


def store_fingerprint(people: BenchPopulation) -> str:
    """Of the schema and of what the population writes (its settings and a sample of its
    rows): a cached store built before either changed is never taken for the same one."""
    ddl = "\n".join(str(CreateTable(table)) for table in Base.metadata.sorted_tables)
    last = people.customers - 1
    rows = [people.customer(0), people.customer(last), *people.orders(0), *people.orders(last)]
    content = "\n".join([ddl, repr(people), *(repr(row) for row in rows)])
    return hashlib.sha256(content.encode()).hexdigest()[:10]


async def build(url: str, people: BenchPopulation) -> None:
    async with await open_demo_store(url) as store:
        await add_population(store, people, batch=2000)


async def sqlite_store(customers: int) -> str:
    """The cached SQLite file of that size, built first if missing."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    people = population(customers)
    path = CACHE_DIR / (
        f"store-{customers}-customers-{people.namesakes}-namesakes-"
        f"{store_fingerprint(people)}.sqlite3"
    )
    if not path.exists():
        partial = path.with_suffix(".building")
        partial.unlink(missing_ok=True)
        started = time.perf_counter()
        print(f"Building {path} (once; kept for later runs) ...", flush=True)
        await build(sqlite_url(partial), people)
        partial.rename(path)
        print(f"  built in {time.perf_counter() - started:.0f} s", flush=True)
    return sqlite_url(path)


@dataclass
class Timings:
    name: str
    seconds: list[float]

    @property
    def p95(self) -> float:
        return percentile(self.seconds, 0.95)


async def timed(samples: int, operation: Callable[[int], Awaitable[object]]) -> list[float]:
    seconds = []
    for sample in range(samples):
        started = time.perf_counter()
        await operation(sample)
        seconds.append(time.perf_counter() - started)
    return seconds


async def measure_store(
    url: str, people: BenchPopulation, samples: int, seed: int
) -> tuple[str, list[Timings]]:
    """What the store holds, and each operation's timings on it."""
    rng = random.Random(seed)
    customers = people.customers
    # From the customers whose whole namesake group is in the store (the last may be short).
    in_whole_groups = customers - customers % people.namesakes
    picks = [rng.randrange(in_whole_groups) for _ in range(samples)]
    # Distinct customers whose first order is still processing, one per write.
    writers = rng.sample(range(customers), min(customers, 2 * samples))
    changed, cancelled = writers[: len(writers) // 2], writers[len(writers) // 2 :]
    new_address = expected_address()
    async with await Store.open(url) as store:
        counts = await _counts(store)
        for index in sorted(set(picks)):
            # Else the failed checks would silently measure a store of unique names.
            found = await namesakes_in_store(store, people.customer(index))
            if found != people.namesakes:
                raise RuntimeError(
                    f"{found} customers named as {people.customer(index).customer_id}, "
                    f"expected {people.namesakes}"
                )
        results: list[Timings] = []

        async def match(index: int) -> None:
            wanted = people.customer(index)
            found = await store.identity_candidates(wanted.postal_code, _window_start())
            if not any(c.customer.customer_id == wanted.customer_id for c in found):
                raise RuntimeError(f"identity match missed {wanted.customer_id}")

        async def lookup(sample: int) -> None:
            order_id = people.order_ids(picks[sample])[sample % ORDERS_EACH]
            if await store.get_order(order_id) is None:
                raise RuntimeError(f"order {order_id} missing")

        def disclosure_events(sample: int) -> tuple[str, str, AuditEvent, AuditEvent]:
            """The order asked about, its owner, the `delegation` event the identity
            specialist's run left kept (`record_later`), and the `order_disclosed` event."""
            index = picks[sample]
            customer_id = people.customer(index).customer_id
            order_id = people.order_ids(index)[sample % ORDERS_EACH]
            call_id = f"scale-lookup-{sample}"
            delegation = AuditEvent(
                call_id=call_id,
                kind="delegation",
                detail={"specialist": "identity", "outcome": "completed", "duration_ms": 900},
            )
            disclosure = AuditEvent(
                call_id=call_id, kind="order_disclosed", customer_id=customer_id, order_id=order_id
            )
            return order_id, customer_id, delegation, disclosure

        async def lookup_path(sample: int) -> None:
            order_id, customer_id, delegation, disclosure = disclosure_events(sample)
            order = await store.read_order_for_disclosure(
                order_id, customer_id, disclosure, [delegation]
            )
            if order is None:
                raise RuntimeError(f"order {order_id} missing")

        async def lookup_read_then_write(sample: int) -> None:
            order_id, customer_id, delegation, disclosure = disclosure_events(sample)
            order = await store.get_order(order_id)
            if order is None or order.customer_id != customer_id:
                raise RuntimeError(f"order {order_id} missing")
            await store.add_audit_events([delegation, disclosure])

        async def verify_then_lookup(sample: int) -> None:
            index = picks[sample]
            await match(index)
            await store.add_audit_events(
                [
                    AuditEvent(
                        call_id=f"scale-lookup-{sample}",
                        kind="identity_verified",
                        customer_id=people.customer(index).customer_id,
                    )
                ]
            )
            await lookup_path(sample)

        async def change(sample: int) -> None:
            index = changed[sample]
            outcome, _ = await store.change_shipping_address(
                order_id=people.order_ids(index)[0],
                customer_id=people.customer(index).customer_id,
                new_address=new_address,
                call_id=f"scale-change-{sample}",
                change_key=f"scale-change-{seed}-{sample}",
            )
            if outcome.value != "changed":
                raise RuntimeError(f"address change: {outcome.value}")

        async def cancel(sample: int) -> None:
            index = cancelled[sample]
            outcome, _ = await store.cancel_order(
                order_id=people.order_ids(index)[0],
                customer_id=people.customer(index).customer_id,
                reason=CancelReason.NO_LONGER_NEEDED,
                call_id=f"scale-cancel-{sample}",
            )
            if outcome.value != "cancelled":
                raise RuntimeError(f"cancellation: {outcome.value}")

        async def failed_check(wanted: Customer, postal_code: str, call_id: str) -> list[str]:
            event = AuditEvent(
                call_id=call_id,
                kind="identity_failed",
                detail={"attempts_left": 2, "name_given": mask_name(wanted.full_name)},
            )
            return await store.record_failed_identity_check(
                wanted.full_name, postal_code, "nobody@example.com", call_id, [event]
            )

        async def failed_near_miss(sample: int) -> None:
            # A right name and postal code with a wrong email: a near miss, counted
            # against the account it came close to and none of its namesakes.
            wanted = people.customer(picks[sample])
            counted = await failed_check(wanted, wanted.postal_code, f"scale-near-miss-{sample}")
            if counted != [wanted.customer_id]:
                raise RuntimeError(f"near miss at {wanted.customer_id} counted against {counted}")

        async def failed_name_only(sample: int) -> None:
            # A right name with a wrong postal code and email: one detail, so the
            # namesakes are read and none is counted against.
            wanted = people.customer(picks[sample])
            counted = await failed_check(wanted, "00000", f"scale-name-only-{sample}")
            if counted:
                raise RuntimeError(f"a name alone counted against {counted}")

        async def recent(sample: int) -> None:
            await store.recent_orders(people.customer(picks[sample]).customer_id, 5)

        writes = len(changed)
        for name, operation, count in (
            ("order lookup", lookup, samples),
            ("identity match", lambda sample: match(picks[sample]), samples),
            ("recent orders", recent, samples),
            (LOOKUP_PATH, lookup_path, samples),
            (LOOKUP_READ_THEN_WRITE, lookup_read_then_write, samples),
            (VERIFY_THEN_LOOKUP, verify_then_lookup, samples),
            (ADDRESS_CHANGE, change, writes),
            ("cancellation", cancel, writes),
            (FAILED_NEAR_MISS, failed_near_miss, samples),
            (FAILED_NAME_ONLY, failed_name_only, samples),
        ):
            results.append(Timings(name, await timed(count, operation)))
    print(f"  measured on {counts}", flush=True)
    return counts, results


def _window_start() -> dt.datetime:
    """The start of the per-account failure window the agent counts over (24 h default)."""
    return dt.datetime.now(dt.UTC) - dt.timedelta(hours=24)


async def namesakes_in_store(store: Store, customer: Customer) -> int:
    """Customers in the store with `customer`'s full name, the customer included (one
    read by the indexed name key)."""
    statement = (
        select(func.count())
        .select_from(CustomerRow)
        .where(CustomerRow.name_key == name_key(customer.full_name))
        .where(CustomerRow.full_name == customer.full_name)
    )
    async with store.engine.connect() as connection:
        return int(await connection.scalar(statement) or 0)


async def _counts(store: Store) -> str:
    async with store.engine.connect() as connection:
        customers = await connection.scalar(select(func.count()).select_from(CustomerRow))
        orders = await connection.scalar(select(func.count()).select_from(OrderRow))
    return f"{customers:,} customers, {orders:,} orders"


@dataclass(frozen=True)
class StoreFigures:
    backend: str
    small_counts: str
    small: list[Timings]
    big_counts: str
    big: list[Timings]

    def p95(self, name: str) -> float:
        return next(timing.p95 for timing in self.big if timing.name == name)


async def measure(customers: int, samples: int) -> list[StoreFigures]:
    figures = []
    with tempfile.TemporaryDirectory(prefix="cs-bench-") as scratch:
        folder = Path(scratch)
        for backend in backends():
            print(f"{backend}:", flush=True)
            small_url = await empty_database(backend, folder)
            await build(small_url, population(SMALL_CUSTOMERS))
            small = await measure_store(small_url, population(SMALL_CUSTOMERS), samples, seed=1)
            if backend == "sqlite":
                # The cached file stays as built: the writes go to a copy.
                cached = Path((await sqlite_store(customers)).removeprefix("sqlite+aiosqlite:///"))
                copy = folder / "large.sqlite3"
                shutil.copyfile(cached, copy)
                large_url = sqlite_url(copy)
            else:
                large_url = await empty_database(backend, folder)
                started = time.perf_counter()
                print(f"  filling PostgreSQL with {customers:,} customers ...", flush=True)
                await build(large_url, population(customers))
                print(f"  filled in {time.perf_counter() - started:.0f} s", flush=True)
            big = await measure_store(large_url, population(customers), samples, seed=2)
            figures.append(StoreFigures(backend, *small, *big))
    return figures


def report(figures: Sequence[StoreFigures]) -> str:
    for store in figures:
        print_table(
            f"Store operations on {store.backend}, one at a time (ms): large store "
            f"{store.big_counts}; baseline {store.small_counts}",
            ["operation", "samples", "base median", "base p95", "large median", "large p95"],
            (
                [
                    big.name,
                    len(big.seconds),
                    ms(median(small.seconds)),
                    ms(small.p95),
                    ms(median(big.seconds)),
                    ms(big.p95),
                ]
                for small, big in zip(store.small, store.big, strict=True)
            ),
        )
    met_everywhere = all(
        store.p95(LOOKUP_PATH) < LOOKUP_PATH_LIMIT_S
        and store.p95(ADDRESS_CHANGE) < ADDRESS_CHANGE_LIMIT_S
        for store in figures
    )
    both = {store.backend for store in figures} >= {"sqlite", "postgresql"}
    if both or not met_everywhere:
        shown = verdict(met_everywhere)
    else:
        shown = "met on SQLite; PostgreSQL not measured"
    print(f"\nTarget: {TARGET}: {shown}")
    for name in (LOOKUP_PATH, ADDRESS_CHANGE, VERIFY_THEN_LOOKUP):
        figures_shown = ", ".join(f"{store.backend} {ms(store.p95(name))} ms" for store in figures)
        print(f"  large p95, {name}: {figures_shown}")
    print(f"  (the lookup path is judged on the {LOOKUP_PATH!r} row: what a verified caller")
    print("  waits for after asking about an order; verifying first is reported beside it)")
    return shown


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--customers", type=int, default=100_000, help="10 orders each")
    parser.add_argument("--samples", type=int, default=1000, help="per operation")
    parser.add_argument("--verbose", action="store_true", help="show warnings and errors")
    args = parser.parse_args(argv)
    quiet_logs(args.verbose)
    print(f"Machine: {machine()}")
    report(asyncio.run(measure(args.customers, args.samples)))


if __name__ == "__main__":
    main()
