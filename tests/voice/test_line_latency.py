"""Latency on the line: a slow backend step is covered by a short "one moment"."""

from __future__ import annotations

from typing import Any

from customer_service.call.latency import ONE_MOMENT
from customer_service.call.wording import ANYTHING_ELSE
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.testing.voice import Utterance, VoiceCall, voice_call_session
from support.conversation import JORDAN_SAYS

ASK_FOR_AN_ORDER = [Utterance("Where is my order 100101?"), Utterance(JORDAN_SAYS)]


def slow_order_reads(call: VoiceCall) -> list[str]:
    """Makes each order read (with its disclosure record, as a lookup reads it) wait
    until the caller has heard the notice, so the step is slow by construction rather
    than by the clock; returns the heard text at each read."""
    store = call.state.store
    read = store.read_order_for_disclosure
    heard_at_read: list[str] = []

    async def read_after_the_notice(*args: Any, **kwargs: Any) -> Any:
        await call.until(lambda: ONE_MOMENT in call.heard)
        heard_at_read.append(call.heard)
        return await read(*args, **kwargs)

    store.read_order_for_disclosure = read_after_the_notice  # type: ignore[method-assign]
    return heard_at_read


async def test_a_slow_lookup_is_covered_by_one_short_notice(settings: Settings) -> None:
    quick = settings.model_copy(update={"slow_step_notice_s": 0.05})
    async with voice_call_session(OfflineLLM(), ASK_FOR_AN_ORDER, settings=quick) as call:
        heard_at_read = slow_order_reads(call)
        # After a specialist hands back, the framework shows the agent as listening while
        # the tool goes on: wait for the answer itself.
        await call.until(lambda: "Order 1" in call.heard)
        await call.finished()
        assert heard_at_read
        # The status, said by code, then the closing question.
        status, closing = [m.text_content or "" for m in call.messages("assistant")[-2:]]
        assert status.startswith("Order ")
        assert closing == ANYTHING_ELSE
        # Heard once, while the agent worked, and before the answer.
        assert call.heard.count(ONE_MOMENT) == 1
        assert call.heard.index(ONE_MOMENT) < call.heard.index("Order 1")
        # Not part of the conversation the model sees.
        assert ONE_MOMENT not in [m.text_content for m in call.messages("assistant")]
        assert call.errors == []
