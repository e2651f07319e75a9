"""Builds a session's speech-to-text, LLM, text-to-speech and turn detection from settings.

Three providers, chosen by `Settings.resolved_model_provider`:

- LiveKit Inference: the model strings (`deepgram/nova-3`, ...) go through LiveKit's
  gateway with the LiveKit API key and secret.
- Plugins: each provider's own plugin with its own API key.
- Offline: the deterministic stand-in model, text only, no keys at all.

The language model is the one place with a fallback. When more than one LLM is configured
(LiveKit Inference with LiveKit credentials and URL, the OpenAI plugin with OPENAI_API_KEY,
and any LLM_FALLBACK_MODELS through Inference) they sit behind the framework's
`FallbackAdapter` in priority order. Whatever the session gets is wrapped by
`speak_failures`, so a failure nothing could recover from ends the turn with an apology
rather than silence.

Every configuration mistake found here is raised as `PipelineError` with a message that
says what to change, before the framework fails somewhere deeper.

The parts live in their own modules: `providers` (each provider's models, model strings,
`PipelineError`), `fallback` (the fallback chain) and `turn_detection` (the turn
detector and its model files); `customer_service.pipeline` exports their public names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from livekit import rtc
from livekit.agents import PreemptiveGenerationOptions, TurnHandlingOptions
from livekit.agents.llm import LLM
from livekit.agents.stt import STT
from livekit.agents.tts import TTS
from livekit.agents.vad import VAD
from livekit.agents.voice.turn import TurnDetectionMode

# Plugins register themselves on import, which must happen on the main thread: this module
# and the ones it imports (`providers`, `turn_detection`) import them at module level,
# which does that whenever this module is imported by the entry.
from livekit.plugins import silero

from customer_service.pipeline.fallback import LLMRoute, llm_fallbacks, with_fallbacks
from customer_service.pipeline.local_speech import (
    LOCAL_STT,
    LOCAL_TTS,
    is_local,
    local_stt,
    local_tts,
)
from customer_service.pipeline.providers import inference_models, plugin_models
from customer_service.pipeline.resilience import speak_failures
from customer_service.pipeline.turn_detection import build_turn_detection
from customer_service.settings import (
    ModelProvider,
    NoiseCancellation,
    Settings,
)

__all__ = [
    "SessionModels",
    "build_models",
    "build_noise_cancellation",
    "load_vad",
    "noise_filter",
]

_PROVIDER_LABELS = {
    ModelProvider.INFERENCE: "LiveKit Inference",
    ModelProvider.PLUGINS: "provider plugins",
}


@dataclass(frozen=True, slots=True)
class SessionModels:
    """Everything an `AgentSession` needs from the models, built from one `Settings`."""

    stt: STT[Any] | None
    llm: LLM[Any]
    """What the session talks to: LLM_MODEL on `provider`, behind a `FallbackAdapter`
    with `llm_fallbacks` when there are any, always wrapped by `speak_failures`."""
    tts: TTS[Any] | None
    vad: VAD | None
    turn_detection: TurnDetectionMode | None
    provider: ModelProvider
    text_only: bool
    settings: Settings
    llm_fallbacks: tuple[LLMRoute, ...] = ()
    """The models tried, in order, when LLM_MODEL fails; empty: no fallback."""

    def turn_handling(self) -> TurnHandlingOptions:
        """The `turn_handling=` argument for `AgentSession`. Text-only sessions get an
        explicit None: left empty, the session would build a turn detector it cannot use."""
        # Preemptive generation starts the model on the caller's words before the turn is
        # confirmed: the reply is ready sooner on a phone line. Stated, not left to the
        # framework's default, because the latency budget depends on it.
        return TurnHandlingOptions(
            turn_detection=self.turn_detection,
            preemptive_generation=PreemptiveGenerationOptions(enabled=True),
        )

    def describe(self) -> str:
        """One line for the startup log: which models, and why."""
        return f"models: {self.summary()}"

    def summary(self) -> str:
        """Which models, and why, for a line that names them itself (`Model: ...`)."""
        if self.provider is ModelProvider.OFFLINE:
            reason = (
                "MODEL_PROVIDER=offline"
                if self.settings.model_provider is ModelProvider.OFFLINE
                else "no STT/TTS keys or LiveKit credentials configured"
            )
            if self.text_only:
                return f"offline deterministic stand-in, text only ({reason})"
            return (
                f"offline deterministic stand-in with local speech (stt {LOCAL_STT}, "
                f"tts {LOCAL_TTS}), turn detection {self.settings.turn_detection.value} "
                f"({reason})"
            )
        label = _PROVIDER_LABELS[self.provider]
        settings = self.settings
        if self.text_only:
            line = f"{label} (llm {settings.llm_model}), text only"
        else:
            line = (
                f"{label} (stt {settings.stt_model}, llm {settings.llm_model}, "
                f"tts {settings.tts_model}), turn detection {settings.turn_detection.value}"
            )
        if self.llm_fallbacks:
            chain = ", then ".join(route.describe() for route in self.llm_fallbacks)
            line += f"; llm fallback: {chain}"
        return line


def llm_only(settings: Settings) -> Settings | None:
    """Settings that serve LLM_MODEL for a text conversation outside a room (the evals,
    the τ²-bench runner), or None when no provider can: without LiveKit credentials,
    the OpenAI key alone serves it through the plugin, whatever speech keys are missing."""
    provider = settings.resolved_model_provider
    if provider is not ModelProvider.OFFLINE:
        return settings
    if not settings.openai_api_key.get_secret_value():
        return None
    return settings.model_copy(update={"model_provider": ModelProvider.PLUGINS})


def build_models(settings: Settings, *, vad: VAD | None, text_only: bool = False) -> SessionModels:
    """The session's models for `settings`.

    `vad` is the Silero model loaded once per process (`load_vad`); it is required when
    turn detection is `vad`. `text_only=True` builds only the LLM (no speech models and no
    turn detector), for text conversations outside a LiveKit job. The offline model
    speaks and listens with local speech (`local_speech`), as does any provider whose
    STT_MODEL or TTS_MODEL names `local/...`.
    """
    provider = settings.resolved_model_provider
    if provider is ModelProvider.OFFLINE:
        from customer_service.offline_llm import OfflineLLM

        # Wrapped like every other model, although the rules do not fail: the session
        # gets the same kind of object whichever provider is configured.
        primary: LLM[Any] = OfflineLLM()
        # Local speech listens through the process's VAD (prewarm loads it); a job run
        # without one, as the in-process job tests run it, stays a text conversation.
        speaks = not text_only and vad is not None
        stt: STT[Any] | None = local_stt(settings, vad=vad) if speaks else None
        tts: TTS[Any] | None = local_tts(settings) if speaks else None
    elif provider is ModelProvider.INFERENCE:
        primary, stt, tts = inference_models(settings, text_only=text_only)
    else:
        primary, stt, tts = plugin_models(settings, text_only=text_only)
    if not text_only and is_local(settings.stt_model):
        stt = local_stt(settings, vad=vad)
    if not text_only and is_local(settings.tts_model):
        tts = local_tts(settings)
    fallbacks = llm_fallbacks(settings, provider)
    turn_detection = (
        None
        if text_only
        else build_turn_detection(settings.turn_detection, vad=vad, language=settings.language)
    )
    return SessionModels(
        stt=stt,
        llm=speak_failures(
            with_fallbacks(primary, fallbacks),
            response_timeout_s=settings.llm_response_timeout_s,
        ),
        tts=tts,
        vad=None if text_only else vad,
        turn_detection=turn_detection,
        provider=provider,
        text_only=text_only,
        settings=settings,
        llm_fallbacks=fallbacks,
    )


def noise_filter(*, telephony: bool) -> rtc.NoiseCancellationOptions:
    """LiveKit's noise and background-voice filter for caller audio: the model tuned for
    phone audio, or the standard one. It works only in rooms on LiveKit Cloud."""
    # Imported here: loading the module loads the native filter library.
    from livekit.plugins import noise_cancellation

    return noise_cancellation.BVCTelephony() if telephony else noise_cancellation.BVC()


def build_noise_cancellation(settings: Settings) -> rtc.NoiseCancellationOptions | None:
    """The one filter NOISE_CANCELLATION names for every caller: None when it is off, and
    for `auto`, which picks per caller (`customer_service.telephony.noise`)."""
    if settings.noise_cancellation in (NoiseCancellation.OFF, NoiseCancellation.AUTO):
        return None
    return noise_filter(telephony=settings.noise_cancellation is NoiseCancellation.BVC_TELEPHONY)


def load_vad() -> VAD:
    """Silero voice activity detection; load it once per process (in prewarm)."""
    return silero.VAD.load()
