"""The phrase cache's audio: a voice's identity, a recorded sentence, and its file.

A voice is what makes a sentence sound as it does (`Voice.of`): the TTS's provider,
model and class, the options it was built with that change the sound (voice, language,
speed, emotion, volume, encoding, pronunciation dictionary, extra options; never its
keys or its address), and its sample rate and channels. A TTS that keeps no options
where they can be read is known by provider, model and class alone: two voices of such a
TTS would share entries, so it must be given its own folder.

Files are 16-bit PCM WAV named by digests of the voice and of the sentence, written
whole under a temporary name and renamed into place, so a reader never sees half of one
and processes writing the same entry at once each leave a whole file.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from livekit import rtc
from livekit.agents.tts import TTS

__all__ = ["FRAME_MS", "Phrase", "UnreadablePhrase", "Voice", "read_phrase", "write_phrase"]

FRAME_MS = 20
"""Length of each frame a recorded sentence is played in."""
SAMPLE_WIDTH = 2
"""Bytes per sample: the framework's audio is 16-bit PCM."""

SOUND_OPTIONS = (
    "voice",
    "language",
    "speed",
    "emotion",
    "volume",
    "encoding",
    "pronunciation_dict_id",
    "extra_kwargs",
)
"""The options of a provider's TTS (its `_opts`) that change how a sentence sounds."""


@dataclass(frozen=True, slots=True)
class Voice:
    provider: str
    model: str
    label: str
    options: tuple[tuple[str, str], ...]
    sample_rate: int
    num_channels: int

    @classmethod
    def of(cls, tts: TTS[Any]) -> Voice:
        # The plugins keep what they were built with in `_opts`; nothing public says it.
        built_with = getattr(tts, "_opts", None)
        options = tuple(
            (name, repr(getattr(built_with, name)))
            for name in SOUND_OPTIONS
            if hasattr(built_with, name)
        )
        return cls(tts.provider, tts.model, tts.label, options, tts.sample_rate, tts.num_channels)

    def digest(self) -> str:
        return hashlib.sha256(repr(self).encode()).hexdigest()[:24]


@dataclass(frozen=True, slots=True)
class Phrase:
    """One sentence's audio, recorded whole."""

    pcm: bytes
    sample_rate: int
    num_channels: int

    @classmethod
    def recorded(cls, frames: list[rtc.AudioFrame]) -> Phrase | None:
        """The frames as one phrase; None when there is no sound or the frames differ in
        format (nothing to keep)."""
        formats = {(frame.sample_rate, frame.num_channels) for frame in frames}
        if len(formats) != 1:
            return None
        sample_rate, num_channels = formats.pop()
        pcm = b"".join(frame.data.tobytes() for frame in frames)
        return cls(pcm, sample_rate, num_channels) if pcm else None

    def frames(self) -> Iterator[rtc.AudioFrame]:
        samples = self.sample_rate * FRAME_MS // 1000
        step = samples * self.num_channels * SAMPLE_WIDTH
        for start in range(0, len(self.pcm), step):
            chunk = self.pcm[start : start + step]
            yield rtc.AudioFrame(
                chunk,
                self.sample_rate,
                self.num_channels,
                len(chunk) // (self.num_channels * SAMPLE_WIDTH),
            )


class UnreadablePhrase(Exception):
    """A phrase file that is cut short, not a WAV, or not in the voice's format."""


def phrase_path(folder: Path, voice: Voice, sentence: str) -> Path:
    name = hashlib.sha256(sentence.encode()).hexdigest()[:32]
    return folder / voice.digest() / f"{name}.wav"


def read_phrase(path: Path, voice: Voice) -> Phrase | None:
    """The phrase in `path`; None when there is no such file. Raises `UnreadablePhrase`
    for a file that cannot be trusted."""
    try:
        with wave.open(str(path), "rb") as file:
            params = file.getparams()
            pcm = file.readframes(params.nframes)
    except FileNotFoundError:
        return None
    except (OSError, EOFError, wave.Error) as error:
        raise UnreadablePhrase(type(error).__name__) from error
    expected = params.nframes * params.nchannels * SAMPLE_WIDTH
    if (
        params.sampwidth != SAMPLE_WIDTH
        or (params.framerate, params.nchannels) != (voice.sample_rate, voice.num_channels)
        or not pcm
        or len(pcm) != expected
    ):
        raise UnreadablePhrase("format")
    return Phrase(pcm, params.framerate, params.nchannels)


def write_phrase(path: Path, phrase: Phrase) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as raw, wave.open(raw, "wb") as file:
            file.setnchannels(phrase.num_channels)
            file.setsampwidth(SAMPLE_WIDTH)
            file.setframerate(phrase.sample_rate)
            file.writeframes(phrase.pcm)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
