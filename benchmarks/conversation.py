"""One conversation, start to finish, with any of the three agents, and what it cost.

`converse` plays a `Caller` against a started session: it says the opening words, then
answers each thing the agent asks until the agent asks nothing more (or `max_turns`).
`run_flow` does that for one intent on a store of its own (or a shared one), then
checks the store end state; a flow that did not leave it is a failure, never a figure.
Every call gets a `Store.for_call()` handle on one engine, as the server's calls do.
"""

from __future__ import annotations

import asyncio
import enum
import random
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession, llm
from livekit.agents.llm import AgentHandoff

from benchmarks.callers import Caller, Intent, Variant, check_outcome
from benchmarks.common import MeasuredLLM, apologies_in, process_bench_settings, spoken_lines
from benchmarks.models import bare_model, single_agent_model, supervised_model
from benchmarks.single_agent import bare_session, single_agent_session
from customer_service.settings import Settings
from customer_service.simulation.plugin_client import PluginClientLLM
from customer_service.store import Store
from customer_service.testing import call_session, open_demo_store, sqlite_url
from customer_service.testing.database_work import DatabaseWork, recording

MAX_CALLER_TURNS = 12


class TurnKind(enum.StrEnum):
    VERIFICATION = "verification"
    """The caller's words carried their identity details: the identity check ran."""
    HAND_OFF = "hand-off"
    """More than one agent answered within the turn (a specialist started or ended)."""


class AgentKind(enum.StrEnum):
    SUPERVISED = "this agent (supervised)"
    SINGLE = "single-agent baseline"
    BARE = "bare agent (no tools)"


@dataclass
class FlowRun:
    """What one conversation cost, and whether it did what the caller wanted."""

    agent: AgentKind
    intent: Intent | None
    variant: Variant | None
    call_id: str = ""
    caller_turns: int = 0
    round_trips: int = 0
    prompt_tokens: int = 0
    turn_seconds: list[float] = field(default_factory=list)
    turn_kinds: list[frozenset[TurnKind]] = field(default_factory=list)
    """Per caller turn: whether the caller gave their identity details in it, and
    whether the agent handed over between agents during it."""
    lines: list[str] = field(default_factory=list)
    failure: str | None = None
    exception: bool = False
    """The failure was an exception out of the session, not a wrong outcome."""
    database: DatabaseWork | None = None
    """The store's work from the session's start to its close (`count_database`)."""
    agent_changes: int = 0
    """Times the session's active agent changed after the first (a specialist started,
    or handed back): the framework's `agent_handoff` history items."""

    @property
    def succeeded(self) -> bool:
        return self.failure is None

    @property
    def apologies(self) -> list[str]:
        return apologies_in(self.lines)


async def caller_pause(seconds: float) -> None:
    """The caller listening and speaking before a turn: the session idles meanwhile."""
    await asyncio.sleep(seconds)


async def converse(
    session: AgentSession[Any],
    model: MeasuredLLM,
    caller: Caller,
    opening: str,
    run: FlowRun,
    *,
    max_turns: int = MAX_CALLER_TURNS,
    pause_s: float = 0.0,
    pauses: random.Random | None = None,
) -> None:
    """Plays the caller; fills in turns, timings and what the agent said.

    With `pause_s`, the caller waits before each turn (the first too, so calls started
    together drift apart) a random 0.5 to 1.5 times `pause_s`: the time a real caller
    spends listening and speaking. Pauses are not part of any turn's time. `pauses`
    draws them (the module's generator unless given): two calls given generators seeded
    alike pause alike, turn by turn.
    """
    pause_factor = pauses.uniform if pauses is not None else random.uniform
    says: str | None = opening
    while says is not None:
        if run.caller_turns == max_turns:
            run.failure = f"the caller was still being asked after {max_turns} turns"
            break
        if pause_s:
            await caller_pause(pause_factor(0.5, 1.5) * pause_s)
        run.caller_turns += 1
        model.caller_turn = run.caller_turns
        heard_before = len(spoken_lines(session))
        handoffs_before = handoffs(session.history.items)
        started = time.perf_counter()
        await session.run(user_input=says)
        run.turn_seconds.append(time.perf_counter() - started)
        handed_off = handoffs(session.history.items) > handoffs_before
        run.turn_kinds.append(turn_kind(caller, says, handed_off=handed_off))
        new_lines = spoken_lines(session)[heard_before:]
        says = caller.reply(new_lines[-1]) if new_lines else None
    run.lines = spoken_lines(session)
    run.round_trips = model.round_trips
    run.prompt_tokens = model.prompt_tokens


def handoffs(items: Sequence[Any]) -> int:
    """The agent changes in a session's history: a specialist started or handed back,
    whether or not its model was asked anything."""
    return sum(isinstance(item, AgentHandoff) and item.old_agent_id is not None for item in items)


def turn_kind(caller: Caller, says: str, *, handed_off: bool) -> frozenset[TurnKind]:
    kinds = set()
    if caller.email in says:
        kinds.add(TurnKind.VERIFICATION)
    if handed_off:
        kinds.add(TurnKind.HAND_OFF)
    return frozenset(kinds)


def _session(
    agent: AgentKind, model: llm.LLM, store: Store, settings: Settings
) -> AbstractAsyncContextManager[AgentSession[Any]]:
    """A started session of that agent; both agents with a store get a handle for one
    call on its engine, as the server gives every call of a worker process."""
    if agent is AgentKind.SUPERVISED:
        return call_session(model, settings=settings, store=store.for_call())
    if agent is AgentKind.SINGLE:
        return single_agent_session(model, store=store.for_call(), settings=settings)
    return bare_session(model)


def _model(agent: AgentKind, caller: Caller, intent: Intent, *, measure: bool) -> MeasuredLLM:
    if agent is AgentKind.SUPERVISED:
        return MeasuredLLM(supervised_model(caller, intent), measure=measure)
    if agent is AgentKind.SINGLE:
        return MeasuredLLM(single_agent_model(caller, intent), measure=measure)
    return MeasuredLLM(bare_model, measure=measure)


async def run_flow(
    agent: AgentKind,
    caller: Caller,
    intent: Intent,
    variant: Variant,
    *,
    store: Store | None = None,
    settings: Settings | None = None,
    measure: bool = True,
    check: bool = True,
    pause_s: float = 0.0,
    pause_seed: str | None = None,
    before_close: Callable[[], Awaitable[None]] | None = None,
    count_database: bool = False,
    provider_client: bool = False,
) -> FlowRun:
    """One conversation for one intent; its store end state checked unless `check` is
    False (for many calls on one store, checked together afterwards).

    Without `store` the flow gets a fresh SQLite file with the demo data. An exception
    inside the conversation is recorded as the failure, not raised. `before_close` is
    awaited while the session is still open, after the conversation. `count_database`
    counts the statements and transactions on the store's engine from before the
    session starts until it has closed (the audit events written at the call's end
    included), into `FlowRun.database`; nothing else may use the engine meanwhile.
    `pause_seed` seeds the caller's pauses: two agents' calls given the same seed wait
    the same pauses, so neither's call lasts longer by chance. `provider_client` has the
    provider plugin's client send each request and parse its streamed answer
    (`PluginClientLLM`), as a job process does in production.
    """
    if store is None:
        with tempfile.TemporaryDirectory(prefix="cs-bench-") as scratch:
            own = await open_demo_store(sqlite_url(Path(scratch) / "store.sqlite3"))
            async with own:
                return await run_flow(
                    agent,
                    caller,
                    intent,
                    variant,
                    store=own,
                    settings=settings,
                    measure=measure,
                    check=check,
                    pause_s=pause_s,
                    pause_seed=pause_seed,
                    before_close=before_close,
                    count_database=count_database,
                    provider_client=provider_client,
                )
    settings = settings or process_bench_settings()
    run = FlowRun(agent=agent, intent=intent, variant=variant)
    model = _model(agent, caller, intent, measure=measure)
    session_llm: llm.LLM = model
    if provider_client:
        session_llm = PluginClientLLM(model, model=settings.llm_model)
    pauses = random.Random(pause_seed) if pause_seed is not None else None
    counted: AbstractContextManager[DatabaseWork | None] = (
        recording(store.engine) if count_database else nullcontext()
    )
    try:
        with counted as run.database:
            async with _session(agent, session_llm, store, settings) as session:
                run.call_id = getattr(session.userdata, "call_id", "")
                opening = caller.opening(intent, variant)
                try:
                    await converse(
                        session, model, caller, opening, run, pause_s=pause_s, pauses=pauses
                    )
                finally:
                    if before_close is not None:
                        await before_close()
                run.agent_changes = handoffs(session.history.items)
    except Exception as error:
        run.failure = f"{type(error).__name__}: {error}"
        run.exception = True
        return run
    run.failure = _conversation_problem(run, model)
    if run.failure is None and check and agent is not AgentKind.BARE:
        run.failure = await check_outcome(store, run.call_id, caller, intent)
    return run


def _conversation_problem(run: FlowRun, model: MeasuredLLM) -> str | None:
    if model.overran:
        return "the model made more requests than any flow needs"
    if run.apologies:
        return f"the caller heard an apology: {run.apologies[0]!r}"
    return None


async def run_bare(
    turns: int,
    *,
    measure: bool = False,
    pause_s: float = 0.0,
    before_close: Callable[[], Awaitable[None]] | None = None,
) -> FlowRun:
    """The bare agent answering `turns` caller turns, one model request each; the caller
    pauses as in `converse`."""
    run = FlowRun(agent=AgentKind.BARE, intent=None, variant=None)
    model = MeasuredLLM(bare_model, measure=measure)
    try:
        async with bare_session(model) as session:
            for turn in range(1, turns + 1):
                if pause_s:
                    await caller_pause(random.uniform(0.5, 1.5) * pause_s)
                model.caller_turn = turn
                started = time.perf_counter()
                await session.run(user_input=f"Question number {turn}, please.")
                run.turn_seconds.append(time.perf_counter() - started)
                run.caller_turns += 1
            run.lines = spoken_lines(session)
            if before_close is not None:
                await before_close()
    except Exception as error:
        run.failure = f"{type(error).__name__}: {error}"
        run.exception = True
    run.round_trips = model.round_trips
    run.prompt_tokens = model.prompt_tokens
    return run
