"""The voice seam's clock and ears: a call in a room, its timers and turn handling, run
`speed` times faster, and the speech models and microphone it runs on (`CallSpeech`):
the timed fakes, at their pace on that clock, unless a call is given others.

Durations named here are script seconds, seconds of the call as a caller would live it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from livekit.agents import AgentSession, TurnHandlingOptions
from livekit.agents.stt import STT
from livekit.agents.tts import TTS
from livekit.agents.vad import VAD
from livekit.agents.voice.agent_session import _DEFAULT_AEC_WARMUP_DURATION
from livekit.agents.voice.turn import (
    _ENDPOINTING_DEFAULTS,
    _INTERRUPTION_DEFAULTS,
    _PREEMPTIVE_GENERATION_DEFAULTS,
    TurnDetectionMode,
)

from customer_service.server import SessionTimers
from customer_service.settings import Settings
from customer_service.testing.caller_audio import FakeMicrophone, Microphone
from customer_service.testing.latency import LatencyModel
from customer_service.testing.speech_models import FakeSTT, FakeTTS, FakeVAD

__all__ = [
    "AGENT_SECONDS_PER_WORD",
    "DEFAULT_SPEED",
    "STT_DELAY",
    "CallSpeech",
    "scaled_timers",
    "scaled_turn_handling",
    "timed_fakes",
]

DEFAULT_SPEED = 10.0
AGENT_SECONDS_PER_WORD = 0.4
STT_DELAY = 0.2
"""Script seconds from the end of a caller's line to its final transcript."""


def scaled_turn_handling(
    speed: float,
    *,
    end_of_turn_s: float | None = None,
    turn_detection: TurnDetectionMode | None = None,
) -> TurnHandlingOptions:
    """The framework's default turn handling, which a call in a room runs with, on a
    clock `speed` times faster, with VAD interruption and VAD turn detection unless
    `turn_detection` names another; `end_of_turn_s` replaces the default endpointing
    delay."""
    endpointing = _ENDPOINTING_DEFAULTS.copy()
    min_delay = _ENDPOINTING_DEFAULTS["min_delay"] if end_of_turn_s is None else end_of_turn_s
    endpointing["min_delay"] = min_delay / speed
    endpointing["max_delay"] = _ENDPOINTING_DEFAULTS["max_delay"] / speed
    interruption = _INTERRUPTION_DEFAULTS.copy()
    interruption["mode"] = "vad"
    interruption["min_duration"] = _INTERRUPTION_DEFAULTS["min_duration"] / speed
    timeout = _INTERRUPTION_DEFAULTS["false_interruption_timeout"]
    interruption["false_interruption_timeout"] = None if timeout is None else timeout / speed
    preemptive = _PREEMPTIVE_GENERATION_DEFAULTS.copy()
    preemptive["max_speech_duration"] = (
        _PREEMPTIVE_GENERATION_DEFAULTS["max_speech_duration"] / speed
    )
    return TurnHandlingOptions(
        turn_detection=turn_detection or "vad",
        endpointing=endpointing,
        interruption=interruption,
        preemptive_generation=preemptive,
    )


def scaled_timers(settings: Settings, speed: float) -> SessionTimers:
    """The session's timers as a room has them (the framework's defaults, and
    USER_AWAY_TIMEOUT_S from `settings`), on a clock `speed` times faster."""
    defaults = inspect.signature(AgentSession).parameters
    return SessionTimers(
        aec_warmup_duration=_DEFAULT_AEC_WARMUP_DURATION / speed,
        session_close_transcript_timeout=(
            defaults["session_close_transcript_timeout"].default / speed
        ),
        user_away_timeout=settings.user_away_timeout_s / speed,
    )


@dataclass(frozen=True, slots=True)
class CallSpeech:
    """What a voice call hears and speaks with: the session's speech models, and the
    microphone the caller's lines are said into."""

    stt: STT[Any]
    tts: TTS[Any]
    vad: VAD
    microphone: Microphone
    turn_detection: TurnDetectionMode | None = None
    """What ends the caller's turn; None: silence (`vad`), as the fakes are judged."""


def timed_fakes(
    settings: Settings, speed: float, latency: LatencyModel | None = None
) -> CallSpeech:
    """The fake speech models and microphone, on a clock `speed` times faster: a word of
    the agent's takes `AGENT_SECONDS_PER_WORD`, a final transcript `STT_DELAY` (or the
    `latency` model's), the first audio of a synthesis comes at once (or as `latency`
    says), and the VAD keeps Silero's timing."""
    stt_delay = STT_DELAY if latency is None else latency.stt_final_s
    first_audio = 0.0 if latency is None else latency.tts_first_audio_s
    return CallSpeech(
        stt=FakeSTT(final_delay=stt_delay / speed, language=settings.language),
        tts=FakeTTS(
            seconds_per_word=AGENT_SECONDS_PER_WORD / speed, first_audio_delay=first_audio / speed
        ),
        vad=FakeVAD(min_speech=0.05 / speed, min_silence=0.55 / speed),
        microphone=FakeMicrophone(),
    )
