"""Speech models that listen to `FakeMicrophone` frames as real ones listen to sound.

- `FakeVAD` hears speech in any frame that is not silent, with Silero's timing rules,
  and reports how late it heard each frame (its `inference_duration`, by which the
  framework dates the caller's speech back): a session that falls behind on a busy
  machine still dates the caller's words where the microphone sent them.
- `FakeSTT` transcribes only the frames that reach it marked with the caller's words:
  frames the framework replaces with silence (while the agent speaks uninterruptibly,
  or during its echo warm-up) are not transcribed, as on a real call.
- `FakeTTS` turns text into near silence as long as the words take to say, each
  sample of the n-th text synthesised marked n, so the earpiece knows which text a
  speech's audio came from (`earpiece.AgentSpeech.syntheses`).

Durations here are real seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Never

from livekit import rtc
from livekit.agents import APIConnectOptions, LanguageCode, stt, tts, utils, vad
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, NotGivenOr
from livekit.agents.utils.audio import AudioBuffer

from customer_service.testing.caller_audio import (
    FRAME_AT_KEY,
    SAMPLE_RATE,
    SPEECH_KEY,
    CallerSpeech,
    is_voiced,
)

__all__ = ["FakeSTT", "FakeTTS", "FakeVAD"]


class FakeVAD(vad.VAD):
    """Voice activity from frame loudness, with Silero's rules: speech starts after
    `min_speech` seconds of sound and ends after `min_silence` seconds of quiet."""

    def __init__(self, *, min_speech: float = 0.05, min_silence: float = 0.55) -> None:
        super().__init__(capabilities=vad.VADCapabilities(update_interval=0.01))
        self.min_speech = min_speech
        self.min_silence = min_silence

    def stream(self) -> vad.VADStream:
        return _FakeVADStream(self)


class _FakeVADStream(vad.VADStream):
    def __init__(self, detector: FakeVAD) -> None:
        self._detector = detector
        self._speaking = False
        self._speech = 0.0  # reported: speech so far while speaking
        self._silence = 0.0  # reported: silence so far while not speaking
        self._sound_run = 0.0  # consecutive voiced audio
        self._quiet_run = 0.0  # consecutive silent audio
        self._elapsed = 0.0
        self._samples = 0
        self._late = 0.0  # how long after its audio ended the frame heard was read
        super().__init__(detector)

    async def _main_task(self) -> None:
        async for frame in self._input_ch:
            if isinstance(frame, rtc.AudioFrame):
                self._listen(frame)
            else:  # a flush: a hard boundary, nothing carries over
                self._speaking = False
                self._speech = self._silence = self._sound_run = self._quiet_run = 0.0

    def _listen(self, frame: rtc.AudioFrame) -> None:
        seconds = frame.duration
        sent_at = frame.userdata.get(FRAME_AT_KEY)
        self._late = (
            0.0
            if not isinstance(sent_at, float)
            else max(0.0, asyncio.get_running_loop().time() - sent_at - seconds)
        )
        self._elapsed += seconds
        self._samples += frame.samples_per_channel
        if self._speaking:
            self._speech += seconds
        else:
            self._silence += seconds
        voiced = is_voiced(frame)
        self._send(vad.VADEventType.INFERENCE_DONE, probability=1.0 if voiced else 0.0)
        if voiced:
            self._sound_run, self._quiet_run = self._sound_run + seconds, 0.0
            if not self._speaking and self._sound_run >= self._detector.min_speech:
                self._speaking, self._speech, self._silence = True, self._sound_run, 0.0
                self._send(vad.VADEventType.START_OF_SPEECH)
        else:
            self._sound_run, self._quiet_run = 0.0, self._quiet_run + seconds
            if self._speaking and self._quiet_run >= self._detector.min_silence:
                self._speaking, self._silence = False, self._quiet_run
                self._speech = max(0.0, self._speech - self._quiet_run)
                self._send(vad.VADEventType.END_OF_SPEECH)
                self._speech = 0.0

    def _send(self, kind: vad.VADEventType, *, probability: float = 0.0) -> None:
        self._event_ch.send_nowait(
            vad.VADEvent(
                type=kind,
                samples_index=self._samples,
                timestamp=self._elapsed,
                speech_duration=self._speech,
                silence_duration=self._silence,
                probability=probability,
                speaking=self._speaking,
                raw_accumulated_speech=self._sound_run,
                raw_accumulated_silence=self._quiet_run,
                inference_duration=self._late,
            )
        )


class FakeSTT(stt.STT[Never]):
    """Streaming speech-to-text that reads the words marked on the frames it receives.

    A line's final transcript comes `final_delay` seconds of audio after its frames
    stop, with one interim transcript halfway through it. Quiet with no line to finish
    brings an empty final transcript now and then, as providers send: the framework
    waits for one when the call ends.
    A line counts as heard when any of its frames arrives: one the framework turned into
    silence throughout is never transcribed.
    """

    def __init__(self, *, final_delay: float = 0.2, language: str = "en") -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=True, interim_results=True))
        self.final_delay = final_delay
        self.quiet_final_after = 5 * final_delay
        """Quiet after which an empty final transcript is sent."""
        self.language = LanguageCode(language)

    @property
    def model(self) -> str:
        return "fake-stt"

    @property
    def provider(self) -> str:
        return "customer_service.testing"

    async def _recognize_impl(
        self,
        buffer: AudioBuffer,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions,
    ) -> stt.SpeechEvent:
        # A whole recording at once (the framework's non-streaming path): the lines whose
        # frames it holds, in order, as one final transcript.
        frames = buffer if isinstance(buffer, list) else [buffer]
        lines: list[CallerSpeech] = []
        for frame in frames:
            speech = frame.userdata.get(SPEECH_KEY)
            if isinstance(speech, CallerSpeech) and speech not in lines:
                lines.append(speech)
        text = " ".join(line.text for line in lines)
        data = stt.SpeechData(language=self.language, text=text, confidence=1.0)
        return stt.SpeechEvent(type=stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives=[data])

    def stream(
        self,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    ) -> stt.RecognizeStream:
        return _FakeSTTStream(self, conn_options=conn_options)


class _FakeSTTStream(stt.RecognizeStream):
    def __init__(self, recognizer: FakeSTT, *, conn_options: APIConnectOptions) -> None:
        self._recognizer = recognizer
        self._done: set[CallerSpeech] = set()
        self._hearing: CallerSpeech | None = None  # the line whose frames are arriving
        self._heard = 0.0  # seconds of it received
        self._due: CallerSpeech | None = None  # a line heard out, its transcript not sent
        self._quiet = 0.0  # seconds of audio since a line or a transcript
        super().__init__(stt=recognizer, conn_options=conn_options)

    async def _run(self) -> None:
        async for frame in self._input_ch:
            if isinstance(frame, rtc.AudioFrame):
                self._listen(frame)
            else:  # a flush: finish what was heard
                self._line_ended()
                self._finish_line()
        self._line_ended()
        self._finish_line()

    def _listen(self, frame: rtc.AudioFrame) -> None:
        speech = frame.userdata.get(SPEECH_KEY)
        if isinstance(speech, CallerSpeech) and speech not in self._done:
            if speech is not self._hearing:
                self._line_ended()
                self._hearing, self._heard = speech, 0.0
            before, self._heard = self._heard, self._heard + frame.duration
            if before < speech.seconds / 2 <= self._heard:
                words = speech.text.split()
                self._send(" ".join(words[: max(1, len(words) // 2)]), final=False)
            self._quiet = 0.0
            return
        self._line_ended()
        self._quiet += frame.duration
        if self._due is not None and self._quiet >= self._recognizer.final_delay:
            self._finish_line()
        elif self._quiet >= self._recognizer.quiet_final_after:
            self._send("", final=True)
            self._quiet = 0.0

    def _line_ended(self) -> None:
        if self._hearing is not None:
            self._finish_line()  # a line still due is final before the next one
            self._done.add(self._hearing)
            self._due, self._hearing, self._quiet = self._hearing, None, 0.0

    def _finish_line(self) -> None:
        if self._due is not None:
            self._send(self._due.text, final=True)
            self._due, self._quiet = None, 0.0

    def _send(self, text: str, *, final: bool) -> None:
        kind = (
            stt.SpeechEventType.FINAL_TRANSCRIPT
            if final
            else stt.SpeechEventType.INTERIM_TRANSCRIPT
        )
        data = stt.SpeechData(language=self._recognizer.language, text=text, confidence=1.0)
        self._event_ch.send_nowait(stt.SpeechEvent(type=kind, alternatives=[data]))


class FakeTTS(tts.TTS[Never]):
    """Text-to-speech that says every text as near silence, `seconds_per_word` per word,
    its first audio `first_audio_delay` seconds after it was asked for; every sample of
    the n-th text is n, the mark the earpiece reads."""

    def __init__(self, *, seconds_per_word: float = 0.4, first_audio_delay: float = 0.0) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=False),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
        )
        self.seconds_per_word = seconds_per_word
        self.first_audio_delay = first_audio_delay
        self.texts: list[str] = []
        """Every text synthesized, in order."""
        self.started: list[float] = []
        """When each synthesis was asked for (loop time), in the order of `texts`."""
        self.hold: Callable[[str], Awaitable[None]] | None = None
        """Awaited with each text before it is synthesized: a test makes a speech slow to
        start by construction, not by the clock."""
        self.hold_halfway: Callable[[str], Awaitable[None]] | None = None
        """Awaited with each text once the first half of its audio is out: a test keeps
        a speech playing until something has happened on the line, by construction."""

    @property
    def model(self) -> str:
        return "fake-tts"

    @property
    def provider(self) -> str:
        return "customer_service.testing"

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        self.texts.append(text)
        self.started.append(asyncio.get_running_loop().time())
        seconds = len(text.split()) * self.seconds_per_word
        mark = len(self.texts).to_bytes(2, "little", signed=True)
        return _SilentSpeech(self, text=text, seconds=seconds, mark=mark, conn_options=conn_options)


class _SilentSpeech(tts.ChunkedStream):
    def __init__(
        self,
        voice: FakeTTS,
        *,
        text: str,
        seconds: float,
        mark: bytes,
        conn_options: APIConnectOptions,
    ) -> None:
        self._samples = round(seconds * voice.sample_rate)
        self._mark = mark
        self._voice = voice
        super().__init__(tts=voice, input_text=text, conn_options=conn_options)

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        if self._voice.hold is not None:
            await self._voice.hold(self.input_text)
        if self._voice.first_audio_delay:
            await asyncio.sleep(self._voice.first_audio_delay)
        output_emitter.initialize(
            request_id=utils.shortuuid("fake_tts_"),
            sample_rate=self._tts.sample_rate,
            num_channels=1,
            mime_type="audio/pcm",
            frame_size_ms=20,
        )
        if self._voice.hold_halfway is None:
            output_emitter.push(self._mark * self._samples)
        else:
            first_half = self._samples // 2
            output_emitter.push(self._mark * first_half)
            await self._voice.hold_halfway(self.input_text)
            output_emitter.push(self._mark * (self._samples - first_half))
        output_emitter.flush()
