"""The language model's fallback chain: which LLMs stand in, in order, when LLM_MODEL fails.

When more than one LLM is configured (LiveKit Inference with LiveKit credentials and URL,
the OpenAI plugin with OPENAI_API_KEY, and any LLM_FALLBACK_MODELS through Inference)
they sit behind the framework's `FallbackAdapter` in priority order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from livekit.agents.llm import LLM, FallbackAdapter

from customer_service.pipeline.providers import (
    PLUGIN_PROVIDERS,
    PipelineError,
    inference_llm,
    openai_llm,
    split_model,
)
from customer_service.settings import ModelProvider, Settings

_LLM_ROUTE_LABELS = {
    ModelProvider.INFERENCE: "LiveKit Inference",
    ModelProvider.PLUGINS: "OpenAI plugin",
}


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
            routes.append(LLMRoute(settings.llm_model, ModelProvider.PLUGINS, openai_llm(settings)))
    elif inference_ready:
        routes.append(
            LLMRoute(
                settings.llm_model,
                ModelProvider.INFERENCE,
                inference_llm(settings, settings.llm_model),
            )
        )
    # By now LLM_MODEL is on Inference as the primary or as the route above.
    tried = {settings.llm_model}
    for model in settings.llm_fallback_models:
        split_model(model)  # a malformed entry is a PipelineError here, not a failed call
        if model in tried:
            continue
        tried.add(model)
        routes.append(LLMRoute(model, ModelProvider.INFERENCE, inference_llm(settings, model)))
    return tuple(routes)


def with_fallbacks(primary: LLM[Any], fallbacks: tuple[LLMRoute, ...]) -> LLM[Any]:
    """`primary` alone, or `primary` then `fallbacks` behind a `FallbackAdapter`."""
    if not fallbacks:
        return primary
    # The adapter's defaults suit a call: no retries per model (the next model is the
    # retry), 5 s for a model to answer before the next is asked, and a model that has
    # already spoken is not replaced mid-sentence by another.
    return FallbackAdapter([primary, *(route.llm for route in fallbacks)])
