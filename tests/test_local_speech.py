"""Local speech, piece by piece: eSpeak NG's voice at the rate asked for, the call's
vocabulary as the recogniser hears it, and the recogniser's interim and final
transcripts of real sound."""

from __future__ import annotations

import importlib
import tempfile
from pathlib import Path

import numpy as np
import pytest
from benchmarks.tau2.data import DEFAULT_DB, load_json
from livekit import rtc
from livekit.agents import stt
from pocketsphinx import Config, LogMath, NGramModel

from customer_service.pipeline import listen_for_the_store, load_vad
from customer_service.pipeline.local_stt import MODEL_SAMPLE_RATE, LocalSTT, Utterance
from customer_service.pipeline.local_tts import LocalTTS
from customer_service.pipeline.local_vocabulary import CallVocabulary, spoken_words
from customer_service.store import Store
from customer_service.store.seed import DEMO_CUSTOMERS
from customer_service.testing import sqlite_url
from customer_service.testing.local_speech import (
    CALLER_VOICE,
    KeptVoice,
    brown_noise,
    word_errors,
)

# The module, not the package's `local_stt` function of the same name.
local_stt = importlib.import_module("customer_service.pipeline.local_stt")


def test_text_is_spoken_as_callers_say_it() -> None:
    assert spoken_words("500 Howard St, Apt 4B, CA 94107") == [
        "five",
        "zero",
        "zero",
        "howard",
        "street",
        "apartment",
        "four",
        "b",
        "california",
        "nine",
        "four",
        "one",
        "zero",
        "seven",
    ]
    assert spoken_words("María García") == ["maria", "garcia"]


def test_the_vocabulary_holds_only_words_the_recogniser_can_hear() -> None:
    vocabulary = CallVocabulary()
    vocabulary.add_customers(DEMO_CUSTOMERS)
    assert {"jordan", "lee", "howard", "nine", "yes"} <= vocabulary.words()
    assert "natarajan" in vocabulary.unknown
    assert "natarajan" not in vocabulary.words()
    said_how = {entry.split("(")[0] for entry, _ in vocabulary.pronunciations()}
    assert said_how == vocabulary.words()


async def test_the_recogniser_listens_for_the_store_it_runs_on(tmp_path: Path) -> None:
    # A τ²-bench customer and product, imported as `import-tau2` does: in no demo data.
    tau2 = load_json(DEFAULT_DB)
    only_here = {
        "users": {"noah_brown_6181": tau2["users"]["noah_brown_6181"]},
        "products": {"9523456873": tau2["products"]["9523456873"]},  # the T-shirt
        "orders": {},
    }
    recogniser = LocalSTT(vad=load_vad())
    try:
        url = sqlite_url(tmp_path / "store.sqlite3")
        async with await Store.open(url, migrate=True, seed_demo_data=False) as store:
            await store.import_tau2(only_here)
            await listen_for_the_store(recogniser, store)
        heard = recogniser.vocabulary.words()
        # And heard said aloud, in the caller's voice.
        caller = KeptVoice(CALLER_VOICE, sample_rate=24000)
        said = await caller.synthesize("my name is Noah Brown").collect()
        recognised = await recogniser.recognize(said)
    finally:
        await recogniser.aclose()
    # The customer's name, street and city; the product's options ("crew neck", "purple").
    assert {"noah", "brown", "sunset", "denver", "crew", "neck", "polyester", "purple"} <= heard
    assert "jordan" not in heard  # the demo customers are not in this store
    assert "noah brown" in recognised.alternatives[0].text


async def test_the_local_voice_speaks_at_the_rate_asked_for() -> None:
    voice = LocalTTS(sample_rate=48000)
    sound = await voice.synthesize("Hello. Is that right?").collect()
    assert (sound.sample_rate, sound.num_channels) == (48000, 1)
    assert 0.8 < sound.duration < 4.0
    assert any(bytes(sound.data))


async def test_the_recogniser_hears_digits_and_a_yes_with_interim_transcripts() -> None:
    vocabulary = CallVocabulary()
    recogniser = LocalSTT(vad=load_vad(), vocabulary=vocabulary)
    caller = KeptVoice(CALLER_VOICE, sample_rate=24000)
    stream = recogniser.stream()
    silence = rtc.AudioFrame.create(24000, 1, 480)
    for line in ("one zero zero one zero two", "yes please"):
        data = bytes((await caller.synthesize(line).collect()).data)
        for at in range(0, len(data), 960):
            piece = data[at : at + 960]
            stream.push_frame(rtc.AudioFrame(piece, 24000, 1, len(piece) // 2))
        for _ in range(50):
            stream.push_frame(silence)
    stream.end_input()
    events = [event async for event in stream]
    finals = [
        event.alternatives[0].text
        for event in events
        if event.type == stt.SpeechEventType.FINAL_TRANSCRIPT
    ]
    # Two turns, each heard whole: the yes exactly, the digits at most one word off (on
    # a busy machine Silero cuts the line a little differently, and "one" can become
    # the vocabulary's "want", or a short word slip in between two digits).
    digits, yes = finals
    said = ["one", "zero", "zero", "one", "zero", "two"]
    assert word_errors(said, digits.split()) <= 1, digits
    assert yes == "yes please"
    assert any(event.type == stt.SpeechEventType.INTERIM_TRANSCRIPT for event in events)
    await recogniser.aclose()


async def test_a_test_callers_kept_voice_says_a_line_the_same_way_every_time() -> None:
    # eSpeak NG's own voice does not: each synthesis breathes and wavers differently.
    line = "Jordan Lee, nine four one zero seven"
    engine = LocalTTS(voice=CALLER_VOICE, sample_rate=24000)
    each_time = [bytes((await engine.synthesize(line).collect()).data) for _ in range(2)]
    assert each_time[0] != each_time[1]
    kept = KeptVoice(CALLER_VOICE, sample_rate=24000)
    anew = [await kept.said_anew(line) for _ in range(2)]
    assert anew[0] == anew[1]
    assert await kept.said(line) == anew[0]
    said = await kept.synthesize(line).collect()
    assert (said.sample_rate, said.num_channels) == (24000, 1)
    assert bytes(said.data)[: len(anew[0])] == anew[0]  # in whole frames: the last one padded
    # The same length of speech as the engine's own, at the rate asked for.
    assert abs(len(anew[0]) - len(each_time[0])) < 0.05 * len(each_time[0])


def test_line_noise_is_seeded_and_at_unit_level() -> None:
    first, again = brown_noise(48000, seed=3), brown_noise(48000, seed=3)
    assert (first == again).all()
    assert abs(float((first**2).mean()) - 1.0) < 1e-6


def _left_in(folder: Path) -> list[Path]:
    return list(folder.rglob("*"))


def _files_holding(folder: Path, text: str) -> list[Path]:
    return [
        path
        for path in _left_in(folder)
        if path.is_file() and text.encode() in path.read_bytes().lower()
    ]


async def test_the_callers_names_never_sit_in_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    recogniser = LocalSTT(vad=load_vad(), vocabulary=_with_a_rare_name())
    try:
        recogniser.prewarm()
        decoder = recogniser.decoder()
        assert decoder.lookup_word("zebulon") is not None  # the name is heard...
        assert _files_holding(tmp_path, "zebulon") == []  # ...and written nowhere
        assert _left_in(tmp_path) == []
    finally:
        await recogniser.aclose()


@pytest.mark.parametrize("loads", [True, False], ids=["loads", "fails to load"])
async def test_without_files_in_memory_the_model_is_private_and_gone_once_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loads: bool
) -> None:
    # Where the system has no files in memory (not Linux): a file on disk, for as long
    # as the recogniser reads it.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(local_stt, "_FILES_IN_MEMORY", False)
    seen: list[tuple[int, int]] = []
    real = local_stt.NGramModel

    def reading(config: Config, logmath: LogMath, path: str) -> NGramModel:
        file = Path(path)
        seen.append((file.stat().st_mode & 0o777, file.parent.stat().st_mode & 0o777))
        if not loads:
            raise RuntimeError("the language model did not load")
        return real(config, logmath, path)

    monkeypatch.setattr(local_stt, "NGramModel", reading)
    recogniser = LocalSTT(vad=load_vad(), vocabulary=_with_a_rare_name())
    try:
        if loads:
            assert recogniser.decoder().lookup_word("zebulon") is not None
        else:
            with pytest.raises(RuntimeError):
                recogniser.decoder()
    finally:
        await recogniser.aclose()
    assert seen == [(0o600, 0o700)]  # the owner's alone while it was read
    assert _left_in(tmp_path) == []  # and gone after, loaded or not


def _with_a_rare_name() -> CallVocabulary:
    vocabulary = CallVocabulary()
    vocabulary.add(["my name is Zebulon Quimby"])
    return vocabulary


async def test_each_utterance_is_heard_as_if_it_were_the_first() -> None:
    # One recording, heard on a fresh decoder and again on the same decoder after it
    # has heard other sound, loud, quiet and noisy: what came before changes nothing.
    # At the model's own rate: the resampler's dither would make each hearing differ.
    caller = LocalTTS(voice=CALLER_VOICE, sample_rate=MODEL_SAMPLE_RATE)
    line = await caller.synthesize(
        "Jordan Lee, nine four one zero seven. One Market Street, Suite five."
    ).collect()
    other = await caller.synthesize("I want to cancel order one zero zero one zero two").collect()
    vocabulary = CallVocabulary()
    vocabulary.add_customers(DEMO_CUSTOMERS)
    recogniser = LocalSTT(vad=load_vad(), vocabulary=vocabulary)
    first, _ = await _heard(recogniser, line)
    decoder = recogniser.decoder()
    recogniser.release(decoder)
    again = []
    for gain, noise in ((8.0, 0.0), (0.05, 0.0), (1.0, 3000.0)):
        await _heard(recogniser, _louder(other, gain, noise))
        again.append((await _heard(recogniser, line))[0])
    # And a stream's next line, which starts from the loudness its caller's last taught.
    _, taught = await _heard(recogniser, other)
    next_line, _ = await _heard(recogniser, line, mean=taught)
    await _heard(recogniser, _louder(other, 0.05, 0.0))
    next_line_again, _ = await _heard(recogniser, line, mean=taught)
    assert recogniser.decoder() is decoder  # one decoder heard it all
    assert first
    assert again == [first] * 3
    assert next_line_again == next_line
    await recogniser.aclose()


async def _heard(
    recogniser: LocalSTT, sound: rtc.AudioFrame, *, mean: str | None = None
) -> tuple[str, str | None]:
    """`sound` heard as a stream hears it, 20 ms at a time: the text, and the loudness
    learnt by its end."""
    utterance = Utterance(recogniser, mean=mean)
    step = sound.sample_rate // 50
    samples = np.frombuffer(bytes(sound.data), dtype=np.int16)
    for at in range(0, len(samples), step):
        piece = samples[at : at + step]
        await utterance.hear(rtc.AudioFrame(piece.tobytes(), sound.sample_rate, 1, len(piece)))
    return await utterance.finish(), utterance.mean


def _louder(sound: rtc.AudioFrame, gain: float, noise_rms: float) -> rtc.AudioFrame:
    samples = np.frombuffer(bytes(sound.data), dtype=np.int16) * gain
    noisy = samples + brown_noise(len(samples), seed=5) * noise_rms
    clipped = np.clip(noisy, -32768, 32767).astype(np.int16)
    return rtc.AudioFrame(clipped.tobytes(), sound.sample_rate, 1, len(clipped))
