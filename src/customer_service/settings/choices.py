"""The settings that choose among fixed options (`MODEL_PROVIDER`, `TURN_DETECTION`,
`RECORDING_CONSENT`, `NOISE_CANCELLATION`), importable from the package."""

from __future__ import annotations

import enum


class ModelProvider(enum.StrEnum):
    """Where STT, LLM and TTS come from."""

    AUTO = "auto"
    """LiveKit Inference when LiveKit credentials are set, else plugins with provider keys,
    else the offline model."""
    INFERENCE = "inference"
    PLUGINS = "plugins"
    OFFLINE = "offline"


class TurnDetection(enum.StrEnum):
    MULTILINGUAL = "multilingual"
    """The multilingual turn-detector model (files fetched by `download-files`)."""
    ENGLISH = "english"
    """The English-only turn-detector model (files fetched by `download-files`)."""
    LOCAL = "local"
    """LiveKit's on-device detector whose weights ship inside its wheel; works offline."""
    VAD = "vad"
    """End of turn when Silero hears silence."""
    STT = "stt"
    """End of turn from the speech-to-text provider's endpointing."""


class RecordingConsent(enum.StrEnum):
    ASK = "ask"
    """Ask for consent to record before anything else; a no turns recording off."""
    NOT_ASKED = "not_asked"
    """Do not ask (recording is off, or consent is obtained elsewhere)."""


class NoiseCancellation(enum.StrEnum):
    """LiveKit's caller-audio filter, which works only in rooms on LiveKit Cloud."""

    AUTO = "auto"
    """On LiveKit Cloud: the telephony model for a SIP caller, the standard one for anyone
    else. Off on any other server."""
    OFF = "off"
    BVC = "bvc"
    """The standard model for every caller (on LiveKit Cloud only)."""
    BVC_TELEPHONY = "bvc_telephony"
    """The telephony model for every caller (on LiveKit Cloud only)."""
