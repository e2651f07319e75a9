"""Every benchmark, one table each, and the issue's targets marked met or missed.

    make bench                                     (= .venv/bin/python -m benchmarks)
    .venv/bin/python -m benchmarks --quick         (small sizes: well under a minute)
    .venv/bin/python -m benchmarks --calls 10,100,300 --store-scale
    scripts/with-postgres make bench ARGS='--calls 10,100,300 --store-scale'

The default run takes about 17 minutes on 2 cores (`--quick`: about 6), 5 of them the
caller's wait, which plays every flow over the voice seam at 3 times a call's pace
(`benchmarks.caller_wait`; its latency model is read from LATENCY_*). PostgreSQL is
measured too when TEST_POSTGRES_URL names a database the benchmark may empty
(`scripts/with-postgres` makes a throwaway one). The 1M-order store is behind
--store-scale: building its SQLite file takes minutes the first time (it is kept under
the temporary folder).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Sequence

from benchmarks import (
    caller_wait,
    concurrency,
    handoff_floor,
    handoff_profile,
    job_process,
    job_report,
    load,
    phrase_cache,
    prompt_growth,
    roundtrips,
    store_scale,
    turn_time,
)
from benchmarks.callers import Intent, Variant
from benchmarks.common import machine, quiet_logs
from customer_service.testing.latency import LatencyModel


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a quick look")
    parser.add_argument(
        "--calls", type=concurrency.parse_sizes, help="concurrent calls per level (10,100)"
    )
    parser.add_argument(
        "--pause",
        type=float,
        default=concurrency.DEFAULT_PAUSE_S,
        help="mean seconds a paced caller pauses before each turn (0: no paced run)",
    )
    parser.add_argument("--repeats", type=int, help="runs of every flow for turn times (5)")
    parser.add_argument("--store-scale", action="store_true", help="also the 1M-order store")
    parser.add_argument("--customers", type=int, default=100_000, help="store scale: customers")
    parser.add_argument("--samples", type=int, default=1000, help="store scale: samples per read")
    parser.add_argument("--verbose", action="store_true", help="show warnings and errors")
    args = parser.parse_args(argv)
    quiet_logs(args.verbose)
    calls = args.calls or ([10] if args.quick else [10, 100])
    repeats = args.repeats or (1 if args.quick else 5)
    started = time.perf_counter()
    print(f"Machine: {machine()}")

    targets: dict[str, str] = {}
    targets[roundtrips.TARGET] = roundtrips.report(
        asyncio.run(roundtrips.compare(list(Intent), list(Variant)))
    )
    targets[prompt_growth.TARGET] = prompt_growth.report(
        asyncio.run(prompt_growth.measure(prompt_growth.DEFAULT_TURNS))
    )
    turn_time.report(asyncio.run(turn_time.measure(repeats)))
    latency = LatencyModel()
    speed = caller_wait.DEFAULT_SPEED * (2 if args.quick else 1)
    targets.update(
        caller_wait.report(asyncio.run(caller_wait.measure(latency, speed=speed)), latency)
    )
    phrase_variants = [Variant.ASKED] if args.quick else list(Variant)
    targets[phrase_cache.TARGET] = phrase_cache.report(
        asyncio.run(phrase_cache.measure(variants=phrase_variants))
    )
    asyncio.run(concurrency.describe_postgres())
    levels, memory = asyncio.run(concurrency.measure(calls, pause_s=args.pause))
    targets.update(concurrency.report(levels, memory))
    load_calls = 20 if args.quick else 100
    # Many calls in one process: a stress test, reported; a server runs each call in a job
    # process of its own, which `job_process` judges.
    reported = load.report_load(asyncio.run(load.measure_load(load_calls, args.pause, 1)))
    floor = asyncio.run(handoff_floor.measure(turns=10 if args.quick else 30, runs=3))
    handoff_floor.report(floor)
    reported[load.CPU_TARGET] = load.report_cpu(asyncio.run(load.cpu_per_flow(repeats)), floor)
    handoff_profile.report(*asyncio.run(handoff_profile.profile(5 if args.quick else 20)))
    targets.update(job_report.report(job_process.measure(2 if args.quick else 6, args.pause)))
    if args.store_scale:
        targets[store_scale.TARGET] = store_scale.report(
            asyncio.run(store_scale.measure(args.customers, args.samples))
        )
    else:
        targets[store_scale.TARGET] = "not measured (run with --store-scale)"

    print("\n## Targets\n")
    for target, shown in targets.items():
        print(f"- {target}: {shown}")
    print("\n## Reported, not judged (many calls in one process)\n")
    for figure, shown in reported.items():
        print(f"- {figure}: {shown}")
    print(f"\nTotal time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
