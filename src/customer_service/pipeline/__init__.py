"""The voice pipeline: speech-to-text, LLM, text-to-speech, VAD and turn detection,
built from settings.

`models` assembles a session's models; `providers` knows each provider, `local_speech`
the speech on this machine (`local_stt`, `local_tts`), `fallback` the LLM fallback
chain, `turn_detection` the turn detector and its files, and `resilience` turns a
failing model into a spoken apology. The names below are the package's face.
"""

from customer_service.pipeline.fallback import LLMRoute, llm_fallbacks
from customer_service.pipeline.local_speech import (
    LOCAL_STT,
    LOCAL_TTS,
    listen_for_the_store,
    local_stt,
    local_tts,
)
from customer_service.pipeline.models import (
    SessionModels,
    build_models,
    build_noise_cancellation,
    llm_only,
    load_vad,
)
from customer_service.pipeline.providers import (
    PLUGIN_PROVIDERS,
    PipelineError,
    judge_llm,
    other_llm,
    plugin_model_name,
    split_model,
)
from customer_service.pipeline.turn_detection import (
    DOWNLOAD_FILES_COMMAND,
    build_turn_detection,
    plugin_files_downloaded,
    turn_detector_files_problem,
    unregister_unused_plugin_runners,
)

__all__ = [
    "DOWNLOAD_FILES_COMMAND",
    "LOCAL_STT",
    "LOCAL_TTS",
    "PLUGIN_PROVIDERS",
    "LLMRoute",
    "PipelineError",
    "SessionModels",
    "build_models",
    "build_noise_cancellation",
    "build_turn_detection",
    "judge_llm",
    "listen_for_the_store",
    "llm_fallbacks",
    "llm_only",
    "load_vad",
    "local_stt",
    "local_tts",
    "other_llm",
    "plugin_files_downloaded",
    "plugin_model_name",
    "split_model",
    "turn_detector_files_problem",
    "unregister_unused_plugin_runners",
]
