"""A caller who checks the line while a slow lookup runs hears the lookup's result."""

from __future__ import annotations

from typing import Any

from customer_service.call.latency import ONE_MOMENT
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.testing.script import AgentSays
from customer_service.testing.voice import Utterance, VoiceCall, voice_call_session
from support.conversation import JORDAN_SAYS

CHECK = "Hello? Are you still there?"
LINES = [
    Utterance("Where is my order 100101?"),
    Utterance(JORDAN_SAYS),
    Utterance(CHECK, after=AgentSays(ONE_MOMENT), delay=0.2),
]


def order_read_after_the_check(call: VoiceCall) -> None:
    """The order read waits until the caller's check is in the history: the lookup is
    still running when they speak."""
    store = call.state.store
    read = store.read_order_for_disclosure

    async def read_after_the_check(*args: Any, **kwargs: Any) -> Any:
        await call.until(
            lambda: any(CHECK in (m.text_content or "") for m in call.messages("user"))
        )
        return await read(*args, **kwargs)

    store.read_order_for_disclosure = read_after_the_check  # type: ignore[method-assign]


async def test_a_check_on_the_line_during_a_slow_lookup_hears_the_result(
    settings: Settings,
) -> None:
    quick = settings.model_copy(update={"slow_step_notice_s": 0.05})
    async with voice_call_session(OfflineLLM(), LINES, settings=quick) as call:
        order_read_after_the_check(call)
        await call.finished()
        said = [m.text_content or "" for m in call.messages("assistant")]
        assert any(line.startswith("Order 1 0 0, 1 0 1") for line in said), call.heard
        assert "Order 1 0 0, 1 0 1" in call.heard
        assert not any(line.startswith("I can check the status") for line in said), said
        assert call.errors == []
