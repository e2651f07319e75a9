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
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Any

from huggingface_hub import try_to_load_from_cache
from livekit import rtc
from livekit.agents import TurnHandlingOptions, get_job_context, inference
from livekit.agents.llm import LLM, FallbackAdapter
from livekit.agents.stt import STT
from livekit.agents.tts import TTS
from livekit.agents.vad import VAD
from livekit.agents.voice.turn import TurnDetectionMode
from livekit.plugins import cartesia, deepgram, openai, silero

# Plugins register themselves on import, which must happen on the main thread: importing
# them here, at module level, does that whenever this module is imported by the entry.
with warnings.catch_warnings():
    # The plugin announces its successor, `inference.TurnDetector` (TURN_DETECTION=local).
    warnings.simplefilter("ignore", DeprecationWarning)
    from livekit.plugins.turn_detector.english import EnglishModel
    from livekit.plugins.turn_detector.models import HG_MODEL, MODEL_REVISIONS, ONNX_FILENAME
    from livekit.plugins.turn_detector.multilingual import MultilingualModel

from customer_service.resilience import speak_failures
from customer_service.settings import (
    ModelProvider,
    NoiseCancellation,
    Settings,
    TurnDetection,
)

DOWNLOAD_FILES_COMMAND = "python src/agent.py download-files"

PLUGIN_PROVIDERS = {"STT_MODEL": "deepgram", "LLM_MODEL": "openai", "TTS_MODEL": "cartesia"}
"""The provider each model setting must name when MODEL_PROVIDER=plugins."""

_PROVIDER_LABELS = {
    ModelProvider.INFERENCE: "LiveKit Inference",
    ModelProvider.PLUGINS: "provider plugins",
}
_LLM_ROUTE_LABELS = {
    ModelProvider.INFERENCE: "LiveKit Inference",
    ModelProvider.PLUGINS: "OpenAI plugin",
}


class PipelineError(RuntimeError):
    """The settings cannot produce a working session; the message says what to change."""


@dataclass(frozen=True, slots=True)
class LLMRoute:
    """A language model the session falls back to, and the way it is reached."""

    model: str
    """As configured: provider/model."""
    via: ModelProvider
    """`INFERENCE` or `PLUGINS` (the OpenAI plugin)."""
    llm: LLM[Any]

    def describe(self) -> str:
        return f"{self.model} ({_LLM_ROUTE_LABELS[self.via]})"


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
        return TurnHandlingOptions(turn_detection=self.turn_detection)

    def describe(self) -> str:
        """One line for the startup log: which models, and why."""
        if self.provider is ModelProvider.OFFLINE:
            reason = (
                "MODEL_PROVIDER=offline"
                if self.settings.model_provider is ModelProvider.OFFLINE
                else "no STT/TTS keys or LiveKit credentials configured"
            )
            return f"models: offline deterministic stand-in, text only ({reason})"
        label = _PROVIDER_LABELS[self.provider]
        settings = self.settings
        if self.text_only:
            line = f"models: {label} (llm {settings.llm_model}), text only"
        else:
            line = (
                f"models: {label} (stt {settings.stt_model}, llm {settings.llm_model}, "
                f"tts {settings.tts_model}), turn detection {settings.turn_detection.value}"
            )
        if self.llm_fallbacks:
            chain = ", then ".join(route.describe() for route in self.llm_fallbacks)
            line += f"; llm fallback: {chain}"
        return line


def build_models(settings: Settings, *, vad: VAD | None, text_only: bool = False) -> SessionModels:
    """The session's models for `settings`.

    `vad` is the Silero model loaded once per process (`load_vad`); it is required when
    turn detection is `vad`. `text_only=True` builds only the LLM (no speech models and no
    turn detector), for text conversations outside a LiveKit job; the offline provider
    is always text only.
    """
    provider = settings.resolved_model_provider
    if provider is ModelProvider.OFFLINE:
        from customer_service.offline_llm import OfflineLLM

        return SessionModels(
            stt=None,
            # Wrapped like every other model, although the rules do not fail: the session
            # gets the same kind of object whichever provider is configured.
            llm=speak_failures(OfflineLLM()),
            tts=None,
            vad=None,
            turn_detection=None,
            provider=provider,
            text_only=True,
            settings=settings,
        )

    if provider is ModelProvider.INFERENCE:
        primary, stt, tts = _inference_models(settings, text_only=text_only)
    else:
        primary, stt, tts = _plugin_models(settings, text_only=text_only)
    fallbacks = llm_fallbacks(settings, provider)
    turn_detection = None if text_only else build_turn_detection(settings.turn_detection, vad=vad)
    return SessionModels(
        stt=stt,
        llm=speak_failures(_with_fallbacks(primary, fallbacks)),
        tts=tts,
        vad=None if text_only else vad,
        turn_detection=turn_detection,
        provider=provider,
        text_only=text_only,
        settings=settings,
        llm_fallbacks=fallbacks,
    )


def llm_fallbacks(settings: Settings, provider: ModelProvider) -> tuple[LLMRoute, ...]:
    """The LLMs to try, in order, when LLM_MODEL on `provider` fails.

    First the same model by the other route, when both are configured: it answers like
    the primary, and it does not share the primary's failure when the failing part is
    the route (the LiveKit gateway, or the OpenAI account). The OpenAI plugin can only
    serve an openai/... LLM_MODEL. Then LLM_FALLBACK_MODELS through LiveKit Inference,
    for an outage of the model's own provider. A model listed twice is tried once.
    """
    if provider is ModelProvider.OFFLINE:
        return ()
    # The primary's own check already ran for Inference; as a fallback it needs the same
    # credentials as MODEL_PROVIDER=auto does to choose it.
    inference_ready = provider is ModelProvider.INFERENCE or (
        settings.has_livekit_credentials and bool(settings.livekit_url)
    )
    if settings.llm_fallback_models and not inference_ready:
        raise PipelineError(
            f"LLM_FALLBACK_MODELS={','.join(settings.llm_fallback_models)} runs through "
            "LiveKit Inference: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET, "
            "or leave LLM_FALLBACK_MODELS empty."
        )
    routes: list[LLMRoute] = []
    if provider is ModelProvider.INFERENCE:
        llm_provider = settings.llm_model.partition("/")[0].strip()
        if (
            settings.openai_api_key.get_secret_value()
            and llm_provider == PLUGIN_PROVIDERS["LLM_MODEL"]
        ):
            routes.append(
                LLMRoute(settings.llm_model, ModelProvider.PLUGINS, _openai_llm(settings))
            )
    elif inference_ready:
        routes.append(
            LLMRoute(
                settings.llm_model,
                ModelProvider.INFERENCE,
                _inference_llm(settings, settings.llm_model),
            )
        )
    # By now LLM_MODEL is on Inference as the primary or as the route above.
    tried = {settings.llm_model}
    for model in settings.llm_fallback_models:
        split_model(model)  # a malformed entry is a PipelineError here, not a failed call
        if model in tried:
            continue
        tried.add(model)
        routes.append(LLMRoute(model, ModelProvider.INFERENCE, _inference_llm(settings, model)))
    return tuple(routes)


def _with_fallbacks(primary: LLM[Any], fallbacks: tuple[LLMRoute, ...]) -> LLM[Any]:
    if not fallbacks:
        return primary
    # The adapter's defaults suit a call: no retries per model (the next model is the
    # retry), 5 s for a model to answer before the next is asked, and a model that has
    # already spoken is not replaced mid-sentence by another.
    return FallbackAdapter([primary, *(route.llm for route in fallbacks)])


def _inference_models(
    settings: Settings, *, text_only: bool
) -> tuple[LLM[Any], STT[Any] | None, TTS[Any] | None]:
    missing = [
        name
        for name, value in (
            ("LIVEKIT_API_KEY", settings.livekit_api_key),
            ("LIVEKIT_API_SECRET", settings.livekit_api_secret),
        )
        if not value.get_secret_value()
    ]
    if missing:
        raise PipelineError(
            f"{' and '.join(missing)} must be set to use LiveKit Inference "
            "(MODEL_PROVIDER=inference), or choose another MODEL_PROVIDER."
        )
    key = settings.livekit_api_key.get_secret_value()
    secret = settings.livekit_api_secret.get_secret_value()
    llm = _inference_llm(settings, settings.llm_model)
    if text_only:
        return llm, None, None
    stt = inference.STT(
        model=settings.stt_model, language=settings.language, api_key=key, api_secret=secret
    )
    tts = inference.TTS(
        model=settings.tts_model,
        voice=settings.tts_voice,
        language=settings.language,
        api_key=key,
        api_secret=secret,
    )
    return llm, stt, tts


def _plugin_models(
    settings: Settings, *, text_only: bool
) -> tuple[LLM[Any], STT[Any] | None, TTS[Any] | None]:
    keys = {
        "DEEPGRAM_API_KEY": settings.deepgram_api_key.get_secret_value(),
        "OPENAI_API_KEY": settings.openai_api_key.get_secret_value(),
        "CARTESIA_API_KEY": settings.cartesia_api_key.get_secret_value(),
    }
    needed = ["OPENAI_API_KEY"] if text_only else list(keys)
    missing = [name for name in needed if not keys[name]]
    if missing:
        raise PipelineError(
            f"{', '.join(missing)} must be set to use the provider plugins "
            "(MODEL_PROVIDER=plugins), or choose another MODEL_PROVIDER."
        )
    llm = _openai_llm(settings)
    if text_only:
        return llm, None, None
    stt = deepgram.STT(
        model=plugin_model_name("STT_MODEL", settings.stt_model),
        language=settings.language,
        api_key=keys["DEEPGRAM_API_KEY"],
    )
    tts = cartesia.TTS(
        model=plugin_model_name("TTS_MODEL", settings.tts_model),
        voice=settings.tts_voice,
        language=settings.language,
        api_key=keys["CARTESIA_API_KEY"],
    )
    return llm, stt, tts


def _inference_llm(settings: Settings, model: str) -> LLM[Any]:
    return inference.LLM(
        model=model,
        api_key=settings.livekit_api_key.get_secret_value(),
        api_secret=settings.livekit_api_secret.get_secret_value(),
    )


def _openai_llm(settings: Settings) -> LLM[Any]:
    return openai.LLM(
        model=plugin_model_name("LLM_MODEL", settings.llm_model),
        api_key=settings.openai_api_key.get_secret_value(),
    )


def split_model(model: str) -> tuple[str, str]:
    """`"deepgram/nova-3"` -> `("deepgram", "nova-3")`."""
    provider, separator, name = model.partition("/")
    if not (separator and provider.strip() and name.strip()):
        raise PipelineError(
            f"model {model!r} is not of the form provider/model (for example deepgram/nova-3)"
        )
    return provider.strip(), name.strip()


def plugin_model_name(setting: str, model: str) -> str:
    """The plugin's own model name for a model setting: `"openai/gpt-4.1-mini"` ->
    `"gpt-4.1-mini"`, after checking the provider is the plugin this project ships."""
    expected = PLUGIN_PROVIDERS[setting]
    provider, name = split_model(model)
    if provider != expected:
        raise PipelineError(
            f"{setting}={model}: with MODEL_PROVIDER=plugins it must be a {expected}/... "
            "model (the plugin installed for it); other providers are available through "
            "LiveKit Inference (MODEL_PROVIDER=inference)."
        )
    return name


def build_turn_detection(mode: TurnDetection, *, vad: VAD | None) -> TurnDetectionMode:
    """The `turn_detection` value for a voice session."""
    if mode is TurnDetection.VAD:
        if vad is None:
            raise PipelineError("TURN_DETECTION=vad needs the Silero VAD: pass load_vad().")
        return "vad"
    if mode is TurnDetection.STT:
        return "stt"
    if mode is TurnDetection.LOCAL:
        return inference.TurnDetector(version="v1-mini")

    problem = turn_detector_files_problem(mode)
    if problem is not None:
        raise PipelineError(problem)
    if get_job_context(required=False) is None:
        raise PipelineError(
            f"TURN_DETECTION={mode.value} runs in the worker's inference process and can only "
            "be built inside a LiveKit job (the session entrypoint)."
        )
    try:
        return MultilingualModel() if mode is TurnDetection.MULTILINGUAL else EnglishModel()
    except RuntimeError as error:
        # The plugin's own message names `python -m livekit.agents download-files`.
        raise PipelineError(_missing_files_message(mode)) from error


def turn_detector_files_problem(mode: TurnDetection) -> str | None:
    """Why the turn-detector plugin cannot start for `mode`, or None when it can.

    Only `multilingual` and `english` need files from the model hub; they are fetched by
    `download-files` (at image build time in the Dockerfile). On LiveKit Cloud, with
    LIVEKIT_REMOTE_EOT_URL set, the multilingual model runs remotely and needs none.
    """
    if mode is TurnDetection.MULTILINGUAL:
        if os.environ.get("LIVEKIT_REMOTE_EOT_URL"):
            return None
        revision = MODEL_REVISIONS["multilingual"]
    elif mode is TurnDetection.ENGLISH:
        revision = MODEL_REVISIONS["en"]
    else:
        return None
    for filename in ("languages.json", f"onnx/{ONNX_FILENAME}"):
        if not isinstance(try_to_load_from_cache(HG_MODEL, filename, revision=revision), str):
            return _missing_files_message(mode)
    return None


def _missing_files_message(mode: TurnDetection) -> str:
    return (
        f"The turn-detector model files for TURN_DETECTION={mode.value} are not downloaded. "
        f"Run `{DOWNLOAD_FILES_COMMAND}` once (it needs internet access), or set "
        "TURN_DETECTION=local to use the detector bundled with livekit-agents."
    )


def build_noise_cancellation(settings: Settings) -> rtc.NoiseCancellationOptions | None:
    """The input filter for caller audio; it works only in rooms on LiveKit Cloud."""
    if settings.noise_cancellation is NoiseCancellation.OFF:
        return None
    # Imported here: loading the module loads the native filter library.
    from livekit.plugins import noise_cancellation

    if settings.noise_cancellation is NoiseCancellation.BVC_TELEPHONY:
        return noise_cancellation.BVCTelephony()
    return noise_cancellation.BVC()


def load_vad() -> VAD:
    """Silero voice activity detection; load it once per process (in prewarm)."""
    return silero.VAD.load()
