"""Which models a session gets from which settings; everything here runs offline.

Constructing the LiveKit Inference objects and the provider plugins makes no network
connection, so they are built for real with fake credentials. Two edges are stood in
for: the model-hub cache (an empty or hand-made directory instead of ~/.cache) and, where
the turn-detector plugin needs one, the LiveKit job context.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import huggingface_hub.constants
import pytest
from livekit import rtc
from livekit.agents import inference
from livekit.agents.llm import LLM, FallbackAdapter
from livekit.agents.vad import VAD
from livekit.plugins import cartesia, deepgram, openai

from customer_service import pipeline
from customer_service.offline_llm import OfflineLLM
from customer_service.pipeline import (
    DOWNLOAD_FILES_COMMAND,
    PipelineError,
    SessionModels,
    build_models,
    build_noise_cancellation,
    build_turn_detection,
    load_vad,
    plugin_model_name,
    split_model,
    turn_detector_files_problem,
)
from customer_service.resilience import ApologizingLLM
from customer_service.settings import (
    ModelProvider,
    NoiseCancellation,
    Settings,
    TurnDetection,
)

with warnings.catch_warnings():
    # The plugin says on import that it is deprecated; the pipeline still offers it.
    warnings.simplefilter("ignore", DeprecationWarning)
    from livekit.plugins.turn_detector import base as turn_detector_base
    from livekit.plugins.turn_detector.english import EnglishModel
    from livekit.plugins.turn_detector.models import HG_MODEL, MODEL_REVISIONS, ONNX_FILENAME
    from livekit.plugins.turn_detector.multilingual import MultilingualModel

# Long enough that the JWT library does not warn about short HMAC keys.
FAKE_SECRET = "fake-secret-0123456789abcdef0123456789abcdef"

LIVEKIT = {
    "livekit_url": "wss://example.invalid",
    "livekit_api_key": "APIfakekey",
    "livekit_api_secret": FAKE_SECRET,
}
PROVIDER_KEYS = {
    "deepgram_api_key": "fake-deepgram-key",
    "openai_api_key": "fake-openai-key",
    "cartesia_api_key": "fake-cartesia-key",
}
# Turn detection that needs neither model files nor a job, for tests about other things.
NO_FILES = {"turn_detection": TurnDetection.STT}

ENV_PREFIXES = ("LIVEKIT_", "DEEPGRAM_", "OPENAI_", "CARTESIA_")


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credentials, settings or env files from the machine running the tests."""
    for name in list(os.environ):
        if name.startswith(ENV_PREFIXES) or name.lower() in Settings.model_fields:
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def hf_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty model-hub cache in place of the real one."""
    cache = tmp_path / "hf-cache"
    cache.mkdir()
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    return cache


def put_turn_detector_files(cache: Path, revision: str) -> None:
    """Lays the files out the way `download-files` leaves them in the cache."""
    repo = cache / f"models--{HG_MODEL.replace('/', '--')}"
    commit = "0123456789abcdef0123456789abcdef01234567"
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / revision).write_text(commit)
    snapshot = repo / "snapshots" / commit
    (snapshot / "onnx").mkdir(parents=True)
    (snapshot / "languages.json").write_text(json.dumps({"en": {"threshold": 0.01}}))
    (snapshot / "onnx" / ONNX_FILENAME).write_bytes(b"not a real model")


@pytest.fixture
def in_job(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stands in for the LiveKit job the session entrypoint runs in."""
    job = SimpleNamespace(inference_executor=object())
    monkeypatch.setattr(pipeline, "get_job_context", lambda required=True: job)
    monkeypatch.setattr(turn_detector_base, "get_job_context", lambda: job)


@pytest.fixture(scope="module")
def vad() -> VAD:
    return load_vad()


def make_settings(**values: Any) -> Settings:
    return Settings.model_validate(values)


def session_llm(models: SessionModels) -> LLM[Any]:
    """The model inside the failure wrapper every session LLM comes in."""
    assert isinstance(models.llm, ApologizingLLM)
    return models.llm.inner


# Provider selection


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({}, ModelProvider.OFFLINE),
        (LIVEKIT, ModelProvider.INFERENCE),
        ({**LIVEKIT, "livekit_url": ""}, ModelProvider.OFFLINE),
        ({**LIVEKIT, "livekit_api_secret": ""}, ModelProvider.OFFLINE),
        (PROVIDER_KEYS, ModelProvider.PLUGINS),
        ({**PROVIDER_KEYS, "cartesia_api_key": ""}, ModelProvider.OFFLINE),
        ({**LIVEKIT, **PROVIDER_KEYS}, ModelProvider.INFERENCE),
        ({**LIVEKIT, "livekit_url": "", **PROVIDER_KEYS}, ModelProvider.PLUGINS),
        ({**LIVEKIT, **PROVIDER_KEYS, "model_provider": "plugins"}, ModelProvider.PLUGINS),
        ({**LIVEKIT, **PROVIDER_KEYS, "model_provider": "offline"}, ModelProvider.OFFLINE),
    ],
    ids=[
        "nothing",
        "livekit",
        "livekit-without-url",
        "livekit-without-secret",
        "provider-keys",
        "two-of-three-provider-keys",
        "livekit-and-provider-keys",
        "provider-keys-and-livekit-keys-without-url",
        "plugins-chosen-explicitly",
        "offline-chosen-explicitly",
    ],
)
def test_provider_follows_the_credentials(values: dict[str, Any], expected: ModelProvider) -> None:
    settings = make_settings(**values, **NO_FILES)
    assert settings.resolved_model_provider is expected
    assert build_models(settings, vad=None).provider is expected


def test_inference_builds_livekit_inference_models(vad: VAD) -> None:
    models = build_models(make_settings(**LIVEKIT, **NO_FILES), vad=vad)
    assert isinstance(models.stt, inference.STT)
    assert isinstance(session_llm(models), inference.LLM)
    assert isinstance(models.tts, inference.TTS)
    assert (models.stt.model, models.llm.model, models.tts.model) == (
        "deepgram/nova-3",
        "openai/gpt-4.1-mini",
        "cartesia/sonic-3",
    )
    assert models.vad is vad
    assert models.turn_detection == "stt"
    assert models.text_only is False


def test_plugins_build_each_providers_plugin_with_its_model_name() -> None:
    settings = make_settings(
        **PROVIDER_KEYS, **NO_FILES, llm_model="openai/gpt-4.1", tts_model="cartesia/sonic-2"
    )
    models = build_models(settings, vad=None)
    assert isinstance(models.stt, deepgram.STT)
    assert isinstance(session_llm(models), openai.LLM)
    assert isinstance(models.tts, cartesia.TTS)
    assert (models.stt.model, models.llm.model, models.tts.model) == (
        "nova-3",
        "gpt-4.1",
        "sonic-2",
    )


def test_inference_chosen_without_livekit_keys_says_which_are_missing() -> None:
    settings = make_settings(model_provider="inference", livekit_api_key="APIfakekey")
    with pytest.raises(PipelineError, match=r"^LIVEKIT_API_SECRET must be set"):
        build_models(settings, vad=None)


def test_plugins_chosen_without_every_key_says_which_are_missing() -> None:
    settings = make_settings(model_provider="plugins", openai_api_key="fake-openai-key")
    with pytest.raises(PipelineError, match=r"^DEEPGRAM_API_KEY, CARTESIA_API_KEY must be set"):
        build_models(settings, vad=None)


def test_plugins_reject_a_model_of_another_provider() -> None:
    settings = make_settings(**PROVIDER_KEYS, **NO_FILES, stt_model="assemblyai/universal")
    with pytest.raises(PipelineError, match=r"STT_MODEL=assemblyai/universal.*deepgram/"):
        build_models(settings, vad=None)


def test_text_only_builds_just_the_llm_outside_a_job(hf_cache: Path) -> None:
    # Default turn detection (multilingual) with no model files and no job: not needed.
    settings = make_settings(model_provider="plugins", openai_api_key="fake-openai-key")
    models = build_models(settings, vad=None, text_only=True)
    assert isinstance(session_llm(models), openai.LLM)
    assert (models.stt, models.tts, models.vad, models.turn_detection) == (None,) * 4
    assert models.text_only is True
    assert models.turn_handling() == {"turn_detection": None}


def test_offline_is_the_deterministic_model_and_text_only(vad: VAD) -> None:
    models = build_models(make_settings(), vad=vad)
    assert isinstance(session_llm(models), OfflineLLM)
    assert (models.stt, models.tts, models.vad, models.turn_detection) == (None,) * 4
    assert models.text_only is True


# The language model and its fallbacks

GEMINI = "google/gemini-2.5-flash"
INFERENCE = ModelProvider.INFERENCE
PLUGIN = ModelProvider.PLUGINS


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
    models = build_models(make_settings(**values, **NO_FILES), vad=None)
    assert [(route.model, route.via) for route in models.llm_fallbacks] == expected
    assert isinstance(session_llm(models), FallbackAdapter) is bool(expected)


def test_fallback_adapter_holds_the_models_in_priority_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pipeline, "FallbackAdapter", RecordingAdapter)
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


# Model strings


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("deepgram/nova-3", ("deepgram", "nova-3")),
        ("openai/gpt-4.1-mini", ("openai", "gpt-4.1-mini")),
        ("cartesia/sonic-3", ("cartesia", "sonic-3")),
        ("openai/ft:gpt-4.1/custom", ("openai", "ft:gpt-4.1/custom")),
    ],
)
def test_model_string_splits_at_the_first_slash(model: str, expected: tuple[str, str]) -> None:
    assert split_model(model) == expected


@pytest.mark.parametrize("model", ["nova-3", "deepgram/", "/nova-3", " / "])
def test_model_string_without_provider_and_name_is_rejected(model: str) -> None:
    with pytest.raises(PipelineError, match="provider/model"):
        split_model(model)


def test_plugin_model_name_checks_the_provider() -> None:
    assert plugin_model_name("LLM_MODEL", "openai/gpt-4.1-mini") == "gpt-4.1-mini"
    with pytest.raises(PipelineError, match=r"LLM_MODEL=google/gemini.*openai/"):
        plugin_model_name("LLM_MODEL", "google/gemini")


# Turn detection


def test_vad_turn_detection_needs_the_vad(vad: VAD) -> None:
    assert build_turn_detection(TurnDetection.VAD, vad=vad) == "vad"
    with pytest.raises(PipelineError, match="load_vad"):
        build_turn_detection(TurnDetection.VAD, vad=None)


def test_stt_turn_detection_is_the_providers_endpointing() -> None:
    assert build_turn_detection(TurnDetection.STT, vad=None) == "stt"


def test_local_turn_detection_is_the_bundled_model_and_needs_no_job() -> None:
    detector = build_turn_detection(TurnDetection.LOCAL, vad=None)
    assert isinstance(detector, inference.TurnDetector)
    assert detector.model == "turn-detector-v1-mini"


@pytest.mark.parametrize("mode", [TurnDetection.MULTILINGUAL, TurnDetection.ENGLISH])
@pytest.mark.usefixtures("in_job")
def test_missing_model_files_ask_for_download_files(hf_cache: Path, mode: TurnDetection) -> None:
    with pytest.raises(PipelineError) as raised:
        build_turn_detection(mode, vad=None)
    assert f"`{DOWNLOAD_FILES_COMMAND}`" in str(raised.value)
    assert f"TURN_DETECTION={mode.value}" in str(raised.value)


def test_missing_model_files_stop_build_models(hf_cache: Path) -> None:
    settings = make_settings(**PROVIDER_KEYS)  # turn detection: multilingual by default
    with pytest.raises(PipelineError, match="download-files"):
        build_models(settings, vad=None)


@pytest.mark.parametrize(
    ("mode", "revision", "model_type"),
    [
        (TurnDetection.MULTILINGUAL, MODEL_REVISIONS["multilingual"], MultilingualModel),
        (TurnDetection.ENGLISH, MODEL_REVISIONS["en"], EnglishModel),
    ],
)
@pytest.mark.usefixtures("in_job")
def test_downloaded_model_files_build_the_plugin_model(
    hf_cache: Path, mode: TurnDetection, revision: str, model_type: type[object]
) -> None:
    put_turn_detector_files(hf_cache, revision)
    assert turn_detector_files_problem(mode) is None
    assert isinstance(build_turn_detection(mode, vad=None), model_type)


def test_files_of_the_other_model_do_not_count(hf_cache: Path) -> None:
    put_turn_detector_files(hf_cache, MODEL_REVISIONS["en"])
    assert turn_detector_files_problem(TurnDetection.ENGLISH) is None
    assert turn_detector_files_problem(TurnDetection.MULTILINGUAL) is not None


def test_plugin_model_outside_a_job_is_a_clear_error(hf_cache: Path) -> None:
    put_turn_detector_files(hf_cache, MODEL_REVISIONS["multilingual"])
    with pytest.raises(PipelineError, match="inside a LiveKit job"):
        build_turn_detection(TurnDetection.MULTILINGUAL, vad=None)


def test_remote_multilingual_model_needs_no_files(
    hf_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LIVEKIT_REMOTE_EOT_URL", "https://eot.example.invalid")
    assert turn_detector_files_problem(TurnDetection.MULTILINGUAL) is None
    assert turn_detector_files_problem(TurnDetection.ENGLISH) is not None


def test_turn_handling_carries_the_detector() -> None:
    models = build_models(make_settings(**PROVIDER_KEYS, turn_detection="stt"), vad=None)
    assert models.turn_handling() == {"turn_detection": "stt"}


# Startup line


def test_describe_names_the_inference_models() -> None:
    models = build_models(make_settings(**LIVEKIT, **NO_FILES), vad=None)
    assert models.describe() == (
        "models: LiveKit Inference (stt deepgram/nova-3, llm openai/gpt-4.1-mini, "
        "tts cartesia/sonic-3), turn detection stt"
    )


def test_describe_names_the_plugins() -> None:
    models = build_models(make_settings(**PROVIDER_KEYS, turn_detection="local"), vad=None)
    assert models.describe() == (
        "models: provider plugins (stt deepgram/nova-3, llm openai/gpt-4.1-mini, "
        "tts cartesia/sonic-3), turn detection local"
    )


def test_describe_text_only() -> None:
    models = build_models(make_settings(**LIVEKIT), vad=None, text_only=True)
    assert models.describe() == "models: LiveKit Inference (llm openai/gpt-4.1-mini), text only"


def test_describe_names_the_llm_fallbacks_in_order() -> None:
    settings = make_settings(
        **LIVEKIT, openai_api_key="fake-openai-key", llm_fallback_models=GEMINI, **NO_FILES
    )
    assert build_models(settings, vad=None).describe() == (
        "models: LiveKit Inference (stt deepgram/nova-3, llm openai/gpt-4.1-mini, "
        "tts cartesia/sonic-3), turn detection stt; llm fallback: openai/gpt-4.1-mini "
        f"(OpenAI plugin), then {GEMINI} (LiveKit Inference)"
    )
    assert build_models(settings, vad=None, text_only=True).describe() == (
        "models: LiveKit Inference (llm openai/gpt-4.1-mini), text only; "
        "llm fallback: openai/gpt-4.1-mini (OpenAI plugin), then "
        f"{GEMINI} (LiveKit Inference)"
    )


def test_describe_says_why_the_model_is_offline() -> None:
    assert build_models(make_settings(), vad=None).describe() == (
        "models: offline deterministic stand-in, text only "
        "(no STT/TTS keys or LiveKit credentials configured)"
    )
    chosen = make_settings(**LIVEKIT, model_provider="offline")
    assert build_models(chosen, vad=None).describe() == (
        "models: offline deterministic stand-in, text only (MODEL_PROVIDER=offline)"
    )


# Noise cancellation and VAD


def test_noise_cancellation_off_is_none() -> None:
    assert build_noise_cancellation(make_settings()) is None


@pytest.mark.parametrize("choice", [NoiseCancellation.BVC, NoiseCancellation.BVC_TELEPHONY])
def test_noise_cancellation_builds_offline(choice: NoiseCancellation) -> None:
    options = build_noise_cancellation(make_settings(noise_cancellation=choice))
    assert isinstance(options, rtc.NoiseCancellationOptions)


def test_vad_is_silero(vad: VAD) -> None:
    assert vad.model == "silero"
