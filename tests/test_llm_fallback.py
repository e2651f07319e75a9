"""The language model and its fallbacks: which LLMs stand behind LLM_MODEL, in what order.

Built for real with fake credentials, like the rest of the pipeline; nothing connects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from livekit.agents import inference
from livekit.agents.llm import LLM, FallbackAdapter
from livekit.plugins import openai

from customer_service.pipeline import (
    PipelineError,
    build_models,
)
from customer_service.pipeline import fallback as llm_fallback
from customer_service.settings import ModelProvider, Settings
from support.pipeline_fixtures import (
    GEMINI,
    LIVEKIT,
    NO_FILES,
    PROVIDER_KEYS,
    isolate_from_machine,
    make_settings,
    session_llm,
)

INFERENCE = ModelProvider.INFERENCE
PLUGIN = ModelProvider.PLUGINS


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credentials, settings or env files from the machine running the tests."""
    isolate_from_machine(monkeypatch, tmp_path)


class RecordingAdapter(FallbackAdapter):
    """The framework's adapter, remembering the models it was given, in order."""

    def __init__(self, llm: list[LLM[Any]], **options: Any) -> None:
        super().__init__(llm, **options)
        self.models = list(llm)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (LIVEKIT, []),
        (PROVIDER_KEYS, []),
        ({**LIVEKIT, "openai_api_key": "fake-openai-key"}, [("openai/gpt-4.1-mini", PLUGIN)]),
        (
            {**LIVEKIT, **PROVIDER_KEYS, "model_provider": "plugins"},
            [("openai/gpt-4.1-mini", INFERENCE)],
        ),
        ({**LIVEKIT, "llm_fallback_models": GEMINI}, [(GEMINI, INFERENCE)]),
        (
            {
                **LIVEKIT,
                "openai_api_key": "fake-openai-key",
                "llm_fallback_models": f"{GEMINI}, openai/gpt-4.1-mini, {GEMINI}",
            },
            [("openai/gpt-4.1-mini", PLUGIN), (GEMINI, INFERENCE)],
        ),
        ({**LIVEKIT, **PROVIDER_KEYS, "llm_model": GEMINI}, []),
        ({**LIVEKIT, "livekit_url": "", **PROVIDER_KEYS}, []),
        (
            {
                **LIVEKIT,
                **PROVIDER_KEYS,
                "model_provider": "offline",
                "llm_fallback_models": GEMINI,
            },
            [],
        ),
    ],
    ids=[
        "livekit-only",
        "plugins-only",
        "livekit-and-openai-key",
        "plugins-chosen-with-livekit",
        "livekit-and-fallback-models",
        "everything-duplicates-tried-once",
        "openai-plugin-cannot-serve-another-providers-model",
        "livekit-without-url-is-not-configured",
        "offline-chosen-explicitly",
    ],
)
def test_llm_fallbacks_follow_the_configured_llms(
    values: dict[str, Any], expected: list[tuple[str, ModelProvider]]
) -> None:
    models = build_models(make_settings(**values, **NO_FILES), vad=None, text_only=True)
    assert [(route.model, route.via) for route in models.llm_fallbacks] == expected
    assert isinstance(session_llm(models), FallbackAdapter) is bool(expected)


def test_fallback_adapter_holds_the_models_in_priority_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(llm_fallback, "FallbackAdapter", RecordingAdapter)
    settings = make_settings(
        **LIVEKIT, openai_api_key="fake-openai-key", llm_fallback_models=GEMINI, **NO_FILES
    )
    models = build_models(settings, vad=None)
    adapter = session_llm(models)
    assert isinstance(adapter, RecordingAdapter)
    primary, plugin, gemini = adapter.models
    assert isinstance(primary, inference.LLM)
    assert primary.model == "openai/gpt-4.1-mini"
    assert isinstance(plugin, openai.LLM)
    assert plugin.model == "gpt-4.1-mini"
    assert isinstance(gemini, inference.LLM)
    assert gemini.model == GEMINI
    assert [route.llm for route in models.llm_fallbacks] == [plugin, gemini]
    # Until a model fails, the session's LLM names the primary.
    assert (models.llm.model, models.llm.provider) == (primary.model, primary.provider)


def test_fallback_models_need_livekit_inference() -> None:
    settings = make_settings(**PROVIDER_KEYS, **NO_FILES, llm_fallback_models=GEMINI)
    with pytest.raises(
        PipelineError,
        match=rf"^LLM_FALLBACK_MODELS={GEMINI} runs through LiveKit Inference: set LIVEKIT_URL",
    ):
        build_models(settings, vad=None)


def test_fallback_model_without_provider_is_rejected() -> None:
    settings = make_settings(**LIVEKIT, **NO_FILES, llm_fallback_models="gemini-2.5-flash")
    with pytest.raises(PipelineError, match="provider/model"):
        build_models(settings, vad=None)


def test_fallback_models_are_read_comma_separated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_FALLBACK_MODELS", f" {GEMINI}, ,openai/gpt-4.1 ")
    assert Settings().llm_fallback_models == (GEMINI, "openai/gpt-4.1")
    monkeypatch.setenv("LLM_FALLBACK_MODELS", "")
    assert Settings().llm_fallback_models == ()
