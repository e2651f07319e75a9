"""Real sound on the voice seam, offline: the caller's lines said by eSpeak NG in a voice
of their own into the microphone, the same way in every run (`KeptVoice`), with line
noise when asked; heard by Silero and the local recogniser, answered by the local voice,
and the agent's audio transcribed back.

    speech = local_call_speech(settings, noise_snr_db=15)
    async with voice_call_session(OfflineLLM(), caller, speech=speech, speed=1) as call:
        ...
        said = await transcribed(call.speech(2))

Everything runs in real time (`speed=1`): the recogniser and the voices take the time
they take.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import sys
from typing import Any, Never

import numpy as np
from livekit import rtc
from livekit.agents import tts, utils
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, APIConnectOptions

from customer_service.pipeline import build_turn_detection, espeak, load_vad
from customer_service.pipeline.espeak import ESpeakVoice
from customer_service.pipeline.local_stt import LocalSTT
from customer_service.pipeline.local_tts import LocalTTS
from customer_service.pipeline.local_vocabulary import CallVocabulary
from customer_service.settings import Settings
from customer_service.testing.caller_audio import AgentSpeech, AudioMicrophone
from customer_service.testing.voice_timing import CallSpeech

__all__ = [
    "CALLER_SAMPLE_RATE",
    "CALLER_VOICE",
    "FRAME_SECONDS",
    "KeptVoice",
    "NoisyMicrophone",
    "brown_noise",
    "local_call_speech",
    "transcribed",
    "word_errors",
]

CALLER_VOICE = ESpeakVoice("en-us+f2", words_per_minute=140, pitch=55)
"""The caller: another voice than the agent's (eSpeak's `en-us`), slower and higher."""
FRAME_SECONDS = 0.02
_DRIFT_SAMPLES = 2400
_QUIET_LEVEL = 200
_PAUSE_S = 0.2
CALLER_SAMPLE_RATE = 48000
"""The caller's audio reaches the session at a room's rate, as from LiveKit."""
CALLER_SEED = 46
_kept_lines: dict[tuple[ESpeakVoice, int, int, str], bytes] = {}


class KeptVoice(tts.TTS[Never]):
    """A test caller's voice that says each line the same way in every run: eSpeak NG's
    voices vary from one synthesis to the next (their breath is random, their pitch
    flutter goes on from the last text said), and what a recogniser hears varies with
    them. So each line is said once, by a new engine seeded with `seed` in a process of
    its own, brought to `sample_rate` by a band-limited resampling with no dither, and
    kept for the rest of the process."""

    def __init__(self, voice: ESpeakVoice, *, sample_rate: int, seed: int = CALLER_SEED) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=False),
            sample_rate=sample_rate,
            num_channels=1,
        )
        self.voice = voice
        self._seed = seed

    @property
    def model(self) -> str:
        return "espeak-ng, kept"

    @property
    def provider(self) -> str:
        return "local"

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        return _KeptLine(self, text=text, conn_options=conn_options)

    async def said(self, text: str) -> bytes:
        """`text` as this voice says it: 16-bit mono samples at `sample_rate`, said anew
        the first time in this process and kept."""
        key = (self.voice, self._seed, self.sample_rate, text)
        if key not in _kept_lines:
            _kept_lines[key] = await self.said_anew(text)
        return _kept_lines[key]

    async def said_anew(self, text: str) -> bytes:
        """`text` said by a new engine in a process of its own, at `sample_rate`."""
        voice = self.voice
        engine = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",  # the file alone: its folder's modules never stand in for the library's
            espeak.__file__,
            voice.name,
            str(voice.words_per_minute),
            str(voice.pitch),
            str(self._seed),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        said, failed = await engine.communicate(text.encode())
        if engine.returncode != 0 or not said:
            raise espeak.ESpeakError(f"eSpeak NG did not say a caller's line: {failed.decode()}")
        return resampled(said, espeak.espeak().sample_rate, self.sample_rate)


class _KeptLine(tts.ChunkedStream):
    def __init__(self, voice: KeptVoice, *, text: str, conn_options: APIConnectOptions) -> None:
        self._voice = voice
        super().__init__(tts=voice, input_text=text, conn_options=conn_options)

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        output_emitter.initialize(
            request_id=utils.shortuuid("kept_line_"),
            sample_rate=self._voice.sample_rate,
            num_channels=1,
            mime_type="audio/pcm",
            frame_size_ms=20,
        )
        output_emitter.push(await self._voice.said(self.input_text))
        output_emitter.flush()


def resampled(samples: bytes, rate: int, to_rate: int) -> bytes:
    """16-bit mono `samples` at `rate` brought to `to_rate` through the spectrum: exact
    for a band-limited sound, and the same every time (no dither)."""
    if rate == to_rate:
        return samples
    sound = np.frombuffer(samples, dtype=np.int16).astype(np.float64)
    count = round(len(sound) * to_rate / rate)
    spectrum = np.fft.rfft(sound)
    wave = np.fft.irfft(spectrum, count) * (count / len(sound))
    return np.clip(np.round(wave), -32768, 32767).astype(np.int16).tobytes()


def brown_noise(samples: int, *, seed: int) -> np.ndarray:
    """Seeded brown noise (a random walk, its slow drift taken out), unit RMS: the rumble
    of a bad line, heavier in the low frequencies than speech."""
    walk = np.cumsum(np.random.default_rng(seed).standard_normal(samples))
    drift = np.convolve(walk, np.ones(_DRIFT_SAMPLES) / _DRIFT_SAMPLES, mode="same")
    noise = walk - drift
    return noise / (np.sqrt(np.mean(noise**2)) or 1.0)


class NoisyMicrophone(AudioMicrophone):
    """A caller's microphone on a noisy line: brown noise under everything it sends, the
    line's speech `snr_db` decibels above it (measured on the caller's voice)."""

    SPEECH_RMS = 3000.0
    """Typical RMS of eSpeak's 16-bit speech, which the noise level is set against."""

    def __init__(self, voice: tts.TTS[Any], *, snr_db: float, seed: int = 7) -> None:
        super().__init__(voice, frame_seconds=FRAME_SECONDS)
        level = self.SPEECH_RMS / math.pow(10, snr_db / 20)
        self._noise = (brown_noise(voice.sample_rate * 30, seed=seed) * level).astype(np.int32)
        self._at = 0

    def silent_frame(self) -> rtc.AudioFrame:
        return self._noisy(super().silent_frame())

    def _frame(self, at: float) -> rtc.AudioFrame | None:
        frame = super()._frame(at)
        return None if frame is None else self._noisy(frame)

    def _noisy(self, frame: rtc.AudioFrame) -> rtc.AudioFrame:
        count = frame.samples_per_channel
        indices = (np.arange(count) + self._at) % len(self._noise)
        self._at += count
        samples = np.frombuffer(bytes(frame.data), dtype=np.int16).astype(np.int32)
        mixed = np.clip(samples + self._noise[indices], -32768, 32767).astype(np.int16)
        return rtc.AudioFrame(mixed.tobytes(), frame.sample_rate, 1, count)


def local_call_speech(settings: Settings, *, noise_snr_db: float | None = None) -> CallSpeech:
    """Silero, the local recogniser, the local voice for the agent and the turn detector,
    as the settings make them, and a caller speaking with `CALLER_VOICE` at a room's rate; with
    `noise_snr_db`, on a line that much noisier than their voice."""
    vad = load_vad()
    caller = KeptVoice(CALLER_VOICE, sample_rate=CALLER_SAMPLE_RATE)
    microphone = (
        AudioMicrophone(caller, frame_seconds=FRAME_SECONDS)
        if noise_snr_db is None
        else NoisyMicrophone(caller, snr_db=noise_snr_db)
    )
    agent = LocalTTS(
        voice=ESpeakVoice(settings.local_tts_voice, settings.local_tts_words_per_minute)
    )
    return CallSpeech(
        stt=LocalSTT(vad=vad, language=settings.language),
        tts=agent,
        vad=vad,
        microphone=microphone,
        turn_detection=build_turn_detection(settings.turn_detection, vad=vad),
    )


async def transcribed(speech: AgentSpeech, vocabulary: CallVocabulary) -> str:
    """What the agent's `speech` says, from its audio alone, heard by the local
    recogniser listening for `vocabulary`: a sentence at a time, cut where the voice
    pauses (a long speech heard in one piece loses words)."""
    if not speech.audio:
        return ""
    ears = LocalSTT(vad=load_vad(), vocabulary=vocabulary)
    try:
        heard = [
            event.alternatives[0].text
            for piece in _between_pauses(rtc.combine_audio_frames(speech.audio))
            if (event := await ears.recognize(piece)).alternatives
        ]
    finally:
        await ears.aclose()
    return " ".join(text for text in heard if text)


def _between_pauses(sound: rtc.AudioFrame) -> list[rtc.AudioFrame]:
    """`sound` cut in the middle of each pause of at least `_PAUSE_S` (clean speech: a
    pause is near silence)."""
    samples = np.frombuffer(bytes(sound.data), dtype=np.int16)
    quiet = np.abs(samples) < _QUIET_LEVEL
    least = round(sound.sample_rate * _PAUSE_S)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], quiet.astype(np.int8), [0]))))
    starts, ends = edges[::2], edges[1::2]
    long = (ends - starts) >= least
    cuts = [0, *((starts[long] + ends[long]) // 2).tolist(), len(samples)]
    return [
        rtc.AudioFrame(samples[start:end].tobytes(), sound.sample_rate, 1, end - start)
        for start, end in itertools.pairwise(cuts)
        if end - start > least
    ]


def word_errors(reference: list[str], hypothesis: list[str]) -> int:
    """Substitutions, deletions and insertions turning `hypothesis` into `reference`."""
    previous = list(range(len(hypothesis) + 1))
    for row, word in enumerate(reference, start=1):
        current = [row]
        for column, heard in enumerate(hypothesis, start=1):
            current.append(
                min(
                    previous[column] + 1,
                    current[column - 1] + 1,
                    previous[column - 1] + (word != heard),
                )
            )
        previous = current
    return previous[-1]
