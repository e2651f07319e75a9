"""Metrics are logged as they arrive: one structured line per model request and per
timed turn, with the call's id and no words in them."""

from __future__ import annotations

import logging

import pytest

from customer_service.offline_llm import OfflineLLM
from customer_service.testing import call_session
from support.offline_chat import JORDAN


async def test_model_and_turn_metrics_are_logged_as_they_arrive(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="customer_service.reports.live"):
        async with call_session(OfflineLLM()) as session:
            call_id = session.userdata.call_id
            await session.run(user_input="Where is my order 100101?")
            during_the_call = len(caplog.records)
            await session.run(user_input=JORDAN)
    records = [r for r in caplog.records if r.name == "customer_service.reports.live"]
    assert len(records) > during_the_call > 0  # logged turn by turn, not at the end
    models = [r for r in records if r.getMessage() == "model metrics"]
    assert models
    for record in models:
        assert record.call_id == call_id  # type: ignore[attr-defined]
        assert record.metric == "llm"  # type: ignore[attr-defined]
        assert record.model == "offline-rules"  # type: ignore[attr-defined]
        assert record.ttft_s >= 0  # type: ignore[attr-defined]
        assert record.input_tokens == 0  # type: ignore[attr-defined]
    turns = [r for r in records if r.getMessage() == "turn metrics"]
    assert any(r.role == "assistant" and r.llm_node_ttft_s >= 0 for r in turns)  # type: ignore[attr-defined]
    for record in records:
        logged = " ".join(str(value) for value in vars(record).values())
        assert "Jordan" not in logged
        assert "jordan.lee" not in logged
