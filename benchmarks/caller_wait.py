"""The caller's wait: from their last word to the agent's first sound, as a call feels it.

    .venv/bin/python -m benchmarks.caller_wait [--repeats 2] [--speed 3]
    LATENCY_LLM_FIRST_TOKEN_S=0.8 .venv/bin/python -m benchmarks.caller_wait

Every benchmark flow (4 intents, details up front and when asked) is played over the
voice seam (`customer_service.testing.voice`: the session the server builds, timed
fakes for speech) under the providers' latencies (`LatencyModel`, each a `LATENCY_*`
setting or an option here), by this agent and by the single-agent baseline with the
same tools' work and store, interleaved in one run; and turns of a bare agent (one
agent, no tools, one model call a turn) give the pipeline's floor as measured. A flow
counts only when the store shows it succeeded.

Each caller turn records its wait in script seconds (the end of the caller's line to
the first audio of the reply) and what stood before that audio, counted from the start
of the caller's line: model requests that answered (their first token) before it, speech
syntheses and store reads begun before it. A request started as an acknowledgement
plays (`customer_service.call.latency.FirstWords`) kept nobody waiting, and is not
counted. A turn is of
one or more kinds: **verification** (the caller gave their identity details), **hand-off**
(the agent changed: a specialist started or handed back), **read-back** (the reply asks
the caller to confirm, and they say yes), **after a write** (the store changed one of
the caller's records during the turn; the audit trail does not count); **plain**
otherwise.

The call runs `--speed` times faster than a real one, so the application's own CPU time
counts `--speed` times over in script seconds: a low speed keeps that small.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from livekit.agents import Agent
from livekit.agents.llm import AgentHandoff
from sqlalchemy import event

from benchmarks.callers import Caller, Intent, Variant, check_outcome, demo_caller
from benchmarks.common import (
    MeasuredLLM,
    machine,
    ms,
    percentile,
    print_table,
    quiet_logs,
    settle_heap,
    verdict,
)
from benchmarks.conversation import AgentKind
from benchmarks.models import bare_model, single_agent_model, supervised_model
from benchmarks.single_agent import BareAgent, SingleAgent, SingleAgentState
from benchmarks.tau2.voice_side import VoiceAgent
from customer_service.call.latency import ALL_RIGHT, FirstWords
from customer_service.call.phrase_cache import PhraseCache
from customer_service.call.state import CallState
from customer_service.settings import Settings
from customer_service.specialists.identity import CHECKING_DETAILS as IDENTITY_ACKNOWLEDGEMENT
from customer_service.store import Store
from customer_service.testing import open_demo_store, scratch_database
from customer_service.testing.database_work import is_control, is_write
from customer_service.testing.latency import LatencyModel, SlowLLM
from customer_service.testing.speech_models import FakeTTS
from customer_service.testing.voice import VoiceCall, voice_call_session

DEFAULT_SPEED = 3.0
MAX_CALLER_TURNS = 12
BARE_TURNS = 5
LEADERBOARD_MEAN_WAIT_S = {
    "Grok Voice (best)": 1.24,
    "Grok Voice (worst)": 1.78,
    "Pine Voice": 2.27,
}
"""Mean response latency on τ-Voice's retail tasks, from its public voice leaderboard."""
FLOOR_MARGIN = 0.10
"""The mean wait may exceed the floor by this share."""

VERIFICATION, HAND_OFF, READ_BACK, AFTER_WRITE, PLAIN = (
    "verification",
    "hand-off",
    "read-back",
    "after a write",
    "plain",
)
KINDS = (PLAIN, VERIFICATION, HAND_OFF, READ_BACK, AFTER_WRITE)

ACKNOWLEDGEMENTS = frozenset({ALL_RIGHT, IDENTITY_ACKNOWLEDGEMENT})
"""What this agent says first while a second model request writes the reply."""

FLOW_TARGET = "every flow's p95 wait at most the single agent's"
CALLS_TARGET = "at most one model call before the first audio of any turn"
FLOOR_TARGET = f"mean wait within {FLOOR_MARGIN:.0%} of the floor"


@dataclass(frozen=True)
class TurnWait:
    kinds: frozenset[str]
    wait_s: float | None
    """Script seconds from the end of the caller's line to the reply's first audio;
    None when no reply came."""
    model_calls: int
    syntheses: int
    store_reads: int
    words_s: float | None = None
    """Script seconds to the first audio of the reply's own words: after an
    acknowledgement that leads it (`ACKNOWLEDGEMENTS`), the speech that follows."""


@dataclass
class FlowWaits:
    agent: AgentKind
    flow: str
    turns: list[TurnWait] = field(default_factory=list)
    failure: str | None = None

    @property
    def waits(self) -> list[float]:
        return [turn.wait_s for turn in self.turns if turn.wait_s is not None]


RECORD_KEEPING = ("audit_events", "identity_failures")
"""Tables every turn may write to (the audit trail, failed identity checks): a write to
them is no change the caller asked for."""


class StoreClock:
    """When each statement of the store was sent (loop time): reads, and writes of the
    caller's records (orders, addresses, consents, payments, returns, escalations)."""

    def __init__(self) -> None:
        self.reads: list[float] = []
        self.writes: list[float] = []

    @contextmanager
    def following(self, store: Store) -> Iterator[None]:
        loop = asyncio.get_running_loop()

        def executed(_connection: Any, _cursor: Any, statement: str, *_: Any) -> None:
            if is_control(statement):
                return
            if not is_write(statement):
                self.reads.append(loop.time())
            elif not any(table in statement for table in RECORD_KEEPING):
                self.writes.append(loop.time())

        target = store.engine.sync_engine
        event.listen(target, "before_cursor_execute", executed)
        try:
            yield
        finally:
            event.remove(target, "before_cursor_execute", executed)


def _between(times: Sequence[float], start: float, end: float) -> int:
    return sum(start <= time < end for time in times)


def _agent_factory(agent: AgentKind) -> Any:
    if agent is AgentKind.SUPERVISED:
        return None  # the voice seam's own: CustomerServiceAgent

    def single(state: CallState) -> Agent:
        return SingleAgent(
            SingleAgentState(store=state.store, settings=state.settings, call_id=state.call_id)
        )

    def bare(_state: CallState) -> Agent:
        return BareAgent()

    return single if agent is AgentKind.SINGLE else bare


def _rule(agent: AgentKind, caller: Caller, intent: Intent | None) -> Any:
    if agent is AgentKind.BARE or intent is None:
        return bare_model
    if agent is AgentKind.SUPERVISED:
        return supervised_model(caller, intent)
    return single_agent_model(caller, intent)


async def play(
    agent: AgentKind,
    intent: Intent | None,
    variant: Variant | None,
    latency: LatencyModel,
    *,
    speed: float = DEFAULT_SPEED,
    settings: Settings | None = None,
    phrases: PhraseCache | None = None,
) -> FlowWaits:
    """One flow (or, for the bare agent, `BARE_TURNS` questions) over the voice seam;
    this agent's fixed sentences from `phrases` when given (else a cache of the call's
    own)."""
    caller = demo_caller(intent or Intent.LOOKUP)
    flow = f"{intent.name.lower()}, {variant.value}" if intent and variant else "bare"
    run = FlowWaits(agent, flow)
    clock = StoreClock()
    settings = settings or Settings()
    async with scratch_database() as database_url:
        store = await open_demo_store(database_url)
        async with store:
            model = MeasuredLLM(_rule(agent, caller, intent), measure=False)
            with clock.following(store):
                async with voice_call_session(
                    model,
                    store=store.for_call(),
                    settings=settings,
                    speed=speed,
                    latency=latency,
                    agent=_agent_factory(agent),
                    phrases=phrases,
                ) as call:
                    voice = VoiceAgent(call)
                    await voice.hear_greeting()
                    assert isinstance(call.llm, SlowLLM)
                    assert isinstance(call.tts, FakeTTS)
                    says: str | None = (
                        caller.opening(intent, variant) if intent and variant else "Hello?"
                    )
                    number = 0
                    while says is not None and not voice.ended:
                        number += 1
                        if number > (MAX_CALLER_TURNS if intent else BARE_TURNS):
                            if intent:
                                run.failure = f"still asked after {MAX_CALLER_TURNS} turns"
                            break
                        handoffs = _handoffs(call.session.history.items)
                        writes = len(clock.writes)
                        turn = await voice.answer(says)
                        line = call.lines[-1]
                        assert line.ended_at is not None
                        start = line.began_at
                        heard_at = (
                            line.ended_at + turn.wait_s / speed
                            if turn.wait_s is not None
                            else float("inf")
                        )
                        reply = caller.reply(turn.said) if intent else "Another question."
                        kinds = set()
                        if intent and caller.email in says:
                            kinds.add(VERIFICATION)
                        if _handoffs(call.session.history.items) > handoffs:
                            kinds.add(HAND_OFF)
                        if reply is not None and reply.lower().startswith("yes"):
                            kinds.add(READ_BACK)
                        if len(clock.writes) > writes:
                            kinds.add(AFTER_WRITE)
                        run.turns.append(
                            TurnWait(
                                kinds=frozenset(kinds or {PLAIN}),
                                wait_s=turn.wait_s,
                                model_calls=_between(call.llm.answered, start, heard_at),
                                syntheses=_between(call.tts.started, start, heard_at),
                                store_reads=_between(clock.reads, start, heard_at),
                                words_s=_words_wait(call, line.ended_at),
                            )
                        )
                        says = reply
                    call_id = call.state.call_id
            if intent is not None and run.failure is None:
                run.failure = await check_outcome(store, call_id, caller, intent)
    return run


def _words_wait(call: VoiceCall, line_ended: float) -> float | None:
    """Script seconds from `line_ended` to the first speech after it that is not only an
    acknowledgement."""
    for speech in call.speeches:
        if speech.began_at >= line_ended and " ".join(speech.heard.split()) not in (
            ACKNOWLEDGEMENTS
        ):
            return (speech.began_at - line_ended) * call.speed
    return None


@contextmanager
def without_acknowledgements() -> Iterator[None]:
    """This agent as it would be without `FirstWords`: for measuring what it changes."""
    owed = FirstWords.acknowledgement_owed
    FirstWords.acknowledgement_owed = property(lambda _self: False)  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        FirstWords.acknowledgement_owed = owed  # type: ignore[method-assign]


def _handoffs(items: Sequence[Any]) -> int:
    return sum(isinstance(item, AgentHandoff) and item.old_agent_id is not None for item in items)


async def measure(
    latency: LatencyModel, *, repeats: int = 1, speed: float = DEFAULT_SPEED
) -> list[FlowWaits]:
    """Every flow by both agents, interleaved, `repeats` times; and the bare agent's
    turns once per repeat. This agent's calls share one phrase cache, as a machine's
    calls share SPEECH_CACHE_DIR: the first saying of a sentence fills it."""
    runs = []
    phrases = PhraseCache()
    for _ in range(repeats):
        for intent in Intent:
            for variant in Variant:
                for agent in (AgentKind.SUPERVISED, AgentKind.SINGLE):
                    settle_heap()
                    runs.append(
                        await play(agent, intent, variant, latency, speed=speed, phrases=phrases)
                    )
        settle_heap()
        runs.append(await play(AgentKind.BARE, None, None, latency, speed=speed))
    return runs


def _counted(runs: Sequence[FlowWaits], agent: AgentKind) -> list[FlowWaits]:
    return [run for run in runs if run.agent is agent and run.failure is None]


def _words_waits(runs: Sequence[FlowWaits], agent: AgentKind) -> list[float]:
    turns = [turn for run in _counted(runs, agent) for turn in run.turns]
    return [turn.words_s for turn in turns if turn.words_s is not None]


def _seconds(values: Sequence[float]) -> str:
    return f"{statistics.fmean(values):.2f}" if values else "-"


def report(runs: Sequence[FlowWaits], latency: LatencyModel) -> dict[str, str]:
    """The tables, and the targets' verdicts."""
    print(f"\nLatency model: {latency.described()}")
    agents = (AgentKind.SUPERVISED, AgentKind.SINGLE)
    flows = sorted({run.flow for run in runs if run.agent is not AgentKind.BARE})
    rows = []
    flow_met = True
    for flow in flows:
        row: list[object] = [flow]
        p95: dict[AgentKind, float] = {}
        for agent in agents:
            waits = [w for run in _counted(runs, agent) if run.flow == flow for w in run.waits]
            p95[agent] = percentile(waits, 0.95) if waits else float("nan")
            row += [ms(percentile(waits, 0.5)) if waits else "-", ms(p95[agent]), len(waits)]
        met = p95[AgentKind.SUPERVISED] <= p95[AgentKind.SINGLE]
        flow_met = flow_met and met
        rows.append([*row, "yes" if met else "NO"])
    print_table(
        "The caller's wait per flow (script ms, end of the caller's line to first audio)",
        [
            "flow",
            "this agent p50",
            "p95",
            "turns",
            "single agent p50",
            "p95",
            "turns",
            "p95 no longer",
        ],
        rows,
    )
    kind_rows = []
    most_calls = 0
    for agent in agents:
        turns = [turn for run in _counted(runs, agent) for turn in run.turns]
        for kind in KINDS:
            of_kind = [turn for turn in turns if kind in turn.kinds]
            waits = [turn.wait_s for turn in of_kind if turn.wait_s is not None]
            if not of_kind:
                continue
            calls = [turn.model_calls for turn in of_kind]
            if agent is AgentKind.SUPERVISED:
                most_calls = max(most_calls, *calls)
            kind_rows.append(
                [
                    agent.value,
                    kind,
                    len(of_kind),
                    ms(percentile(waits, 0.5)) if waits else "-",
                    ms(percentile(waits, 0.95)) if waits else "-",
                    _seconds([float(c) for c in calls]),
                    max(calls),
                    _seconds([float(turn.syntheses) for turn in of_kind]),
                    _seconds([float(turn.store_reads) for turn in of_kind]),
                ]
            )
    print_table(
        "Per kind of turn: the wait, and what stood before the first audio (means)",
        [
            "agent",
            "turn",
            "turns",
            "p50 ms",
            "p95 ms",
            "model calls",
            "most",
            "syntheses",
            "store reads",
        ],
        kind_rows,
    )
    means = {
        agent: statistics.fmean(w for run in _counted(runs, agent) for w in run.waits)
        for agent in (*agents, AgentKind.BARE)
        if any(run.waits for run in _counted(runs, agent))
    }
    ours = means.get(AgentKind.SUPERVISED, float("nan"))
    summary = [
        [agent.value, f"{mean:.2f}", _seconds(_words_waits(runs, agent))]
        for agent, mean in means.items()
    ]
    summary.append(
        [
            "the floor (the turn's end or the first token, then the first audio)",
            f"{latency.floor_s:.2f}",
            "",
        ]
    )
    summary += [[name, f"{seconds:.2f}", ""] for name, seconds in LEADERBOARD_MEAN_WAIT_S.items()]
    print_table(
        "Mean wait over all turns, seconds, beside the public voice leaderboard",
        ["", "to first audio", "to the reply's own words"],
        summary,
    )
    failures = [f"{run.agent.value}, {run.flow}: {run.failure}" for run in runs if run.failure]
    for failure in failures:
        print(f"FAILED (not counted): {failure}")
    bare = means.get(AgentKind.BARE)
    measured_floor = f"; the bare agent's mean {bare:.2f} s" if bare is not None else ""
    return {
        FLOW_TARGET: f"{verdict(flow_met and not failures)}"
        + (f" ({len(failures)} flows failed)" if failures else ""),
        CALLS_TARGET: f"{verdict(most_calls <= 1)}: at most {most_calls} in a turn",
        FLOOR_TARGET: f"{verdict(ours <= latency.floor_s * (1 + FLOOR_MARGIN))}: "
        f"{ours:.2f} s against {latency.floor_s:.2f} s{measured_floor}; "
        f"the delays one after another {latency.delays_s:.2f} s",
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    defaults = LatencyModel()
    parser.add_argument("--repeats", type=int, default=1, help="runs of every flow (1)")
    parser.add_argument("--speed", type=float, default=DEFAULT_SPEED, help="call speed (3)")
    for name, info in LatencyModel.model_fields.items():
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=float,
            default=getattr(defaults, name),
            help=f"{info.description or name} (LATENCY_{name.upper()})",
        )
    parser.add_argument(
        "--without-acknowledgements",
        action="store_true",
        help="this agent without its acknowledgements (FirstWords), to measure what they change",
    )
    parser.add_argument("--verbose", action="store_true", help="show warnings and errors")
    args = parser.parse_args(argv)
    quiet_logs(args.verbose)
    latency = LatencyModel(**{name: getattr(args, name) for name in LatencyModel.model_fields})
    print(f"Machine: {machine()}; calls played at {args.speed:g}x a call's pace")
    with without_acknowledgements() if args.without_acknowledgements else nullcontext():
        runs = asyncio.run(measure(latency, repeats=args.repeats, speed=args.speed))
    targets = report(runs, latency)
    print("\n## Targets\n")
    for target, shown in targets.items():
        print(f"- {target}: {shown}")


if __name__ == "__main__":
    main()
