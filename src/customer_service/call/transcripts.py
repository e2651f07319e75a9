"""The call transcript, kept only for calls that may be recorded."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from livekit.agents import llm

from customer_service.call.state import CallState

logger = logging.getLogger(__name__)


def transcript_lines(history: llm.ChatContext) -> list[dict[str, str]]:
    return [
        {"role": item.role, "text": item.text_content or ""}
        for item in history.items
        if isinstance(item, llm.ChatMessage) and item.role in ("user", "assistant")
    ]


def save_transcript(state: CallState, history: llm.ChatContext) -> Path | None:
    """Writes `<transcript_dir>/<call_id>.json` when a directory is configured and the
    caller did not decline recording; returns the path written, if any."""
    directory = state.settings.transcript_dir
    if directory is None or not state.recording:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{state.call_id}.json"
    path.write_text(
        json.dumps(
            {"call_id": state.call_id, "transcript": transcript_lines(history)},
            ensure_ascii=False,
            indent=1,
        )
    )
    logger.info("transcript saved", extra={"call_id": state.call_id})
    return path
