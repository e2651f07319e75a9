"""Metrics logged as they arrive, one structured line each, with no words in them.

The models' own `metrics_collected` events (LLM, STT, TTS: every request, a
specialist's included) and each turn's timings as its message lands in the history
(end of utterance on the caller's, time to first token and audio on the agent's). The
session's own `metrics_collected` is deprecated in favour of those two sources.
"""

from __future__ import annotations

import logging
from typing import Any

from livekit.agents import AgentSession, ConversationItemAddedEvent, llm
from livekit.agents.metrics import LLMMetrics, STTMetrics, TTSMetrics
from livekit.rtc import EventEmitter

from customer_service.call.listeners import listen

logger = logging.getLogger(__name__)

_TURN_METRICS = (
    "end_of_turn_delay",
    "transcription_delay",
    "on_user_turn_completed_delay",
    "llm_node_ttft",
    "tts_node_ttfb",
    "e2e_latency",
)


def log_metrics(session: AgentSession[Any], *, call_id: str) -> None:
    """Logs the session's metrics as they arrive, until it closes."""

    def model_metrics(metrics: object) -> None:
        fields = _model_fields(metrics)
        if fields is not None:
            logger.info("model metrics", extra={"call_id": call_id, **fields})

    def turn_metrics(event: ConversationItemAddedEvent) -> None:
        item = event.item
        if not isinstance(item, llm.ChatMessage):
            return
        timings = {
            f"{name}_s": round(float(value), 4)
            for name in _TURN_METRICS
            if isinstance(value := item.metrics.get(name), int | float)
        }
        if timings:
            logger.info("turn metrics", extra={"call_id": call_id, "role": item.role, **timings})

    models = [
        model
        for model in (session.llm, session.stt, session.tts)
        if isinstance(model, EventEmitter)
    ]
    listeners = [listen(model, "metrics_collected", model_metrics) for model in models]
    listen(session, "conversation_item_added", turn_metrics)

    def stop(_: object) -> None:
        for model, listener in zip(models, listeners, strict=True):
            model.off("metrics_collected", listener)

    listen(session, "close", stop, once=True)


def _model_fields(metrics: object) -> dict[str, object] | None:
    if isinstance(metrics, LLMMetrics):
        fields: dict[str, object] = {
            "metric": "llm",
            "ttft_s": round(metrics.ttft, 4),
            "duration_s": round(metrics.duration, 4),
            "input_tokens": metrics.prompt_tokens,
            "output_tokens": metrics.completion_tokens,
            "cancelled": metrics.cancelled,
        }
    elif isinstance(metrics, TTSMetrics):
        fields = {
            "metric": "tts",
            "ttfb_s": round(metrics.ttfb, 4),
            "duration_s": round(metrics.duration, 4),
            "characters": metrics.characters_count,
            "audio_s": round(metrics.audio_duration, 3),
            "cancelled": metrics.cancelled,
        }
    elif isinstance(metrics, STTMetrics):
        fields = {
            "metric": "stt",
            "duration_s": round(metrics.duration, 4),
            "audio_s": round(metrics.audio_duration, 3),
        }
    else:
        return None
    if metrics.metadata is not None:
        fields["model"] = metrics.metadata.model_name
        fields["provider"] = metrics.metadata.model_provider
    return fields
