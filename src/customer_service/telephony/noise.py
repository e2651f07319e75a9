"""Noise cancellation for the caller's audio, chosen by where the room runs and who calls.

LiveKit's filters (BVC, and BVCTelephony tuned for phone audio) work only in rooms on
LiveKit Cloud, so nothing is applied on any other server. With NOISE_CANCELLATION=auto
the framework's per-participant selector picks the telephony model for a SIP caller and
the standard model for anyone else; `bvc` and `bvc_telephony` fix one model for every
caller, and `off` turns it off. The choice is logged once per call, without the caller.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from livekit import rtc
from livekit.agents import room_io
from livekit.agents.voice.room_io.types import NoiseCancellationParams

from customer_service.pipeline.models import build_noise_cancellation, noise_filter
from customer_service.settings import NoiseCancellation, Settings

__all__ = [
    "LIVEKIT_CLOUD_HOST_SUFFIX",
    "ByParticipantKind",
    "caller_audio_input",
    "noise_cancellation_for_call",
    "on_livekit_cloud",
]

logger = logging.getLogger(__name__)

LIVEKIT_CLOUD_HOST_SUFFIX = ".livekit.cloud"
"""Rooms on LiveKit Cloud are reached at `wss://<project>.livekit.cloud`. A self-hosted
server (or a custom domain in front of one) has any other host, and there the filters
do nothing useful, so they stay off."""


def on_livekit_cloud(livekit_url: str) -> bool:
    """Whether LIVEKIT_URL points at LiveKit Cloud, judged by its host name alone."""
    url = livekit_url.strip()
    host = urlsplit(url if "://" in url else f"//{url}").hostname or ""
    return host.endswith(LIVEKIT_CLOUD_HOST_SUFFIX)


def _kind_name(participant: rtc.Participant) -> str:
    return "sip" if participant.kind == rtc.ParticipantKind.PARTICIPANT_KIND_SIP else "standard"


class ByParticipantKind:
    """The framework's noise-cancellation selector for one call: the telephony model for
    a SIP caller, the standard model for anyone else. The framework calls it each time
    it opens a caller's audio track; the first choice is logged."""

    def __init__(self, *, call_id: str) -> None:
        self._call_id = call_id
        self._logged = False

    def __call__(self, params: NoiseCancellationParams) -> rtc.NoiseCancellationOptions:
        kind = _kind_name(params.participant)
        telephony = kind == "sip"
        if not self._logged:
            self._logged = True
            _log_choice(
                self._call_id,
                NoiseCancellation.BVC_TELEPHONY if telephony else NoiseCancellation.BVC,
                reason=f"auto, {kind} caller",
            )
        return noise_filter(telephony=telephony)


def _log_choice(call_id: str, choice: NoiseCancellation, *, reason: str) -> None:
    logger.info(
        "noise cancellation",
        extra={"call_id": call_id, "noise_cancellation": choice.value, "reason": reason},
    )


def noise_cancellation_for_call(
    settings: Settings, *, call_id: str
) -> rtc.NoiseCancellationOptions | ByParticipantKind | None:
    """What `AudioInputOptions.noise_cancellation` gets for this call."""
    choice = settings.noise_cancellation
    if choice is NoiseCancellation.OFF:
        _log_choice(call_id, choice, reason="NOISE_CANCELLATION=off")
        return None
    if not on_livekit_cloud(settings.livekit_url):
        if choice is not NoiseCancellation.AUTO:
            logger.warning(
                "NOISE_CANCELLATION=%s ignored: the filters work only on LiveKit Cloud "
                "(a LIVEKIT_URL host ending in %s)",
                choice.value,
                LIVEKIT_CLOUD_HOST_SUFFIX,
                extra={"call_id": call_id},
            )
        _log_choice(call_id, NoiseCancellation.OFF, reason="not on LiveKit Cloud")
        return None
    if choice is NoiseCancellation.AUTO:
        # Logged when the framework asks, once the caller's audio arrives.
        return ByParticipantKind(call_id=call_id)
    _log_choice(call_id, choice, reason=f"NOISE_CANCELLATION={choice.value}")
    return build_noise_cancellation(settings)


def caller_audio_input(settings: Settings, *, call_id: str) -> room_io.AudioInputOptions:
    """The room's audio-input options for this call, noise cancellation included."""
    chosen = noise_cancellation_for_call(settings, call_id=call_id)
    if isinstance(chosen, ByParticipantKind):
        # The framework keeps its own gain control on for a selector unless told; with a
        # filter always chosen it is off, as for a filter given directly.
        return room_io.AudioInputOptions(noise_cancellation=chosen, auto_gain_control=False)
    return room_io.AudioInputOptions(noise_cancellation=chosen)
