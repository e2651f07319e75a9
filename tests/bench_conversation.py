"""Round trips and in-process cost of the main flows, with a zero-latency scripted model.

    make bench      (or: .venv/bin/python tests/bench_conversation.py [--calls N])

Prints, per flow, the LLM round trips the caller waits through (the figure that
matters on a real call: each costs hundreds of milliseconds of silence), the agent's
own processing time per call, and the process's peak memory.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from customer_service.settings import ModelProvider, Settings
from customer_service.testing import call_session, sqlite_url

# Run as a script, this file's folder is on the import path, so the test support is too.
from support.conversation import JORDAN, JORDAN_SAYS, check_identity
from support.scripted_llm import Call, ScriptedLLM, Step
from support.scripted_llm import relay_tool_output as relay

Flow = tuple[Callable[[], list[Step]], list[str]]

FLOWS: dict[str, Flow] = {
    "order status, number given up front": (
        lambda: [Call("lookup_order", {"order_id": "100101"}), check_identity(JORDAN), relay],
        ["Where is my order 100101?", JORDAN_SAYS],
    ),
    "order status, number asked for": (
        lambda: [
            Call("lookup_order"),
            check_identity(JORDAN),
            Call("lookup", {"order_id": "100102"}),
            relay,
        ],
        ["I want to check an order", JORDAN_SAYS, "100102"],
    ),
    "address change with text-update offer": (
        lambda: [
            Call("update_address", {"order_id": "100102"}),
            check_identity(JORDAN),
            Call(
                "record_address",
                {
                    "street": "1 Market Street",
                    "city": "San Francisco",
                    "region": "CA",
                    "postal_code": "94105",
                    "country": "US",
                },
            ),
            relay,
            Call("confirm_address"),
            Call("record_consent", {"granted": False}),
            relay,
        ],
        [
            "Change the address on order 100102",
            JORDAN_SAYS,
            "1 Market Street, San Francisco, CA 94105",
            "yes",
            "no",
        ],
    ),
}


async def run_flow(flow: Flow, settings: Settings, database: Path) -> tuple[int, float]:
    script, turns = flow
    model = ScriptedLLM(script())
    async with call_session(model, settings=settings, database_url=sqlite_url(database)) as session:
        started = time.perf_counter()
        for turn in turns:
            await session.run(user_input=turn)
        elapsed = time.perf_counter() - started
    assert not model.overran, "the flow made more LLM calls than scripted"
    return len(model.turns), elapsed


async def main(calls: int) -> None:
    settings = Settings.model_validate({"model_provider": ModelProvider.OFFLINE})
    print(f"{'flow':42} {'LLM round trips':>15} {'median ms':>10} {'p90 ms':>8}")
    with tempfile.TemporaryDirectory() as scratch:
        for name, flow in FLOWS.items():
            timings = []
            round_trips = 0
            for index in range(calls):
                database = Path(scratch) / f"{index}-{abs(hash(name))}.sqlite3"
                round_trips, elapsed = await run_flow(flow, settings, database)
                timings.append(elapsed * 1000)
            timings.sort()
            p90 = timings[max(0, int(len(timings) * 0.9) - 1)]
            print(f"{name:42} {round_trips:>15} {statistics.median(timings):>10.1f} {p90:>8.1f}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak_mb:.0f} MB over {calls} calls per flow")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    asyncio.run(main(parser.parse_args().calls))
