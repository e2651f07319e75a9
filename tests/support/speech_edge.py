"""Stand-ins for the speech providers at their network edge, for a voice call on real
audio offline: everything else (Silero, the session's audio path, the transcript in
step with the sound) is the real thing.

- `VoiceLikeTTS` says any text as a made-up voice (voiced syllables through vowel
  formants, with consonant bursts): sound Silero hears as speech, as long as the words
  take to say. It takes the text-to-speech plugin's construction arguments.
- `KnownTranscriptsSTT` is the Deepgram plugin's class with its connection replaced:
  each stretch of sound it hears is transcribed as the next of the transcripts it was
  given.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np
from livekit import rtc
from livekit.agents import APIConnectOptions, LanguageCode, stt, tts, utils
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, NotGivenOr
from livekit.plugins import deepgram

__all__ = ["KnownTranscriptsSTT", "VoiceLikeTTS", "voice_like"]

SAMPLE_RATE = 16000
SECONDS_PER_WORD = 0.3
_VOWELS = [
    (730, 1090, 2440),
    (270, 2290, 3010),
    (300, 870, 2240),
    (530, 1840, 2480),
    (570, 840, 2410),
    (440, 1020, 2240),
    (660, 1720, 2410),
    (490, 1350, 1690),
]
_BANDWIDTHS = (60, 90, 150)
_GAINS = (1.0, 0.6, 0.3)


def _resonance(source: np.ndarray, frequency: float, bandwidth: float) -> np.ndarray:
    """`source` through one formant: a two-pole resonator."""
    radius = np.exp(-np.pi * bandwidth / SAMPLE_RATE)
    pull = 2 * radius * np.cos(2 * np.pi * frequency / SAMPLE_RATE)
    gain = 1 - pull + radius * radius
    out = np.zeros_like(source)
    before = earlier = 0.0
    for index, sample in enumerate(source):
        now = gain * sample + pull * before - radius * radius * earlier
        out[index], earlier, before = now, before, now
    return out


def voice_like(seconds: float, *, seed: int = 0) -> bytes:
    """`seconds` of made-up speech, 16-bit mono at `SAMPLE_RATE`."""
    rng = np.random.default_rng(seed)
    total = int(seconds * SAMPLE_RATE)
    out = np.zeros(total)
    at = 0
    while at < total:
        length = min(int(rng.uniform(0.12, 0.3) * SAMPLE_RATE), total - at)
        start_pitch = 100 + 40 * rng.random()
        pitch = np.linspace(start_pitch, start_pitch + rng.normal(0, 15), length)
        pulses = (np.mod(np.cumsum(pitch) / SAMPLE_RATE, 1.0) < 0.15).astype(float)
        pulses -= pulses.mean()
        formants = _VOWELS[rng.integers(len(_VOWELS))]
        syllable = sum(
            gain * _resonance(pulses, frequency, bandwidth)
            for frequency, bandwidth, gain in zip(formants, _BANDWIDTHS, _GAINS, strict=True)
        )
        syllable /= np.max(np.abs(syllable)) + 1e-9
        burst = min(int(0.04 * SAMPLE_RATE), length)
        syllable[:burst] = 0.3 * rng.standard_normal(burst) * np.linspace(1, 0.2, burst)
        ramp = np.minimum(np.arange(length), length - np.arange(length)) / (0.02 * SAMPLE_RATE)
        out[at : at + length] = syllable * np.minimum(1, ramp) * rng.uniform(0.6, 1.0)
        at += length
    if total:
        out = 0.3 * out / (np.max(np.abs(out)) + 1e-9)
    return (out * 32767).astype(np.int16).tobytes()


class VoiceLikeTTS(tts.TTS[Any]):
    """Says every text as `voice_like` sound, `SECONDS_PER_WORD` a word."""

    def __init__(self, **plugin_arguments: Any) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=False),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
        )
        self.texts: list[str] = []
        """Every text said, in order."""

    @property
    def model(self) -> str:
        return "voice-like"

    @property
    def provider(self) -> str:
        return "tests"

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        self.texts.append(text)
        return _VoiceLikeSpeech(self, text=text, seed=len(self.texts), conn_options=conn_options)


class _VoiceLikeSpeech(tts.ChunkedStream):
    def __init__(
        self, voice: VoiceLikeTTS, *, text: str, seed: int, conn_options: APIConnectOptions
    ) -> None:
        super().__init__(tts=voice, input_text=text, conn_options=conn_options)
        self._seed = seed

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        output_emitter.initialize(
            request_id=utils.shortuuid("voice_like_"),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
            mime_type="audio/pcm",
            frame_size_ms=20,
        )
        seconds = len(self.input_text.split()) * SECONDS_PER_WORD
        output_emitter.push(voice_like(seconds, seed=self._seed))
        output_emitter.flush()


class KnownTranscriptsSTT(deepgram.STT):
    """The Deepgram plugin, its streaming connection replaced: each stretch of sound
    (ended by `quiet_s` of silence) is finally transcribed as the next of
    `transcripts`; `heard` lists the transcripts sent."""

    def __init__(self, transcripts: deque[str], *, quiet_s: float = 0.2, **plugin: Any) -> None:
        super().__init__(**plugin)
        self.transcripts = transcripts
        self.quiet_s = quiet_s
        self.heard: list[str] = []

    def stream(
        self,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    ) -> stt.RecognizeStream:
        return _KnownTranscriptsStream(self, conn_options=conn_options)


class _KnownTranscriptsStream(stt.RecognizeStream):
    def __init__(self, recognizer: KnownTranscriptsSTT, *, conn_options: APIConnectOptions):
        super().__init__(stt=recognizer, conn_options=conn_options, sample_rate=SAMPLE_RATE)
        self._recognizer = recognizer

    async def _run(self) -> None:
        sounding, quiet = False, 0.0
        async for frame in self._input_ch:
            if not isinstance(frame, rtc.AudioFrame):
                continue
            samples = np.frombuffer(bytes(frame.data), dtype=np.int16)
            loud = samples.size > 0 and float(np.abs(samples).mean()) > 200
            if loud:
                sounding, quiet = True, 0.0
                continue
            quiet += frame.duration
            if sounding and quiet >= self._recognizer.quiet_s:
                sounding = False
                self._send_final()

    def _send_final(self) -> None:
        transcripts = self._recognizer.transcripts
        text = transcripts.popleft() if transcripts else ""
        self._recognizer.heard.append(text)
        data = stt.SpeechData(language=LanguageCode("en"), text=text, confidence=1.0)
        self._event_ch.send_nowait(
            stt.SpeechEvent(type=stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives=[data])
        )
