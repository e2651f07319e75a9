"""On a voice line the pipeline measures each step: the report's turns and the metrics
log carry end of utterance, time to first token, to first audio byte, and from the
caller's last word to the agent's first audio."""

from __future__ import annotations

import logging

import pytest

from customer_service.offline_llm import OfflineLLM
from customer_service.reports.turns import turns
from customer_service.settings import Settings
from customer_service.testing.voice import Utterance, voice_call_session
from support.conversation import JORDAN_SAYS

STEPS = ("end_of_utterance_delay_s", "llm_ttft_s", "tts_ttfb_s", "caller_to_agent_audio_s")


async def test_a_voice_call_times_every_step(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    caller = [Utterance("Where is my order 100101?"), Utterance(JORDAN_SAYS)]
    with caplog.at_level(logging.INFO, logger="customer_service.reports.live"):
        async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
            await call.until(lambda: "Order 1" in call.heard)
            await call.finished()
            history = call.session.history.to_dict(exclude_timestamp=False)["items"]
    timed = turns(history)
    for step in STEPS:
        measured = [turn[step] for turn in timed if turn[step] is not None]
        assert measured, step
        assert all(value >= 0 for value in measured), step
    logged = {r.__dict__.get("metric") for r in caplog.records if r.getMessage() == "model metrics"}
    assert {"llm", "tts"} <= logged
