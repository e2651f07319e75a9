"""Which models a session gets from which settings; everything here runs offline.

Constructing the LiveKit Inference objects and the provider plugins makes no network
connection, so they are built for real with fake credentials. The model-hub cache is
stood in for by an empty directory instead of ~/.cache. The LLM fallback chain and turn
detection have their own modules: test_llm_fallback.py and test_turn_detection.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from livekit import rtc
from livekit.agents import inference
from livekit.agents.vad import VAD
from livekit.plugins import cartesia, deepgram, openai

from customer_service.offline_llm import OfflineLLM
from customer_service.pipeline import (
    PipelineError,
    build_models,
    build_noise_cancellation,
    load_vad,
    plugin_model_name,
    split_model,
)
from customer_service.pipeline.local_stt import LocalSTT
from customer_service.pipeline.local_tts import LocalTTS
from customer_service.settings import (
    ModelProvider,
    NoiseCancellation,
)
from support.pipeline_fixtures import (
    GEMINI,
    LIVEKIT,
    NO_FILES,
    PROVIDER_KEYS,
    empty_hf_cache,
    isolate_from_machine,
    make_settings,
    session_llm,
)


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credentials, settings or env files from the machine running the tests."""
    isolate_from_machine(monkeypatch, tmp_path)


@pytest.fixture
def hf_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty model-hub cache in place of the real one."""
    return empty_hf_cache(monkeypatch, tmp_path)


@pytest.fixture(scope="module")
def vad() -> VAD:
    return load_vad()


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
def test_provider_follows_the_credentials(
    values: dict[str, Any], expected: ModelProvider, vad: VAD
) -> None:
    settings = make_settings(**values, **NO_FILES)
    assert settings.resolved_model_provider is expected
    assert build_models(settings, vad=vad).provider is expected


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
    assert models.turn_handling() == {
        "turn_detection": None,
        "preemptive_generation": {"enabled": True},
    }


def test_offline_is_the_deterministic_model_with_local_speech(vad: VAD) -> None:
    models = build_models(make_settings(), vad=vad)
    assert isinstance(session_llm(models), OfflineLLM)
    assert isinstance(models.stt, LocalSTT)
    assert isinstance(models.tts, LocalTTS)
    assert models.vad is vad
    assert models.turn_detection is not None
    assert models.text_only is False
    text = build_models(make_settings(), vad=vad, text_only=True)
    assert (text.stt, text.tts, text.vad, text.turn_detection) == (None,) * 4


def test_local_speech_needs_no_speech_provider_key(vad: VAD) -> None:
    settings = make_settings(
        model_provider="plugins",
        openai_api_key="fake-openai-key",
        stt_model="local/pocketsphinx",
        tts_model="local/espeak-ng",
        **NO_FILES,
    )
    models = build_models(settings, vad=vad)
    assert isinstance(session_llm(models), openai.LLM)
    assert isinstance(models.stt, LocalSTT)
    assert isinstance(models.tts, LocalTTS)


def test_local_speech_recognition_is_english_only(vad: VAD) -> None:
    with pytest.raises(PipelineError, match=r"English only.*LANGUAGE=de"):
        build_models(make_settings(language="de", **NO_FILES), vad=vad)


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


def test_describe_says_why_the_model_is_offline(vad: VAD) -> None:
    assert build_models(make_settings(), vad=vad).describe() == (
        "models: offline deterministic stand-in with local speech (stt local/pocketsphinx, "
        "tts local/espeak-ng), turn detection livekit "
        "(no STT/TTS keys or LiveKit credentials configured)"
    )
    chosen = make_settings(**LIVEKIT, model_provider="offline")
    assert build_models(chosen, vad=vad, text_only=True).describe() == (
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
