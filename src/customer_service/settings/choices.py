"""The settings that choose among fixed options (`MODEL_PROVIDER`, `TURN_DETECTION`,
`RECORDING_CONSENT`, `NOISE_CANCELLATION`, `IDENTITY_POLICY`), importable from the
package."""

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
    LIVEKIT = "livekit"
    """LiveKit's turn detector (`inference.TurnDetector`): its cloud model on LiveKit
    Cloud, the on-device model bundled with livekit-agents elsewhere; no download."""
    LOCAL = "local"
    """LiveKit's on-device detector whose weights ship inside its wheel; works offline."""
    MULTILINGUAL = "multilingual"
    """The deprecated turn-detector plugin's multilingual model (files fetched by
    `download-files`); it also serves Russian, which the on-device model does not."""
    ENGLISH = "english"
    """The deprecated plugin's English-only model (files fetched by `download-files`)."""
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


class IdentityPolicy(enum.StrEnum):
    """What verifies a caller (`customer_service.call.identity_policy`)."""

    NAME_ZIP_AND_CONTACT = "name-zip-and-contact"
    """The full name, the postal code, and the phone number or email address on the
    account, all three right; on a phone line the calling number, once the caller
    confirms it, may stand in for the phone number."""
    EMAIL_OR_NAME_ZIP = "email-or-name-zip"
    """τ²-bench's rule: the email address on the account alone, or the full name and
    postal code together. Weaker: one detail that others may know (an email address
    printed on a receipt, a name and a postal code printed on a parcel label) verifies
    the caller. For a benchmark, or a deployment that accepts that."""
