"""Speech-to-text on this machine: pocketsphinx, its US-English model from its wheel,
listening for what the call expects (`local_vocabulary.CallVocabulary`).

The stream finds speech with the session's voice activity detection (Silero), as the
framework's `stt.StreamAdapter` does, and decodes it as it comes: interim transcripts
while the caller speaks, the final one when Silero hears them stop. The caller's audio
arrives at the room's rate and is resampled to the model's 16 kHz with the framework's
resampler, which filters and interpolates (dropping samples instead turns eSpeak's
"one zero zero" into "one the all"). Decoding runs in a worker thread, a window at a
time, so the event loop never waits on it.

The call's model holds its customers' names and streets, so it is never written to
disk: the dictionary is given to the recogniser word by word, and the language model,
which the recogniser reads only from a path, is a file in memory (`_readable`).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Never

from livekit import rtc
from livekit.agents import LanguageCode, stt, utils
from livekit.agents.types import (
    DEFAULT_API_CONNECT_OPTIONS,
    NOT_GIVEN,
    APIConnectOptions,
    NotGivenOr,
)
from livekit.agents.vad import VAD, VADEventType
from pocketsphinx import Decoder, NGramModel

from customer_service.pipeline.local_vocabulary import CallVocabulary

__all__ = ["LOCAL_STT_MODEL", "MODEL_SAMPLE_RATE", "LocalSTT", "Utterance"]

LOCAL_STT_MODEL = "pocketsphinx"
MODEL_SAMPLE_RATE = 16000
_PADDING_S = 0.3
INTERIM_EVERY_S = 0.4
"""Seconds of speech between interim transcripts."""
_SEARCH = "call"
_FILES_IN_MEMORY = hasattr(os, "memfd_create") and Path("/proc/self/fd").is_dir()
"""Linux: a file can live in memory alone, named in no folder, and be opened by path."""


@dataclass(frozen=True, slots=True)
class _CallModel:
    """A vocabulary as the recogniser takes it: its language model in ARPA text, and
    how each of its words sounds (`CallVocabulary.pronunciations`)."""

    language_model: bytes
    pronunciations: tuple[tuple[str, str], ...]


@contextmanager
def _readable(data: bytes) -> Iterator[str]:
    """A path the recogniser can read `data` from, for the block's length only. On Linux
    a file in memory, in no folder and gone when closed; elsewhere a file only its owner
    may read, in a folder only its owner may enter (`tempfile` makes it so), removed as
    the block ends, by an error too."""
    if _FILES_IN_MEMORY:
        descriptor = os.memfd_create("local-stt", os.MFD_CLOEXEC)
        try:
            with open(descriptor, "wb", closefd=False) as memory:
                memory.write(data)
            yield f"/proc/self/fd/{descriptor}"
        finally:
            os.close(descriptor)
        return
    with tempfile.TemporaryDirectory(prefix="local-stt-") as folder:
        path = Path(folder) / "call.arpa"
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
            out.write(data)
        yield str(path)


class LocalSTT(stt.STT[Never]):
    """pocketsphinx hearing speech that `vad` finds, with `vocabulary`'s language model."""

    def __init__(
        self, *, vad: VAD, vocabulary: CallVocabulary | None = None, language: str = "en"
    ) -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=True, interim_results=True))
        self._vad = vad
        self._language = LanguageCode(language)
        self._model = _CallModel(b"", ())
        self._free: list[Decoder] = []
        self.vocabulary = vocabulary or CallVocabulary()
        self.expect(self.vocabulary)

    @property
    def model(self) -> str:
        return LOCAL_STT_MODEL

    @property
    def provider(self) -> str:
        return "local"

    def expect(self, vocabulary: CallVocabulary) -> None:
        """Listens for `vocabulary` from the next utterance on."""
        model = _CallModel(vocabulary.arpa().encode("utf-8"), tuple(vocabulary.pronunciations()))
        self.vocabulary, self._model = vocabulary, model
        self._free.clear()  # decoders built on the previous model

    def decoder(self) -> Decoder:
        """A decoder on the current language model: one set free, or a new one."""
        if self._free:
            return self._free.pop()
        model = self._model
        decoder = Decoder(samprate=MODEL_SAMPLE_RATE, lm=None, dict=None, loglevel="FATAL")
        for word, phones in model.pronunciations:
            decoder.add_word(word, phones, update=False)  # the search is built after them
        with _readable(model.language_model) as path:
            language_model = NGramModel(decoder.config, decoder.logmath, path)
        decoder.add_lm(_SEARCH, language_model)
        decoder.activate_search(_SEARCH)
        return decoder

    def release(self, decoder: Decoder) -> None:
        self._free.append(decoder)

    def prewarm(self) -> None:
        self.release(self.decoder())

    async def _recognize_impl(
        self,
        buffer: utils.AudioBuffer,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    ) -> stt.SpeechEvent:
        # A whole recording at once: decoded in one pass, its loudness normalised over
        # all of it (a stream learns it as it goes, and may miss the first words).
        utterance = Utterance(self)
        frames = [buffer] if isinstance(buffer, rtc.AudioFrame) else list(buffer)
        text = await utterance.decode_whole(rtc.combine_audio_frames(frames))
        return stt.SpeechEvent(
            type=stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives=[self._said(text)]
        )

    def stream(
        self,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    ) -> stt.RecognizeStream:
        return _LocalStream(self, conn_options=conn_options)

    def _said(self, text: str) -> stt.SpeechData:
        return stt.SpeechData(language=self._language, text=text, confidence=1.0)

    async def aclose(self) -> None:
        self._free.clear()
        await super().aclose()


class Utterance:
    """One stretch of speech being decoded: its audio resampled to 16 kHz, fed to the
    decoder a piece at a time in a worker thread.

    It starts from the decoder's first state, whatever the decoder heard before: its
    features are set anew (`reinit_feat`: the loudness normalisation, or cepstral mean,
    the noise estimate and the way of normalising), then given `mean`, the loudness a
    stream learnt from the caller's lines before this one. So a line is heard the same
    on a fresh decoder and on one that heard other sound, and a call adapts to its own
    caller's line only (`mean` after `finish`)."""

    def __init__(self, recogniser: LocalSTT, *, mean: str | None = None) -> None:
        self._recogniser = recogniser
        self._decoder = recogniser.decoder()
        self._decoder.reinit_feat()
        if mean is not None:
            self._decoder.set_cmn(mean)
        self._decoder.start_utt()
        self.mean: str | None = None
        """The loudness learnt by the end of this line, for the caller's next."""
        self._resampler: rtc.AudioResampler | None = None
        self.heard_s = 0.0

    async def hear(self, frame: rtc.AudioFrame) -> None:
        if frame.samples_per_channel == 0:
            return
        self.heard_s += frame.duration
        for piece in self._resampled(frame):
            await asyncio.to_thread(self.decode, bytes(piece.data))

    def _resampled(self, frame: rtc.AudioFrame) -> list[rtc.AudioFrame]:
        if frame.sample_rate == MODEL_SAMPLE_RATE:
            return [frame]
        if self._resampler is None:
            self._resampler = rtc.AudioResampler(
                frame.sample_rate, MODEL_SAMPLE_RATE, quality=rtc.AudioResamplerQuality.HIGH
            )
        return self._resampler.push(frame)

    async def decode_whole(self, frame: rtc.AudioFrame) -> str:
        pieces = [*self._resampled(frame), *(self._resampler.flush() if self._resampler else [])]
        # Quiet around it, as a stream has: the model needs silence to hear where the
        # first word begins.
        quiet = b"\0\0" * round(MODEL_SAMPLE_RATE * _PADDING_S)
        samples = quiet + b"".join(bytes(piece.data) for piece in pieces) + quiet

        def whole() -> None:
            self._decoder.process_raw(samples, no_search=False, full_utt=True)
            self._decoder.end_utt()

        await asyncio.to_thread(whole)
        text = self.interim()
        self._recogniser.release(self._decoder)
        return text

    def decode(self, samples: bytes) -> None:
        self._decoder.process_raw(samples, no_search=False, full_utt=False)

    def interim(self) -> str:
        hypothesis = self._decoder.hyp()
        return "" if hypothesis is None else hypothesis.hypstr

    async def finish(self) -> str:
        if self._resampler is not None:
            for piece in self._resampler.flush():
                await asyncio.to_thread(self.decode, bytes(piece.data))
        await asyncio.to_thread(self._decoder.end_utt)
        text = self.interim()
        self.mean = self._decoder.get_cmn()
        self._recogniser.release(self._decoder)
        return text


class _LocalStream(stt.RecognizeStream):
    def __init__(self, recogniser: LocalSTT, *, conn_options: APIConnectOptions) -> None:
        super().__init__(stt=recogniser, conn_options=conn_options)
        self._recogniser = recogniser

    async def _run(self) -> None:
        vad_stream = self._recogniser._vad.stream()

        async def forward() -> None:
            async for item in self._input_ch:
                if isinstance(item, rtc.AudioFrame):
                    vad_stream.push_frame(item)
                else:
                    vad_stream.flush()
            vad_stream.end_input()

        async def recognise() -> None:
            utterance: Utterance | None = None
            interim_at = INTERIM_EVERY_S
            sent = ""
            mean: str | None = None  # this caller's, learnt line after line
            async for event in vad_stream:
                if event.type == VADEventType.START_OF_SPEECH:
                    utterance = Utterance(self._recogniser, mean=mean)
                    interim_at, sent = INTERIM_EVERY_S, ""
                    self._send(stt.SpeechEventType.START_OF_SPEECH)
                    for frame in event.frames:
                        await utterance.hear(frame)
                elif event.type == VADEventType.INFERENCE_DONE and utterance and event.speaking:
                    for frame in event.frames:
                        await utterance.hear(frame)
                    if utterance.heard_s >= interim_at:
                        interim_at = utterance.heard_s + INTERIM_EVERY_S
                        text = utterance.interim()
                        if text and text != sent:
                            sent = text
                            self._send(stt.SpeechEventType.INTERIM_TRANSCRIPT, text)
                elif event.type == VADEventType.END_OF_SPEECH and utterance is not None:
                    ended_at = time.time() - event.silence_duration
                    self._send(stt.SpeechEventType.END_OF_SPEECH, ended_at=ended_at)
                    text = await utterance.finish()
                    mean, utterance = utterance.mean, None
                    if text:
                        self._send(stt.SpeechEventType.FINAL_TRANSCRIPT, text, ended_at=ended_at)

        tasks = [
            asyncio.create_task(forward(), name="local_stt_forward"),
            asyncio.create_task(recognise(), name="local_stt_recognise"),
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            await utils.aio.cancel_and_wait(*tasks)
            await vad_stream.aclose()

    def _send(
        self, kind: stt.SpeechEventType, text: str = "", *, ended_at: float | None = None
    ) -> None:
        alternatives = [] if not text else [self._recogniser._said(text)]
        self._event_ch.send_nowait(
            stt.SpeechEvent(type=kind, alternatives=alternatives, speech_end_time=ended_at)
        )
