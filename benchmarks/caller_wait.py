"""The caller's wait: from their last word to the agent's first sound, and to its answer.

    .venv/bin/python -m benchmarks.caller_wait [--repeats 3] [--speed 3] [--cache cold]
    LATENCY_LLM_FIRST_TOKEN_S=0.9 .venv/bin/python -m benchmarks.caller_wait

Every benchmark flow (4 intents, details up front and when asked) is played over the
voice seam (`customer_service.testing.voice`: the session the server builds, timed
fakes for speech) under the providers' latencies (`LatencyModel`, each a `LATENCY_*`
setting or an option here), by this agent and by the single-agent baseline with the
same tools' work and store, interleaved in one run; and turns of a bare agent (one
agent, no tools, one model call a turn) give the pipeline's floor as measured. A flow
counts only when the store shows it succeeded.

Each caller turn records two waits in script seconds from the end of the caller's line:
to the first audio of the reply, and to the first audio of the reply's own words, where
every filler (`customer_service.call.wording.FILLERS`) is passed over, a speech that is
only fillers and the fillers that open a speech alike, timed by the audio of the words
that follow them. It records what stood before the first audio, counted from the start
of the caller's line: model requests that answered (their first token) before it, speech
syntheses and store reads begun before it; and the filler that opened it, if one did.
A turn is of
one or more kinds: **verification** (the caller gave their identity details), **hand-off**
(the agent changed: a specialist started or handed back), **read-back** (the reply asks
the caller to confirm, and they say yes), **after a write** (the store changed one of
the caller's records during the turn; the audit trail does not count); **plain**
otherwise.

The phrase cache (`--cache`): `cold`, a cache of each call's own, as the default
deployment has it (`SPEECH_CACHE_DIR` unset, each call in a process of its own), or
`warm`, one cache every call shares, as a machine's calls share `SPEECH_CACHE_DIR`;
both agents speak their fixed sentences from it (the single agent its greeting, and any
fixed sentence its model says alone). `--without-fillers` plays this agent with none
(`FirstWords` off, no slow-step notice). Figures over all turns come with a 95 %
interval across the runs (`--repeats`), not only across callers.

The call runs `--speed` times faster than a real one, so the application's own CPU time
counts `--speed` times over in script seconds: a low speed keeps that small.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import statistics
from collections.abc import AsyncIterable, AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from livekit import rtc
from livekit.agents import Agent, ModelSettings
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
from benchmarks.conversation import AgentKind, handoffs
from benchmarks.models import bare_model, single_agent_model, supervised_model
from benchmarks.single_agent import BareAgent, SingleAgent, SingleAgentState
from benchmarks.tau2.voice_side import VoiceAgent
from customer_service.call.fixed_sentences import registered, sentences
from customer_service.call.phrase_cache import PhraseCache, reply_audio, say
from customer_service.call.state import CallState
from customer_service.call.wording import ALL_RIGHT, FILLERS, GREETING
from customer_service.settings import Settings
from customer_service.store import Store
from customer_service.testing import open_demo_store, scratch_database
from customer_service.testing.caller_audio import AgentSpeech
from customer_service.testing.database_work import is_control, is_write
from customer_service.testing.latency import LatencyModel, SlowLLM
from customer_service.testing.speech_models import FakeTTS
from customer_service.testing.voice import voice_call_session

DEFAULT_SPEED = 3.0
MAX_CALLER_TURNS = 12
BARE_TURNS = 5
LEADERBOARD_MEAN_WAIT_S = {
    "Grok Voice (best)": 1.24,
    "Grok Voice (worst)": 1.78,
    "Pine Voice": 2.27,
}
"""Mean response latency on τ-Voice's retail tasks, from its public voice leaderboard:
measured on real providers and lines, quoted as context, not compared with simulated
providers."""
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

WORDS_SHARE = 0.85
"""This agent's mean wait to the reply's own words, at most this share of the single
agent's."""

FLOW_TARGET = "every flow's p95 wait at most the single agent's"
WORDS_FLOW_TARGET = "every flow's p95 wait to the reply's own words at most the single agent's"
WORDS_MEAN_TARGET = (
    f"mean wait to the reply's own words at most {WORDS_SHARE:.2f}x the single agent's"
)
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
    """Script seconds to the first audio of the reply's own words (`own_words_wait`)."""
    opening_filler: str | None = None
    """The filler the reply opened with, if it did."""


@dataclass
class FlowWaits:
    agent: AgentKind
    flow: str
    turns: list[TurnWait] = field(default_factory=list)
    failure: str | None = None
    run: int = 0
    """Which of the benchmark's runs (`--repeats`) played it."""

    @property
    def waits(self) -> list[float]:
        return [turn.wait_s for turn in self.turns if turn.wait_s is not None]

    @property
    def words_waits(self) -> list[float]:
        return [turn.words_s for turn in self.turns if turn.words_s is not None]


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


class CachedSingleAgent(SingleAgent):
    """The single agent speaking its fixed sentences from the call's phrase cache, as this
    agent does: its greeting, and a segment of its model's words that is one fixed
    sentence alone. The comparison is of the design, not of the cache."""

    async def on_enter(self) -> None:
        say(self.session, GREETING)

    def tts_node(
        self, text: AsyncIterable[str], model_settings: ModelSettings
    ) -> AsyncIterator[rtc.AudioFrame]:
        return reply_audio(self, text, model_settings, own_sentences=registered())


def _agent_factory(agent: AgentKind) -> Any:
    if agent is AgentKind.SUPERVISED:
        return None  # the voice seam's own: CustomerServiceAgent

    def single(state: CallState) -> Agent:
        return CachedSingleAgent(
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
    fillers: bool = True,
    run_number: int = 0,
) -> FlowWaits:
    """One flow (or, for the bare agent, `BARE_TURNS` questions) over the voice seam;
    the fixed sentences from `phrases` when given (else a cache of the call's own);
    `fillers=False`: this agent says none."""
    caller = demo_caller(intent or Intent.LOOKUP)
    flow = f"{intent.name.lower()}, {variant.value}" if intent and variant else "bare"
    run = FlowWaits(agent, flow, run=run_number)
    clock = StoreClock()
    settings = settings or Settings()
    if not fillers:
        # The slow-step notice is a filler too: at its longest, it never comes.
        settings = settings.model_copy(update={"slow_step_notice_s": 60.0})
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
                    call.state.first_words.enabled = fillers
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
                        handoffs_before = handoffs(call.session.history.items)
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
                        if handoffs(call.session.history.items) > handoffs_before:
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
                                words_s=own_words_wait(call.speeches, line.ended_at, call.speed),
                                opening_filler=opening_filler(call.speeches, line.ended_at),
                            )
                        )
                        says = reply
                    call_id = call.state.call_id
            if intent is not None and run.failure is None:
                run.failure = await check_outcome(store, call_id, caller, intent)
    return run


def _filler_prefix(said: str) -> str:
    """The fillers `said` opens with, as it says them; empty if it opens with none."""
    prefix = ""
    for sentence in sentences(said):
        if sentence not in FILLERS:
            break
        prefix += f"{sentence} "
    return prefix


def own_words_at(speech: AgentSpeech) -> float | None:
    """Loop time the first audio of `speech` that is not a filler began; None for a speech
    of fillers only. A filler flushed on its own is a speech of its own; fillers that
    open a speech are timed by its audio: its first word is heard as its audio begins,
    and the first word past them as much later as its audio plays."""
    fillers = len(_filler_prefix(" ".join(speech.heard.split())).split())
    if fillers == 0:
        return speech.began_at
    heard = ""
    for piece, at in zip(speech.words, speech.heard_at, strict=True):
        heard += piece
        if len(heard.split()) > fillers:
            return speech.began_at + (at - speech.heard_at[0])
    return None


def own_words_wait(
    speeches: Sequence[AgentSpeech], line_ended: float, speed: float
) -> float | None:
    """Script seconds from `line_ended` to the first audio of the reply's own words: the
    first word heard after it that is no filler (`wording.FILLERS`), a speech of fillers
    only and the fillers that open a speech passed over alike."""
    for speech in speeches:
        if speech.began_at < line_ended:
            continue
        at = own_words_at(speech)
        if at is not None:
            return (at - line_ended) * speed
    return None


def opening_filler(speeches: Sequence[AgentSpeech], line_ended: float) -> str | None:
    """The filler the first speech after `line_ended` opened with, if it did."""
    first = next((speech for speech in speeches if speech.began_at >= line_ended), None)
    if first is None:
        return None
    prefix = sentences(_filler_prefix(" ".join(first.heard.split())))
    return prefix[0] if prefix else None


async def measure(
    latency: LatencyModel,
    *,
    repeats: int = 1,
    speed: float = DEFAULT_SPEED,
    warm: bool = True,
    fillers: bool = True,
) -> list[FlowWaits]:
    """Every flow by both agents, interleaved, `repeats` times; and the bare agent's
    turns once per repeat. `warm`: every call shares one phrase cache, as a machine's
    calls share SPEECH_CACHE_DIR (the first saying of a sentence fills it); else each
    call has its own, as a call in a process of its own without the folder has."""
    runs = []
    shared = PhraseCache() if warm else None
    for number in range(repeats):
        for intent in Intent:
            for variant in Variant:
                for agent in (AgentKind.SUPERVISED, AgentKind.SINGLE):
                    settle_heap()
                    runs.append(
                        await play(
                            agent,
                            intent,
                            variant,
                            latency,
                            speed=speed,
                            phrases=shared,
                            fillers=fillers,
                            run_number=number,
                        )
                    )
        settle_heap()
        bare = await play(AgentKind.BARE, None, None, latency, speed=speed, run_number=number)
        runs.append(bare)
    return runs


def _counted(runs: Sequence[FlowWaits], agent: AgentKind) -> list[FlowWaits]:
    return [run for run in runs if run.agent is agent and run.failure is None]


def _seconds(values: Sequence[float]) -> str:
    return f"{statistics.fmean(values):.2f}" if values else "-"


T_95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}
"""Student's t at 95 % (two-sided) by degrees of freedom; 1.96 beyond."""


def across_runs(means: Sequence[float]) -> str:
    """The mean of per-run means, with its 95 % interval across the runs."""
    if not means:
        return "-"
    mean = statistics.fmean(means)
    if len(means) < 2:
        return f"{mean:.2f} (1 run)"
    half = T_95.get(len(means) - 1, 1.96) * statistics.stdev(means) / math.sqrt(len(means))
    return f"{mean:.2f} [{mean - half:.2f}-{mean + half:.2f}]"


def _run_means(runs: Sequence[FlowWaits], agent: AgentKind, *, words: bool) -> list[float]:
    """The mean wait of each run, over its counted flows."""
    counted = _counted(runs, agent)
    means = []
    for number in sorted({run.run for run in counted}):
        waits = [
            wait
            for run in counted
            if run.run == number
            for wait in (run.words_waits if words else run.waits)
        ]
        if waits:
            means.append(statistics.fmean(waits))
    return means


def _mean(runs: Sequence[FlowWaits], agent: AgentKind, *, words: bool) -> float:
    waits = [w for run in _counted(runs, agent) for w in (run.words_waits if words else run.waits)]
    return statistics.fmean(waits) if waits else float("nan")


def _p(values: Sequence[float], fraction: float) -> str:
    return ms(percentile(values, fraction)) if values else "-"


def filler_habits(runs: Sequence[FlowWaits]) -> tuple[int, int, int, int]:
    """Over this agent's calls: turns, turns opened with a filler, the most times one call
    opened two turns in a row with the same filler, and the most "All right." in a call."""
    turns = opened = repeats = most_all_right = 0
    for run in runs:
        if run.agent is not AgentKind.SUPERVISED:
            continue
        fillers = [turn.opening_filler for turn in run.turns]
        turns += len(fillers)
        opened += sum(filler is not None for filler in fillers)
        repeats = max(
            repeats,
            sum(a is not None and a == b for a, b in itertools.pairwise(fillers)),
        )
        most_all_right = max(most_all_right, fillers.count(ALL_RIGHT))
    return turns, opened, repeats, most_all_right


def report(runs: Sequence[FlowWaits], latency: LatencyModel) -> dict[str, str]:
    """The tables, and the targets' verdicts."""
    print(f"\nLatency model: {latency.described()}")
    agents = (AgentKind.SUPERVISED, AgentKind.SINGLE)
    flows = sorted({run.flow for run in runs if run.agent is not AgentKind.BARE})
    rows = []
    flow_met = words_flow_met = True
    for flow in flows:
        row: list[object] = [flow]
        p95: dict[AgentKind, float] = {}
        words_p95: dict[AgentKind, float] = {}
        for agent in agents:
            of_flow = [run for run in _counted(runs, agent) if run.flow == flow]
            waits = [w for run in of_flow for w in run.waits]
            words = [w for run in of_flow for w in run.words_waits]
            p95[agent] = percentile(waits, 0.95) if waits else float("nan")
            words_p95[agent] = percentile(words, 0.95) if words else float("nan")
            row += [_p(waits, 0.5), _p(waits, 0.95), _p(words, 0.5), _p(words, 0.95), len(waits)]
        met = p95[AgentKind.SUPERVISED] <= p95[AgentKind.SINGLE]
        words_met = words_p95[AgentKind.SUPERVISED] <= words_p95[AgentKind.SINGLE]
        flow_met = flow_met and met
        words_flow_met = words_flow_met and words_met
        rows.append([*row, "yes" if met else "NO", "yes" if words_met else "NO"])
    print_table(
        "The caller's wait per flow (script ms from the end of the caller's line): to the "
        "first audio, and to the reply's own words",
        [
            "flow",
            "this agent audio p50",
            "p95",
            "words p50",
            "p95",
            "turns",
            "single agent audio p50",
            "p95",
            "words p50",
            "p95",
            "turns",
            "audio p95 no longer",
            "words p95 no longer",
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
            words = [turn.words_s for turn in of_kind if turn.words_s is not None]
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
                    _p(waits, 0.5),
                    _p(waits, 0.95),
                    _p(words, 0.5),
                    _p(words, 0.95),
                    _seconds([float(c) for c in calls]),
                    max(calls),
                    _seconds([float(turn.syntheses) for turn in of_kind]),
                    _seconds([float(turn.store_reads) for turn in of_kind]),
                ]
            )
    print_table(
        "Per kind of turn: the waits, and what stood before the first audio (means)",
        [
            "agent",
            "turn",
            "turns",
            "audio p50 ms",
            "p95 ms",
            "words p50 ms",
            "p95 ms",
            "model calls",
            "most",
            "syntheses",
            "store reads",
        ],
        kind_rows,
    )
    summary = [
        [
            agent.value,
            across_runs(_run_means(runs, agent, words=False)),
            across_runs(_run_means(runs, agent, words=True)),
        ]
        for agent in (*agents, AgentKind.BARE)
        if _counted(runs, agent)
    ]
    summary.append(
        [
            "the floor (the turn's end or the first token, then the first audio)",
            f"{latency.floor_s:.2f}",
            "",
        ]
    )
    print_table(
        "Mean wait over all turns, seconds, with its 95 % interval across runs",
        ["", "to first audio", "to the reply's own words"],
        summary,
    )
    print(
        "Context only (real providers and lines, not simulated ones), τ-Voice's public "
        "leaderboard, mean response latency on retail: "
        + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in LEADERBOARD_MEAN_WAIT_S.items())
    )
    counted, opened, repeats, all_right = filler_habits(runs)
    print(
        f"\nFillers: {opened} of {counted} turns opened with one; at most {repeats} pairs of "
        f"turns in a row opened with the same one in a call; at most {all_right} "
        f'"{ALL_RIGHT}" in a call'
    )
    failures = [f"{run.agent.value}, {run.flow}: {run.failure}" for run in runs if run.failure]
    for failure in failures:
        print(f"FAILED (not counted): {failure}")
    ours = _mean(runs, AgentKind.SUPERVISED, words=False)
    bare = _mean(runs, AgentKind.BARE, words=False)
    measured_floor = f"; the bare agent's mean {bare:.2f} s" if not math.isnan(bare) else ""
    our_words = _mean(runs, AgentKind.SUPERVISED, words=True)
    their_words = _mean(runs, AgentKind.SINGLE, words=True)
    share = our_words / their_words if their_words else float("nan")
    failed = f" ({len(failures)} flows failed)" if failures else ""
    return {
        FLOW_TARGET: f"{verdict(flow_met and not failures)}{failed}",
        WORDS_FLOW_TARGET: f"{verdict(words_flow_met and not failures)}{failed}",
        WORDS_MEAN_TARGET: f"{verdict(share <= WORDS_SHARE and not failures)}: "
        f"{our_words:.2f} s against {their_words:.2f} s ({share:.2f}x)",
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
    parser.add_argument(
        "--cache",
        choices=("warm", "cold"),
        default="warm",
        help="one phrase cache all calls share (warm), or one of each call's own (cold)",
    )
    for name, info in LatencyModel.model_fields.items():
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=float,
            default=getattr(defaults, name),
            help=f"{info.description or name} (LATENCY_{name.upper()})",
        )
    parser.add_argument(
        "--without-fillers",
        action="store_true",
        help="this agent without any filler (FirstWords off, no slow-step notice)",
    )
    parser.add_argument("--verbose", action="store_true", help="show warnings and errors")
    args = parser.parse_args(argv)
    quiet_logs(args.verbose)
    latency = LatencyModel(**{name: getattr(args, name) for name in LatencyModel.model_fields})
    print(
        f"Machine: {machine()}; calls played at {args.speed:g}x a call's pace; "
        f"{args.cache} phrase cache; {'no fillers' if args.without_fillers else 'fillers'}"
    )
    runs = asyncio.run(
        measure(
            latency,
            repeats=args.repeats,
            speed=args.speed,
            warm=args.cache == "warm",
            fillers=not args.without_fillers,
        )
    )
    targets = report(runs, latency)
    print("\n## Targets\n")
    for target, shown in targets.items():
        print(f"- {target}: {shown}")


if __name__ == "__main__":
    main()
