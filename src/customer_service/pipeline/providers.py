"""Each provider's models from settings, and the provider/model strings they are named by.

- LiveKit Inference: the model strings (`deepgram/nova-3`, ...) go through LiveKit's
  gateway with the LiveKit API key and secret.
- Plugins: each provider's own plugin with its own API key.

The offline stand-in needs nothing from here; `pipeline.build_models` builds it directly.
"""

from __future__ import annotations

from typing import Any

from livekit.agents import inference
from livekit.agents.llm import LLM
from livekit.agents.stt import STT
from livekit.agents.tts import TTS
from livekit.agents.types import NOT_GIVEN

# Plugins register themselves on import, which must happen on the main thread: importing
# them here, at module level, does that whenever the entry imports `pipeline`.
from livekit.plugins import cartesia, deepgram, openai

from customer_service.settings import Settings

PLUGIN_PROVIDERS = {
    "STT_MODEL": "deepgram",
    "LLM_MODEL": "openai",
    "TTS_MODEL": "cartesia",
    "EVAL_JUDGE_MODEL": "openai",
    "TAU2_USER_MODEL": "openai",
}
"""The provider each model setting must name when MODEL_PROVIDER=plugins."""


LOCAL_PROVIDER = "local"
"""The provider of speech on this machine (`local/pocketsphinx`, `local/espeak-ng`):
`pipeline.local_speech` builds it, whatever MODEL_PROVIDER says."""


class PipelineError(RuntimeError):
    """The settings cannot produce a working session; the message says what to change."""


def is_local(model: str) -> bool:
    """Whether a model setting (`local/pocketsphinx`) names local speech."""
    return model.partition("/")[0].strip() == LOCAL_PROVIDER


def inference_models(
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
    llm = inference_llm(settings, settings.llm_model)
    if text_only:
        return llm, None, None
    # A local model (`local/...`) is built by `local_speech` instead.
    stt = (
        None
        if is_local(settings.stt_model)
        else inference.STT(
            model=settings.stt_model, language=settings.language, api_key=key, api_secret=secret
        )
    )
    tts = (
        None
        if is_local(settings.tts_model)
        else inference.TTS(
            model=settings.tts_model,
            voice=settings.tts_voice,
            language=settings.language,
            api_key=key,
            api_secret=secret,
        )
    )
    return llm, stt, tts


def plugin_models(
    settings: Settings, *, text_only: bool
) -> tuple[LLM[Any], STT[Any] | None, TTS[Any] | None]:
    keys = {
        "DEEPGRAM_API_KEY": settings.deepgram_api_key.get_secret_value(),
        "OPENAI_API_KEY": settings.openai_api_key.get_secret_value(),
        "CARTESIA_API_KEY": settings.cartesia_api_key.get_secret_value(),
    }
    needed = ["OPENAI_API_KEY"]
    if not text_only and not is_local(settings.stt_model):
        needed.insert(0, "DEEPGRAM_API_KEY")
    if not text_only and not is_local(settings.tts_model):
        needed.append("CARTESIA_API_KEY")
    missing = [name for name in needed if not keys[name]]
    if missing:
        raise PipelineError(
            f"{', '.join(missing)} must be set to use the provider plugins "
            "(MODEL_PROVIDER=plugins), or choose another MODEL_PROVIDER."
        )
    llm = openai_llm(settings)
    if text_only:
        return llm, None, None
    # A local model (`local/...`) is built by `local_speech` instead.
    stt = (
        None
        if is_local(settings.stt_model)
        else deepgram.STT(
            model=plugin_model_name("STT_MODEL", settings.stt_model),
            language=settings.language,
            api_key=keys["DEEPGRAM_API_KEY"],
        )
    )
    tts = (
        None
        if is_local(settings.tts_model)
        else cartesia.TTS(
            model=plugin_model_name("TTS_MODEL", settings.tts_model),
            voice=settings.tts_voice,
            language=settings.language,
            api_key=keys["CARTESIA_API_KEY"],
        )
    )
    return llm, stt, tts


def inference_llm(settings: Settings, model: str) -> LLM[Any]:
    return inference.LLM(
        model=model,
        api_key=settings.livekit_api_key.get_secret_value(),
        api_secret=settings.livekit_api_secret.get_secret_value(),
    )


def openai_llm(settings: Settings, setting: str = "LLM_MODEL", model: str = "") -> LLM[Any]:
    """The OpenAI plugin's LLM for `model` (named by `setting`; LLM_MODEL by default), on
    OPENAI_BASE_URL when it is set."""
    return openai.LLM(
        model=plugin_model_name(setting, model or settings.llm_model),
        api_key=settings.openai_api_key.get_secret_value(),
        base_url=settings.openai_base_url or NOT_GIVEN,
    )


def judge_llm(settings: Settings) -> LLM[Any]:
    """The evals' judge (EVAL_JUDGE_MODEL)."""
    if not settings.eval_judge_model:
        raise PipelineError("EVAL_JUDGE_MODEL must be set to judge the evals.")
    return other_llm(settings, "EVAL_JUDGE_MODEL", settings.eval_judge_model, "judges itself")


def other_llm(settings: Settings, setting: str, model: str, same: str) -> LLM[Any]:
    """A model beside the agent's (the evals' judge, the benchmark's user), named by
    `setting` and served like LLM_MODEL: through LiveKit Inference with LiveKit
    credentials, else the OpenAI plugin (and OPENAI_BASE_URL). It is never LLM_MODEL:
    `same` says what that would mean ("judges itself")."""
    if model == settings.llm_model:
        raise PipelineError(f"{setting} must differ from LLM_MODEL: a model {same}.")
    if settings.has_livekit_credentials and settings.livekit_url:
        return inference_llm(settings, model)
    return openai_llm(settings, setting, model)


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
