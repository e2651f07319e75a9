"""Settings, credentials and stand-ins shared by the tests of `customer_service.pipeline`.

Fixtures stay in the test modules (pytest finds them there by name); the helpers they
call live here.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import huggingface_hub.constants
import pytest
from livekit.agents.llm import LLM

from customer_service.pipeline import SessionModels
from customer_service.pipeline.resilience import ApologizingLLM
from customer_service.settings import Settings, TurnDetection

with warnings.catch_warnings():
    # The plugin says on import that it is deprecated; the pipeline still offers it.
    warnings.simplefilter("ignore", DeprecationWarning)
    from livekit.plugins.turn_detector.models import HG_MODEL, ONNX_FILENAME

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

GEMINI = "google/gemini-2.5-flash"


def isolate_from_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credentials, settings or env files from the machine running the tests."""
    for name in list(os.environ):
        if name.startswith(ENV_PREFIXES) or name.lower() in Settings.model_fields:
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def empty_hf_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
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
    (snapshot / "onnx").mkdir(parents=True, exist_ok=True)
    (snapshot / "languages.json").write_text(json.dumps({"en": {"threshold": 0.01}}))
    (snapshot / "onnx" / ONNX_FILENAME).write_bytes(b"not a real model")


def make_settings(**values: Any) -> Settings:
    return Settings.model_validate(values)


def session_llm(models: SessionModels) -> LLM[Any]:
    """The model inside the failure wrapper every session LLM comes in."""
    assert isinstance(models.llm, ApologizingLLM)
    return models.llm.inner
