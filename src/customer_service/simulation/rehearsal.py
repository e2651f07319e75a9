"""Rehearsal calls, played once where job processes are forked from.

Each call runs in a job process of its own, and Python does a great deal of work the
first time a path runs: the framework's and this project's lazy imports, the tools'
argument models and their schemas, the store's mappings, the instructions' wording.
In a fresh process every call would pay that again, on the event loop, in its first
turns: more CPU per call, and longer waits for the caller. `rehearse` plays a few
text calls through the supervisor, its specialists and a demo store in memory, on the
offline model answering through the OpenAI plugin's client (`PluginClientLLM`: the
requests are rendered, encoded and parsed as a provider's are, on a network that never
leaves the process), so that work is done once, in the forkserver, and every job process
inherits the result (`forkserver_rehearsal` runs it there).

A rehearsal never stops the server: what goes wrong is logged by its kind and skipped.
It writes nothing but its own in-memory store, and logs nothing of the demo callers.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field

from customer_service.settings import Settings

__all__ = ["FORKSERVER_MODULE", "REHEARSED_CALLS", "Rehearsal", "rehearse"]

logger = logging.getLogger(__name__)

FORKSERVER_MODULE = f"{__package__}.forkserver_rehearsal"
"""The module the forkserver imports to rehearse (`server.PRELOADED_MODULES`)."""
MEMORY_STORE = "sqlite+aiosqlite:///:memory:"
THREAD_END_WAIT_S = 5.0
"""How long the rehearsal waits for a thread it started to end: the driver's thread of a
closed SQLite connection resolves the close and ends a moment later."""

REHEARSED_CALLS: tuple[tuple[str, ...], ...] = (
    (
        # Details over two lines: the identity specialist's model reads them and checks.
        "This is Priya Natarajan. Check order 200202 and change its address too",
        "10001, priya.n@example.com",
        "1 Market Street, Suite 5, San Francisco, CA 94105",
        "yes",
    ),
    (
        "Jordan Lee, 94107, jordan.lee@example.com. Cancel 100102 and stop texting me",
        "I don't need it any more",
        "yes",
        "no",
    ),
)
"""The demo callers' lines, a call each: between them they verify identity (by the model's
check and by code's), read an order, change an address, cancel an order and record
consent, the paths most calls take."""


@dataclass
class Rehearsal:
    """What a rehearsal did: its calls' tool calls and model requests, and what stopped
    it, if anything."""

    tools_called: list[str] = field(default_factory=list)
    requests_sent: int = 0
    """Model requests sent through the plugin's client."""
    failure: str | None = None
    """The kind of what stopped it (an exception's class name), if anything did."""


def rehearse(settings: Settings | None = None) -> Rehearsal:
    """Plays `REHEARSED_CALLS` to the end, each as a text call on the offline model and a
    demo store in memory, with `settings` (by default the environment's, unread files
    aside). Runs its own event loop, so call it where none is running."""
    rehearsal = Rehearsal()
    threads_before = set(threading.enumerate())
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)  # the demo callers' words stay out of every log
    try:
        asyncio.run(_play(settings or Settings(), rehearsal))
    except Exception as problem:  # a rehearsal must never stop the server
        rehearsal.failure = type(problem).__name__
    finally:
        logging.disable(previous)
        # The forkserver forks job processes next: nothing of the rehearsal may still run.
        for thread in set(threading.enumerate()) - threads_before:
            thread.join(THREAD_END_WAIT_S)
    if rehearsal.failure is not None:
        logger.warning(
            "the rehearsal call stopped early; calls pay their first-use work themselves",
            extra={"failure": rehearsal.failure},
        )
    running = len(set(threading.enumerate()) - threads_before)
    if running:
        logger.warning("the rehearsal left threads running", extra={"threads": running})
    return rehearsal


async def _play(settings: Settings, rehearsal: Rehearsal) -> None:
    from livekit.agents import FunctionToolsExecutedEvent

    from customer_service.offline_llm import OfflineLLM
    from customer_service.simulation.plugin_client import PluginClientLLM
    from customer_service.testing import call_session

    def note_tools(event: FunctionToolsExecutedEvent) -> None:
        rehearsal.tools_called += [call.name for call in event.function_calls]

    def note_request(_: object) -> None:
        rehearsal.requests_sent += 1

    for lines in REHEARSED_CALLS:
        through_client = PluginClientLLM(
            OfflineLLM(), model=settings.llm_model, on_request=note_request
        )
        async with (
            through_client,
            call_session(through_client, database_url=MEMORY_STORE, settings=settings) as session,
        ):
            session.on("function_tools_executed", note_tools)
            for line in lines:
                await session.run(user_input=line)
