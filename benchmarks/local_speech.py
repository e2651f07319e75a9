"""Local speech, measured: how well the local recogniser hears, what each part of a call
costs in CPU, and the caller's wait on a call heard for real.

    .venv/bin/python -m benchmarks.local_speech [--calls 1] [--tau2]

- **Word accuracy** (1 - word error rate, by edit distance over words) of the local
  recogniser (`pipeline.local_stt`, listening for the demo store's vocabulary as a call
  does: `store_vocabulary`, its catalog and its customers) on the synthetic caller's
  lines, said by eSpeak NG in the caller's voice (`testing.local_speech.CALLER_VOICE`),
  by kind: digits, names, yes and no, requests; and on the agent's own lines in its own
  voice, heard by ears listening for what the agent says (as the real-audio tests
  transcribe it back). Each line is said and heard `HEARINGS` times.
- **Steadiness** of what the recogniser hears of the real-audio calls' caller lines:
  each line heard `STEADY_HEARINGS` times through the recogniser's stream, after a
  silence that varies as a call's pauses do, said anew by eSpeak each time, against
  said once by the tests' kept voice (`testing.local_speech.KeptVoice`): how many
  different transcripts a line gets.
- **Names on a τ²-bench store** (`--tau2`): `TAU2_NAMES` of its customers, spread over
  it, saying their names in the caller's voice, heard by ears listening for that store
  as a call to it does, against ears listening for the demo customers and its catalog.
- **CPU per second of call** on real-audio calls played in real time
  (`voice_call_session` with `local_call_speech`: Silero, the project's turn detector,
  the local recogniser, the offline model and the local voice): Silero's inferences, the
  recogniser's decoding, eSpeak's synthesis (each timed on the thread that runs it),
  and the rest of the process.
- **The caller's wait** on those calls, in real time: from the end of a caller's line
  (its last frame into the microphone) to the agent's first audio frame after it,
  p50 and p95, beside the latency model's floor (`benchmarks.caller_wait`).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from livekit.agents.vad import VAD
from livekit.plugins.silero.onnx_model import OnnxModel

from benchmarks.common import machine, percentile, print_table
from benchmarks.local_hearing import (
    STEADY_HEARINGS,
    TAU2_NAMES,
    steadiness,
    tau2_names,
)
from customer_service.offline_llm import OfflineLLM
from customer_service.pipeline import load_vad
from customer_service.pipeline.espeak import ESpeak, ESpeakVoice
from customer_service.pipeline.local_stt import LocalSTT, Utterance
from customer_service.pipeline.local_tts import LocalTTS
from customer_service.pipeline.local_vocabulary import (
    CallVocabulary,
    dictionary_words,
    spoken_words,
    store_vocabulary,
)
from customer_service.settings import ModelProvider, Settings
from customer_service.testing import open_demo_store, sqlite_url
from customer_service.testing.local_speech import CALLER_VOICE, local_call_speech, word_errors
from customer_service.testing.script import AgentFinishes
from customer_service.testing.script import Utterance as Line
from customer_service.testing.voice import VoiceCall, voice_call_session

P = ParamSpec("P")
R = TypeVar("R")

IDENTITY = (
    "My name is Jordan Lee, my zip code is nine four one zero seven, and my email is jordan "
    "dot lee at example dot com"
)
NEW_ADDRESS = "one Market Street, San Francisco, California, nine four one zero five"
"""The calls' lines as the real-audio tests say them (`tests/voice/test_real_audio.py`)."""
CALLER_LINES = {
    "digits": [
        "one zero zero one zero one",
        "one zero zero one zero two",
        "nine four one zero seven",
        "two zero zero two zero one",
        "one zero zero zero one",
        "four one five five five five zero one three four",
    ],
    "names": ["Jordan Lee", "Priya Natarajan", "Maria Garcia", "my name is Jordan Lee"],
    "yes/no": ["yes", "no", "yes please", "no thanks", "yes, cancel it", "yes, that's right"],
    "requests": [
        "Where is my order?",
        "I want to cancel my order",
        "I need to change the delivery address for order one zero zero one zero two",
        "I don't need it any more",
        "one Market Street, Suite five, San Francisco, California, nine four one zero five",
    ],
}
AGENT_LINES = [
    "Hello, thanks for calling. How can I help you today?",
    "Before I can help with that, I need to verify your identity. Please tell me your "
    "full name, the postal code on your account, and the phone number or email address "
    "on the account.",
    "What's the order number? If you don't have it, I can list your recent orders.",
    "All right. I have 1 Market Street, Suite 5, San Francisco, CA 94105, United States. "
    "Is that right?",
    "All right. I'll cancel order 1 0 0, 1 0 2, because it was ordered by mistake. Do you "
    "want me to cancel this order? Please say yes or no.",
    "Are you still there? How can I help you today?",
]
CALLS = {
    "lookup": [
        Line("Where is my order one zero zero one zero one?"),
        Line(IDENTITY),
        Line("It's order one zero zero one zero one"),
    ],
    "address change, 15 dB": [
        Line("I need to change the delivery address for order one zero zero one zero two"),
        Line(IDENTITY),
        Line(NEW_ADDRESS),
        Line("yes", after=AgentFinishes("Is that right")),
    ],
    "cancellation, 20 dB": [
        Line("I want to cancel order one zero zero one zero two"),
        Line(IDENTITY),
        Line("I ordered it by mistake"),
        Line("yes, cancel it", after=AgentFinishes("Please say yes or no")),
    ],
}
NOISE = {"address change, 15 dB": 15.0, "cancellation, 20 dB": 20.0}
HEARINGS = 5
"""Times each line is said and heard: eSpeak says a line a little differently each time
(its voices' breath and pitch vary), and the recogniser's errors with it."""
LOADS = 5
FLOOR_S = 1.00
"""The latency model's floor for a turn (`benchmarks.caller_wait`, RESULTS section 13)."""


async def accuracy(ears: LocalSTT, voice: LocalTTS, lines: list[str]) -> tuple[float, int]:
    """Word accuracy of `ears` on `lines` said by `voice`, each `HEARINGS` times, and
    the words counted."""
    errors = words = 0
    for line in lines * HEARINGS:
        sound = await voice.synthesize(line).collect()
        event = await ears.recognize(sound)
        heard = event.alternatives[0].text.split() if event.alternatives else []
        reference = spoken_words(line)
        errors += word_errors(reference, heard)
        words += len(reference)
    return 1 - errors / words, words


class ThreadCPU:
    """CPU seconds spent inside wrapped functions, each timed on its own thread."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def timed(self, part: str, function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent = time.thread_time() - started
                self.seconds[part] = self.seconds.get(part, 0.0) + spent

        return wrapper


@contextmanager
def measured_parts(cpu: ThreadCPU) -> Iterator[None]:
    """Silero's inference, the recogniser's decoding and eSpeak's synthesis, timed."""
    patches: list[tuple[Any, str, Any]] = [
        (OnnxModel, "__call__", OnnxModel.__call__),
        (Utterance, "decode", Utterance.decode),
        (ESpeak, "synthesize", ESpeak.synthesize),
    ]
    parts = ["VAD", "STT", "TTS"]
    for (owner, name, original), part in zip(patches, parts, strict=True):
        setattr(owner, name, cpu.timed(part, original))
    try:
        yield
    finally:
        for owner, name, original in patches:
            setattr(owner, name, original)


def waits(call: VoiceCall) -> list[float]:
    """Real seconds from the end of each caller line to the agent's next first frame."""
    found = []
    for line in call.lines:
        if line.ended_at is None:
            continue
        later = [speech.began_at for speech in call.speeches if speech.began_at > line.ended_at]
        if later:
            found.append(min(later) - line.ended_at)
    return found


async def measure_calls(settings: Settings, repeats: int) -> tuple[dict[str, float], list[float]]:
    cpu = ThreadCPU()
    all_waits: list[float] = []
    seconds = 0.0
    process_cpu = 0.0
    with measured_parts(cpu):
        for _ in range(repeats):
            for name, caller in CALLS.items():
                speech = local_call_speech(settings, noise_snr_db=NOISE.get(name))
                started, started_cpu = time.monotonic(), time.process_time()
                async with voice_call_session(
                    OfflineLLM(), caller, settings=settings, speed=1.0, speech=speech
                ) as call:
                    await call.finished(give_up_after=180.0)
                    all_waits.extend(waits(call))
                seconds += time.monotonic() - started
                process_cpu += time.process_time() - started_cpu
    per_second = {part: spent / seconds for part, spent in cpu.seconds.items()}
    per_second["the rest"] = (process_cpu - sum(cpu.seconds.values())) / seconds
    per_second["call seconds"] = seconds
    return per_second, all_waits


async def demo_store_ears(vad: VAD) -> LocalSTT:
    """The recogniser as a call to the demo store has it, with what it took printed: its
    vocabulary's sentences gathered, its language model made, a decoder loaded (CPU)."""
    dictionary_words()  # the recogniser's dictionary, read once per process
    with tempfile.TemporaryDirectory(prefix="cs-bench-") as scratch:
        async with await open_demo_store(sqlite_url(Path(scratch) / "store.sqlite3")) as store:
            started = time.process_time()
            vocabulary = await store_vocabulary(store)
            gathered = time.process_time() - started
    started = time.process_time()
    ears = LocalSTT(vad=vad, vocabulary=vocabulary)
    modelled = time.process_time() - started
    loads = []
    for _ in range(LOADS):
        started = time.process_time()
        ears.decoder()
        loads.append(time.process_time() - started)
    loaded = percentile(loads, 0.5)
    print(
        f"The demo store's vocabulary: {len(vocabulary.sentences)} sentences, "
        f"{len(vocabulary.words())} words ({len(vocabulary.unknown)} left out, unknown to "
        f"the dictionary); gathered in {gathered * 1000:.0f} ms and its language model "
        f"made in {modelled * 1000:.0f} ms of CPU; a decoder on it loads in "
        f"{loaded * 1000:.0f} ms of CPU (the median of {LOADS})"
    )
    return ears


async def main(repeats: int, tau2: bool) -> None:
    settings = Settings.model_validate({"model_provider": ModelProvider.OFFLINE})
    vad = load_vad()
    caller_ears = await demo_store_ears(vad)
    caller = LocalTTS(voice=CALLER_VOICE)
    rows = []
    for kind, lines in CALLER_LINES.items():
        score, words = await accuracy(caller_ears, caller, lines)
        rows.append((f"caller: {kind}", f"{score:.0%}", words))
    agent_ears = LocalSTT(vad=vad, vocabulary=CallVocabulary(AGENT_LINES))
    agent = LocalTTS(
        voice=ESpeakVoice(settings.local_tts_voice, settings.local_tts_words_per_minute)
    )
    score, words = await accuracy(agent_ears, agent, AGENT_LINES)
    rows.append(("agent's own lines", f"{score:.0%}", words))
    print(f"Local speech on {machine()}")
    print_table("Word accuracy of the local recogniser", ["lines", "accuracy", "words"], rows)
    print_table(
        f"The calls' caller lines, each heard {STEADY_HEARINGS} times",
        ["the caller's voice", "transcripts a line", "lines heard alike", "accuracy"],
        await steadiness(
            caller_ears, list(dict.fromkeys(line.text for call in CALLS.values() for line in call))
        ),
    )
    if tau2:
        print_table(
            f"{TAU2_NAMES} τ²-bench customers saying their names",
            ["ears listening for", "name words heard"],
            await tau2_names(vad),
        )

    per_second, all_waits = await measure_calls(settings, repeats)
    call_seconds = per_second.pop("call seconds")
    print_table(
        f"CPU per second of call ({call_seconds:.0f} s of real-audio calls)",
        ["part", "CPU ms per call second"],
        [(part, f"{value * 1000:.0f}") for part, value in per_second.items()],
    )
    print_table(
        "The caller's wait, real time: end of the caller's audio to the agent's first frame",
        ["turns", "p50 s", "p95 s", "latency model floor s"],
        [
            (
                len(all_waits),
                f"{percentile(all_waits, 0.5):.2f}",
                f"{percentile(all_waits, 0.95):.2f}",
                f"{FLOOR_S:.2f}",
            )
        ],
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1, help="times each call is played")
    parser.add_argument("--tau2", action="store_true", help="also names heard on a τ²-bench store")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.calls, arguments.tau2))
