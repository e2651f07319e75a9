"""The local recogniser's hearing, measured for `benchmarks.local_speech`: how steadily
it hears a line as a call's pauses fall around it, and the names it hears on a
τ²-bench store.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from livekit import rtc
from livekit.agents import stt
from livekit.agents.vad import VAD

from benchmarks.tau2.data import DEFAULT_DB, load_json
from customer_service.pipeline.local_stt import LocalSTT
from customer_service.pipeline.local_tts import LocalTTS
from customer_service.pipeline.local_vocabulary import (
    CallVocabulary,
    spoken_words,
    store_vocabulary,
)
from customer_service.store import Store
from customer_service.store.seed import DEMO_CUSTOMERS
from customer_service.testing import sqlite_url
from customer_service.testing.local_speech import (
    CALLER_SAMPLE_RATE,
    CALLER_VOICE,
    KeptVoice,
    word_errors,
)

STEADY_HEARINGS = 6
STEADY_SEED = 46
BARE_IDENTITY = "Jordan Lee, nine four one zero seven, jordan dot lee at example dot com"
TAU2_NAMES = 20


async def heard_after_silence(ears: LocalSTT, sound: bytes, silence_s: float) -> str:
    """`sound` (at the caller's rate) heard as a call's stream hears it, 20 ms at a time,
    after `silence_s` of silence and before a second of it: its final transcripts."""
    stream = ears.stream()
    step = CALLER_SAMPLE_RATE // 50
    silence = rtc.AudioFrame.create(CALLER_SAMPLE_RATE, 1, step)
    for _ in range(round(silence_s * 50)):
        stream.push_frame(silence)
    for at in range(0, len(sound), step * 2):
        piece = sound[at : at + step * 2]
        stream.push_frame(rtc.AudioFrame(piece, CALLER_SAMPLE_RATE, 1, len(piece) // 2))
    for _ in range(50):
        stream.push_frame(silence)
    stream.end_input()
    finals = [
        event.alternatives[0].text
        async for event in stream
        if event.type == stt.SpeechEventType.FINAL_TRANSCRIPT and event.alternatives
    ]
    return " ".join(finals)


async def steadiness(ears: LocalSTT, lines: list[str]) -> list[tuple[str, str, str, str]]:
    """`lines`, each heard through the recogniser's stream after a
    silence of its own (0.1 to 2 s, as a call's pauses fall), said anew each hearing
    and said once and kept; and the details said as bare words, kept. For each: the
    different transcripts a line gets (mean), the lines heard alike every time, and the
    word accuracy."""
    anew = LocalTTS(voice=CALLER_VOICE, sample_rate=CALLER_SAMPLE_RATE)
    kept = KeptVoice(CALLER_VOICE, sample_rate=CALLER_SAMPLE_RATE)
    silences = random.Random(STEADY_SEED)
    rows = []
    for name, voice, said in (
        ("said anew each time", anew, lines),
        ("said once and kept", kept, lines),
        ("kept, the details as bare words", kept, [BARE_IDENTITY]),
    ):
        different = alike = errors = words = 0
        for line in said:
            heard = []
            for _ in range(STEADY_HEARINGS):
                sound = bytes((await voice.synthesize(line).collect()).data)
                silence_s = silences.uniform(0.1, 2.0)
                heard.append(await heard_after_silence(ears, sound, silence_s))
            different += len(set(heard))
            alike += len(set(heard)) == 1
            reference = spoken_words(line)
            errors += sum(word_errors(reference, text.split()) for text in heard)
            words += len(reference) * len(heard)
        rows.append(
            (
                name,
                f"{different / len(said):.1f}",
                f"{alike} of {len(said)}",
                f"{1 - errors / words:.0%}",
            )
        )
    return rows


async def tau2_names(vad: VAD) -> list[tuple[str, str]]:
    """Name words heard of `TAU2_NAMES` customers of a τ²-bench store, by ears listening
    for that store, and by ears listening for the demo customers and the catalog."""
    data = load_json(DEFAULT_DB)
    users = [data["users"][key] for key in sorted(data["users"])]
    speakers = users[:: len(users) // TAU2_NAMES][:TAU2_NAMES]
    with tempfile.TemporaryDirectory(prefix="cs-bench-") as scratch:
        url = sqlite_url(Path(scratch) / "store.sqlite3")
        async with await Store.open(url, migrate=True, seed_demo_data=False) as store:
            await store.import_tau2(data)
            own = await store_vocabulary(store)
            products = await store.products()
    demo_only = CallVocabulary()
    demo_only.add_catalog(products)
    demo_only.add_customers(DEMO_CUSTOMERS)
    print(
        f"The τ²-bench store's vocabulary: {len(own.sentences)} sentences, "
        f"{len(own.words())} words ({len(own.unknown)} left out, unknown to the dictionary)"
    )
    caller = LocalTTS(voice=CALLER_VOICE)
    said = []
    for user in speakers:
        name = f"{user['name']['first_name']} {user['name']['last_name']}"
        said.append((spoken_words(name), await caller.synthesize(f"my name is {name}").collect()))
    rows = []
    for label, vocabulary in (("the store's own", own), ("demo customers and catalog", demo_only)):
        ears = LocalSTT(vad=vad, vocabulary=vocabulary)
        heard = total = 0
        for words, sound in said:
            event = await ears.recognize(sound)
            text = event.alternatives[0].text.split() if event.alternatives else []
            heard += sum(word in text for word in words)
            total += len(words)
        await ears.aclose()
        rows.append((label, f"{heard / total:.0%} ({heard} of {total})"))
    return rows
