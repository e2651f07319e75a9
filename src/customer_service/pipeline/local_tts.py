"""Text-to-speech on this machine: eSpeak NG (`pipeline.espeak`), a sentence at a time,
at the sample rate the pipeline asks for.

It is a non-streaming `tts.TTS`: the session wraps it in the framework's
`tts.StreamAdapter`, which hands it the reply a sentence at a time as the model writes
it; a longer text given at once (`session.say`) is said sentence by sentence too, so its
first sentence plays while the next is synthesised. eSpeak speaks at 22,050 Hz; its
samples are resampled with the framework's resampler (a filtered, interpolating one),
never by dropping or repeating samples.
"""

from __future__ import annotations

import asyncio
from typing import Never

from livekit import rtc
from livekit.agents import tokenize, tts, utils
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, APIConnectOptions

from customer_service.pipeline.espeak import ESpeakVoice, espeak

__all__ = ["DEFAULT_SAMPLE_RATE", "LOCAL_TTS_MODEL", "LocalTTS"]

DEFAULT_SAMPLE_RATE = 24000
LOCAL_TTS_MODEL = "espeak-ng"
_FRAME_MS = 20


class LocalTTS(tts.TTS[Never]):
    """eSpeak NG saying each text in `voice`, at `sample_rate` Hz, one channel."""

    def __init__(
        self, *, voice: ESpeakVoice | None = None, sample_rate: int = DEFAULT_SAMPLE_RATE
    ) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=False),
            sample_rate=sample_rate,
            num_channels=1,
        )
        self.voice = voice or ESpeakVoice()
        self._sentences = tokenize.basic.SentenceTokenizer(min_sentence_len=1)

    @property
    def model(self) -> str:
        return LOCAL_TTS_MODEL

    @property
    def provider(self) -> str:
        return "local"

    def prewarm(self) -> None:
        espeak()  # the library and its data, loaded once per process

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        return _LocalSpeech(self, text=text, conn_options=conn_options)

    def sentences(self, text: str) -> list[str]:
        """`text` in the pieces it is said in: its sentences, each one synthesis."""
        return [piece for piece in self._sentences.tokenize(text) if piece.strip()] or [text]


class _LocalSpeech(tts.ChunkedStream):
    def __init__(self, voice: LocalTTS, *, text: str, conn_options: APIConnectOptions) -> None:
        self._voice = voice
        super().__init__(tts=voice, input_text=text, conn_options=conn_options)

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        engine = espeak()
        target = self._voice.sample_rate
        output_emitter.initialize(
            request_id=utils.shortuuid("local_tts_"),
            sample_rate=target,
            num_channels=1,
            mime_type="audio/pcm",
            frame_size_ms=_FRAME_MS,
        )
        resampler = (
            None
            if engine.sample_rate == target
            else rtc.AudioResampler(
                engine.sample_rate, target, quality=rtc.AudioResamplerQuality.HIGH
            )
        )
        for sentence in self._voice.sentences(self.input_text):
            samples = await asyncio.to_thread(engine.synthesize, sentence, self._voice.voice)
            if resampler is None:
                output_emitter.push(samples)
                continue
            frame = rtc.AudioFrame(samples, engine.sample_rate, 1, len(samples) // 2)
            for piece in resampler.push(frame):
                output_emitter.push(bytes(piece.data))
        if resampler is not None:
            for piece in resampler.flush():
                output_emitter.push(bytes(piece.data))
        output_emitter.flush()
