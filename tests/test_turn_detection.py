"""Turn detection for voice sessions, and the checks for the plugin's model files.

Two edges are stood in for: the model-hub cache (an empty or hand-made directory instead
of ~/.cache) and, where the turn-detector plugin needs one, the LiveKit job context.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest
from livekit.agents import inference
from livekit.agents.vad import VAD

from customer_service.pipeline import (
    DOWNLOAD_FILES_COMMAND,
    PipelineError,
    build_models,
    build_turn_detection,
    load_vad,
    turn_detection,
    turn_detector_files_problem,
)
from customer_service.settings import TurnDetection
from support.pipeline_fixtures import (
    PROVIDER_KEYS,
    empty_hf_cache,
    isolate_from_machine,
    make_settings,
    put_turn_detector_files,
)

with warnings.catch_warnings():
    # The plugin says on import that it is deprecated; the pipeline still offers it.
    warnings.simplefilter("ignore", DeprecationWarning)
    from livekit.plugins.turn_detector import base as turn_detector_base
    from livekit.plugins.turn_detector.english import EnglishModel
    from livekit.plugins.turn_detector.models import MODEL_REVISIONS
    from livekit.plugins.turn_detector.multilingual import MultilingualModel


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credentials, settings or env files from the machine running the tests."""
    isolate_from_machine(monkeypatch, tmp_path)


@pytest.fixture
def hf_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty model-hub cache in place of the real one."""
    return empty_hf_cache(monkeypatch, tmp_path)


@pytest.fixture
def in_job(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stands in for the LiveKit job the session entrypoint runs in."""
    job = SimpleNamespace(inference_executor=object())
    monkeypatch.setattr(turn_detection, "get_job_context", lambda required=True: job)
    monkeypatch.setattr(turn_detector_base, "get_job_context", lambda: job)


@pytest.fixture(scope="module")
def vad() -> VAD:
    return load_vad()


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


def test_the_default_is_livekits_own_detector_and_needs_no_files(hf_cache: Path) -> None:
    # Off LiveKit Cloud and outside `dev`, the framework's detector is its bundled model:
    # an empty model-hub cache and no job are enough to build the session's models.
    settings = make_settings(**PROVIDER_KEYS)
    assert settings.turn_detection is TurnDetection.LIVEKIT
    assert turn_detector_files_problem(settings.turn_detection) is None
    detector = build_models(settings, vad=None).turn_detection
    assert isinstance(detector, inference.TurnDetector)
    assert detector.model == "turn-detector-v1-mini"


@pytest.mark.parametrize("mode", [TurnDetection.LIVEKIT, TurnDetection.LOCAL])
def test_a_language_the_on_device_detector_lacks_is_said_at_start(
    mode: TurnDetection, caplog: pytest.LogCaptureFixture
) -> None:
    build_turn_detection(mode, vad=None, language="en-US")
    build_turn_detection(mode, vad=None, language="es")
    assert not [record for record in caplog.records if record.levelname == "WARNING"]

    build_turn_detection(mode, vad=None, language="ru")
    [warning] = [record for record in caplog.records if record.levelname == "WARNING"]
    message = warning.getMessage()
    assert "LANGUAGE=ru" in message
    assert "TURN_DETECTION=multilingual" in message


@pytest.mark.parametrize("mode", [TurnDetection.MULTILINGUAL, TurnDetection.ENGLISH])
@pytest.mark.usefixtures("in_job")
def test_missing_model_files_ask_for_download_files(hf_cache: Path, mode: TurnDetection) -> None:
    with pytest.raises(PipelineError) as raised:
        build_turn_detection(mode, vad=None)
    assert f"`{DOWNLOAD_FILES_COMMAND}`" in str(raised.value)
    assert f"TURN_DETECTION={mode.value}" in str(raised.value)


def test_missing_model_files_stop_build_models(hf_cache: Path) -> None:
    settings = make_settings(**PROVIDER_KEYS, turn_detection=TurnDetection.MULTILINGUAL)
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
    assert models.turn_handling() == {
        "turn_detection": "stt",
        "preemptive_generation": {"enabled": True},
    }
