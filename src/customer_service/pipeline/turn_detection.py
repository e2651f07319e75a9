"""The voice session's turn detector, and whether the plugin's model files are downloaded."""

from __future__ import annotations

import os
import warnings

from huggingface_hub import try_to_load_from_cache
from livekit.agents import get_job_context, inference
from livekit.agents.inference_runner import _InferenceRunner
from livekit.agents.vad import VAD
from livekit.agents.voice.turn import TurnDetectionMode

# Plugins register themselves on import, which must happen on the main thread: importing
# them here, at module level, does that whenever the entry imports `pipeline`.
with warnings.catch_warnings():
    # The plugin announces its successor, `inference.TurnDetector` (TURN_DETECTION=local):
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
