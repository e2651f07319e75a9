"""The voice session's turn detector, and whether the plugin's model files are downloaded.

The default is LiveKit's own detector (`inference.TurnDetector`), which the framework
names as the successor of its turn-detector plugin: on LiveKit Cloud its cloud model,
elsewhere the on-device model whose weights ship inside livekit-agents, so nothing is
downloaded. The on-device model serves Arabic, Chinese, Dutch, English, French, German,
Hindi, Indonesian, Italian, Japanese, Korean, Portuguese, Spanish and Turkish; the
plugin's multilingual model serves Russian instead of Arabic, so it stays a choice
(TURN_DETECTION=multilingual) for a Russian line.
"""

from __future__ import annotations

import logging
import os
import warnings

from huggingface_hub import try_to_load_from_cache
from livekit.agents import LanguageCode, get_job_context, inference
from livekit.agents.inference.eot.languages import LOCAL_LANGUAGES
from livekit.agents.inference_runner import _InferenceRunner
from livekit.agents.vad import VAD
from livekit.agents.voice.turn import TurnDetectionMode

# Plugins register themselves on import, which must happen on the main thread: importing
# them here, at module level, does that whenever the entry imports `pipeline`.
with warnings.catch_warnings():
    # The plugin announces its successor, `inference.TurnDetector` (the default here):
    # that one message only, not every deprecation raised during the import.
    warnings.filterwarnings(
        "ignore",
        message=r"`livekit\.plugins\.turn_detector` is deprecated",
        category=DeprecationWarning,
    )
    from livekit.plugins.turn_detector.english import EnglishModel, _EUORunnerEn
    from livekit.plugins.turn_detector.models import HG_MODEL, MODEL_REVISIONS, ONNX_FILENAME
    from livekit.plugins.turn_detector.multilingual import (
        MultilingualModel,
        _EUORunnerMultilingual,
    )

from customer_service.pipeline.providers import PipelineError
from customer_service.settings import TurnDetection

DOWNLOAD_FILES_COMMAND = "python src/agent.py download-files"
ON_DEVICE_MODEL = "turn-detector-v1-mini"

logger = logging.getLogger(__name__)


def build_turn_detection(
    mode: TurnDetection, *, vad: VAD | None, language: str = "en"
) -> TurnDetectionMode:
    """The `turn_detection` value for a voice session, in the caller's `language`."""
    if mode is TurnDetection.VAD:
        if vad is None:
            raise PipelineError("TURN_DETECTION=vad needs the Silero VAD: pass load_vad().")
        return "vad"
    if mode is TurnDetection.STT:
        return "stt"
    if mode in (TurnDetection.LIVEKIT, TurnDetection.LOCAL):
        detector = (
            inference.TurnDetector()
            if mode is TurnDetection.LIVEKIT
            else inference.TurnDetector(version="v1-mini")
        )
        if detector.model == ON_DEVICE_MODEL and not on_device_model_serves(language):
            logger.warning(
                "The on-device turn detector does not serve LANGUAGE=%s: turns end on "
                "silence alone. TURN_DETECTION=multilingual serves more languages, after `%s`.",
                language,
                DOWNLOAD_FILES_COMMAND,
            )
        return detector

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


def on_device_model_serves(language: str) -> bool:
    """Whether LiveKit's on-device turn detector has a model for `language` ("en", "en-US")."""
    return LanguageCode(language).language in LOCAL_LANGUAGES


PLUGIN_MODES = frozenset({TurnDetection.MULTILINGUAL, TurnDetection.ENGLISH})
"""The modes whose detector is the turn-detector plugin's model."""


def unregister_unused_plugin_runners(mode: TurnDetection) -> None:
    """Takes the plugin's runners out of the worker's inference process when `mode` does
    not use them.

    The plugin registers them when imported, and the worker starts its inference process
    for every registered runner: with TURN_DETECTION=local, vad or stt, that process would
    still load the plugin's model files and log a traceback for each one not downloaded.
    The framework has no public way to unregister a runner.
    """
    if mode in PLUGIN_MODES:
        return
    for runner in (_EUORunnerEn, _EUORunnerMultilingual):
        _InferenceRunner.registered_runners.pop(runner.INFERENCE_METHOD, None)


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
    return None if _files_cached(revision) else _missing_files_message(mode)


def plugin_files_downloaded() -> bool:
    """Whether `download-files` has already fetched both of the plugin's models."""
    return all(_files_cached(MODEL_REVISIONS[model]) for model in ("multilingual", "en"))


def _files_cached(revision: str) -> bool:
    return all(
        isinstance(try_to_load_from_cache(HG_MODEL, filename, revision=revision), str)
        for filename in ("languages.json", f"onnx/{ONNX_FILENAME}")
    )


def _missing_files_message(mode: TurnDetection) -> str:
    return (
        f"The turn-detector model files for TURN_DETECTION={mode.value} are not downloaded. "
        f"Run `{DOWNLOAD_FILES_COMMAND}` once (it needs internet access), or set "
        "TURN_DETECTION=livekit to use the detector bundled with livekit-agents."
    )
