"""What the phrase cache saves per call: speech syntheses, and the wait before fixed sentences.

    .venv/bin/python -m benchmarks.phrase_cache [--first-audio 0.3]

Every flow (each intent, in both variants) as a voice call over the voice seam
(`voice_call_session`, its timed fakes run 10 times faster) with this agent's scripted
model (`benchmarks.models`), on a fresh demo store each, three times: without the cache
(every sentence synthesised as it is said), with an empty one (cold: the first call of
a process, or of a machine with an empty `SPEECH_CACHE_DIR`), and with that cache again
(warm: a later call that shares it). The TTS answers its first audio `--first-audio`
seconds after each request (every other delay of the seam as it is).

Per call: the TTS requests and the characters sent to it (what a provider bills), and
the caller's median wait, in script seconds (a hitch of the machine shows ten times
longer at the seam's speed, hence medians), before the agent's replies that open with a
sentence it says word for word (an identity or order question, a consent question;
the greeting's wait is from the call's start). Replies that the model words, or that
open with a caller's data, are synthesised in every mode and are left out of that
column. A flow that did not leave its store state is reported failed, not measured.
"""

from __future__ import annotations

import argparse
import asyncio
import enum
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.callers import Intent, Variant, check_outcome, demo_caller
from benchmarks.common import (
    MeasuredLLM,
    bench_settings,
    machine,
    median,
    print_table,
    quiet_logs,
    settle_heap,
    verdict,
)
from benchmarks.models import supervised_model
from benchmarks.tau2.voice_side import VoiceAgent
from customer_service.call.fixed_sentences import is_fixed, sentences
from customer_service.call.phrase_cache import PhraseCache
from customer_service.settings import Settings
from customer_service.testing import open_demo_store, sqlite_url
from customer_service.testing.speech_models import FakeTTS
from customer_service.testing.voice import VoiceCall, voice_call_session
from customer_service.testing.voice_timing import DEFAULT_SPEED, timed_fakes

TARGET = "a fixed sentence is synthesised once per voice: never again once cached"

FIRST_AUDIO_S = 0.3
"""Script seconds from a TTS request to its first audio: a streaming provider's time to
first audio as a call in a room sees it (network included)."""
MAX_CALLER_TURNS = 12


class Mode(enum.StrEnum):
    OFF = "no cache"
    COLD = "cold cache"
    WARM = "warm cache"


@dataclass
class CallFigures:
    flow: str
    mode: Mode
    requests: int = 0
    characters: int = 0
    fixed_waits: list[float] = field(default_factory=list)
    """Script seconds before each reply that opens with a fixed sentence, the greeting
    (waited for from the call's start) first."""
    synthesised_again: int = 0
    """Sentences synthesised for the cache that it had been filled with before."""
    failure: str | None = None


def opens_fixed(heard: str) -> bool:
    """Whether what the caller heard opens with a sentence the agent says word for word."""
    said = sentences(heard)
    return bool(said) and is_fixed(said[0])


async def greeting_heard(call: VoiceCall) -> float:
    """Waits for the greeting to be over; the script seconds before it began."""
    await call.until(lambda: bool(call.speeches) and call.agent_quiet())
    return (call.speech(1).began_at - call.started_at) * call.speed


async def one_call(
    intent: Intent,
    variant: Variant,
    mode: Mode,
    phrases: PhraseCache,
    settings: Settings,
    first_audio_s: float,
) -> CallFigures:
    caller = demo_caller(intent)
    figures = CallFigures(f"{intent.value}, {variant.value}", mode)
    speech = timed_fakes(settings, DEFAULT_SPEED)
    tts = speech.tts
    assert isinstance(tts, FakeTTS)
    tts.first_audio_delay = first_audio_s / DEFAULT_SPEED
    model = MeasuredLLM(supervised_model(caller, intent), measure=False)
    with tempfile.TemporaryDirectory(prefix="cs-bench-") as scratch:
        store = await open_demo_store(sqlite_url(Path(scratch) / "store.sqlite3"))
        async with store:
            async with voice_call_session(
                model, settings=settings, store=store, speech=speech, phrases=phrases
            ) as call:
                figures.fixed_waits.append(await greeting_heard(call))
                agent = VoiceAgent(call)
                says: str | None = caller.opening(intent, variant)
                for _ in range(MAX_CALLER_TURNS):
                    if says is None or agent.ended:
                        break
                    before = len(call.speeches)
                    turn = await agent.answer(says)
                    # The reply's first speech, not the words heard before the line.
                    reply = call.speeches[before:][:1]
                    if turn.wait_s is not None and reply and opens_fixed(reply[0].heard):
                        figures.fixed_waits.append(turn.wait_s)
                    says = caller.reply(turn.said)
                call_id = call.state.call_id
            figures.failure = await check_outcome(store, call_id, caller, intent)
    figures.requests = len(tts.texts)
    figures.characters = sum(len(text) for text in tts.texts)
    figures.synthesised_again = sum(count - 1 for count in phrases.syntheses.values())
    return figures


async def measure(
    first_audio_s: float = FIRST_AUDIO_S, variants: Sequence[Variant] = tuple(Variant)
) -> list[CallFigures]:
    settings = bench_settings()
    # One call unmeasured first: imports and first-use caches are not the cache's doing.
    await one_call(Intent.LOOKUP, Variant.ASKED, Mode.OFF, PhraseCache(), settings, 0.0)
    calls: list[CallFigures] = []
    for intent in Intent:
        for variant in variants:
            shared = PhraseCache()
            for mode, phrases in (
                (Mode.OFF, PhraseCache(enabled=False)),
                (Mode.COLD, shared),
                (Mode.WARM, shared),
            ):
                settle_heap()
                calls.append(
                    await one_call(intent, variant, mode, phrases, settings, first_audio_s)
                )
    return calls


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def report(calls: Sequence[CallFigures], first_audio_s: float = FIRST_AUDIO_S) -> str:
    """Prints the tables; returns the line for the targets."""
    measured = [call for call in calls if call.failure is None]
    by_flow: dict[str, dict[Mode, CallFigures]] = {}
    for call in measured:
        by_flow.setdefault(call.flow, {})[call.mode] = call
    rows = []
    for flow, modes in by_flow.items():
        if len(modes) < len(Mode):
            continue
        rows.append(
            [
                flow,
                " / ".join(str(modes[mode].requests) for mode in Mode),
                " / ".join(str(modes[mode].characters) for mode in Mode),
                " / ".join(f"{median(modes[mode].fixed_waits):.2f}" for mode in Mode),
            ]
        )
    modes_named = " / ".join(mode.value.removesuffix(" cache") for mode in Mode)
    print_table(
        f"Phrase cache per call ({modes_named} cache), TTS first audio {first_audio_s} s",
        ["flow", "TTS requests", "TTS characters", "median wait before fixed sentences (s)"],
        rows,
    )
    for call in calls:
        if call.failure is not None:
            print(f"FAILED ({call.mode.value}): {call.flow}: {call.failure}")
    totals = {
        mode: [call for call in measured if call.mode is mode and call.flow in by_flow]
        for mode in Mode
    }
    off, warm = totals[Mode.OFF], totals[Mode.WARM]
    if not off or not warm:
        return "not measured (no flow succeeded in every mode)"
    characters = {mode: _mean([call.characters for call in totals[mode]]) for mode in Mode}
    requests = {mode: _mean([call.requests for call in totals[mode]]) for mode in Mode}
    waits = {mode: median([w for call in totals[mode] for w in call.fixed_waits]) for mode in Mode}
    print(
        "\nMean per call: "
        + "; ".join(
            f"{mode.value} {requests[mode]:.1f} requests, {characters[mode]:.0f} characters, "
            f"median {waits[mode]:.2f} s before fixed sentences"
            for mode in Mode
        )
    )
    saved = 1 - characters[Mode.WARM] / characters[Mode.OFF]
    again = sum(call.synthesised_again for call in measured)
    return (
        f"{verdict(again == 0)} ({again} cached sentences synthesised again); warm cache: "
        f"{saved:.0%} fewer TTS characters per call, "
        f"{waits[Mode.OFF] - waits[Mode.WARM]:.2f} s less median wait before fixed sentences"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--first-audio", type=float, default=FIRST_AUDIO_S)
    parser.add_argument("--verbose", action="store_true", help="show warnings and errors")
    args = parser.parse_args(argv)
    quiet_logs(args.verbose)
    print(f"Machine: {machine()}")
    calls = asyncio.run(measure(args.first_audio))
    print(f"\n{report(calls, args.first_audio)}")


if __name__ == "__main__":
    main()
