"""A caller who goes quiet: asked once in short form, then the call ends, inside a
specialist as well as with the supervisor."""

from __future__ import annotations

from customer_service.call.wording import ENDING_FOR_SILENCE, GREETING, STILL_THERE
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.specialists.order_lookup import OrderLookupTask
from customer_service.testing.voice import AgentSays, Utterance, voice_call_session
from support.conversation import JORDAN_SAYS, audit_kinds

ORDER_QUESTION_SHORT = OrderLookupTask.still_there_question


async def test_two_silences_end_the_call_after_one_short_question(settings: Settings) -> None:
    async with voice_call_session(OfflineLLM(), [], settings=settings, speed=20) as call:
        await call.until(lambda: call.closed)
        said = [m.text_content for m in call.messages("assistant")]
        assert said == [GREETING, f"{STILL_THERE} How can I help you today?", ENDING_FOR_SILENCE]
        # The farewell played in full before the session closed.
        assert call.speeches[-1].played_to_end
        assert await audit_kinds(call.session) == ["call_ended_for_silence"]
        assert call.errors == []


async def test_a_silent_caller_inside_a_specialist_hears_its_question_in_short_form(
    settings: Settings,
) -> None:
    # Silent at the order-number question, then the number after the short form.
    caller = [
        Utterance("Where is my order?"),
        Utterance(JORDAN_SAYS),
        Utterance("It's 100101", after=AgentSays(f"{STILL_THERE} {ORDER_QUESTION_SHORT}")),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings, speed=20) as call:
        nudge = f"{STILL_THERE} {ORDER_QUESTION_SHORT}"
        await call.until(lambda: nudge in call.heard)
        after_the_question = call.heard[call.heard.index("What's the order number?") :]
        assert nudge in after_the_question
        await call.until(lambda: "Order 1" in call.heard)
        await call.finished()
        assert not call.closed
        assert call.errors == []
