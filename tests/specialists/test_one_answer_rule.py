"""Every question reads the caller's answer with the same rule (`call.answers.polarity`):
the same words give the same reading at a cancellation read-back, at a consent question
the caller asked for, and at the text-update offer after an address change.

The model here takes every answer for a yes; only the caller's own words decide.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from livekit.agents import AgentSession, llm

from customer_service.call.state import CallState
from customer_service.domain import OrderStatus
from customer_service.settings import Settings
from customer_service.specialists.consent import ConsentTopic
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, check_identity, verifying_for
from support.demo_addresses import MARKET_STREET_SUITE_5
from support.scripted_llm import Call, Decision, Say, ScriptedLLM, Step, Turn
from support.scripted_llm import relay_tool_output as relay

ACKNOWLEDGEMENTS = ["okay thanks", "all right", "alright", "right", "no worries", "Okay."]
CLEAR_YESES = ["yes please", "Okay, yes", "Sure."]


def taking_every_answer_for_a_yes(turn: Turn) -> Decision:
    caller_spoke_last = (
        isinstance(turn.last_item, llm.ChatMessage) and turn.last_item.role == "user"
    )
    if caller_spoke_last and "confirm_cancellation" in turn.tool_names:
        return Call("confirm_cancellation")
    if caller_spoke_last and "confirm_address" in turn.tool_names:
        return Call("confirm_address")
    if caller_spoke_last and "record_consent" in turn.tool_names:
        return Call("record_consent", {"granted": True})
    if turn.last_tool_output is not None:
        return relay(turn)
    return Say("Is there anything else?")


@dataclass(frozen=True)
class Question:
    """A question whose answer changes something, and how a caller comes to answer it."""

    steps: tuple[Step, ...]
    lines_before_the_question: tuple[str, ...]
    changed: Callable[[AgentSession[CallState]], Awaitable[bool]]


async def _cancelled(session: AgentSession[CallState]) -> bool:
    order = await session.userdata.store.get_order("100102")
    assert order is not None
    return order.status is OrderStatus.CANCELLED


async def _texts_granted(session: AgentSession[CallState]) -> bool:
    store = session.userdata.store
    record = await store.latest_consent(topic=ConsentTopic.ORDER_UPDATES_SMS, customer_id="C-1001")
    return record is not None and record.granted


READ_BACK = Question(
    steps=(
        *verifying_for("cancel_order", "100102", JORDAN),
        Call("record_cancellation_reason", {"reason": "no longer needed"}),
    ),
    lines_before_the_question=(
        "I'd like to cancel order 100102",
        JORDAN_SAYS,
        "I don't need it any more",
    ),
    changed=_cancelled,
)
CONSENT = Question(
    steps=(Call("request_consent", {"topic": "order_updates_sms"}), check_identity(JORDAN)),
    lines_before_the_question=("Can you send me text updates?", JORDAN_SAYS),
    changed=_texts_granted,
)
TEXT_UPDATE_OFFER = Question(
    steps=(
        *verifying_for("update_address", "100102", JORDAN),
        Call("record_address", MARKET_STREET_SUITE_5.model_dump()),
    ),
    lines_before_the_question=(
        "I need to change the delivery address for order 100102",
        JORDAN_SAYS,
        "1 Market Street, Suite 5, San Francisco, California 94105",
        "Yes, that's right",
    ),
    changed=_texts_granted,
)
QUESTIONS = pytest.mark.parametrize(
    "question",
    [READ_BACK, CONSENT, TEXT_UPDATE_OFFER],
    ids=["cancellation_read_back", "consent_question", "text_update_offer"],
)


async def answered(settings: Settings, question: Question, answer: str) -> bool:
    """Whether `answer` to `question` changed anything."""
    model = ScriptedLLM(question.steps, then=taking_every_answer_for_a_yes)
    async with call_session(model, settings=settings) as session:
        for line in question.lines_before_the_question:
            await session.run(user_input=line)
        assert not await question.changed(session)
        await session.run(user_input=answer)
        return await question.changed(session)


@QUESTIONS
@pytest.mark.parametrize("acknowledgement", ACKNOWLEDGEMENTS)
async def test_an_acknowledgement_changes_nothing_at_any_question(
    settings: Settings, question: Question, acknowledgement: str
) -> None:
    assert not await answered(settings, question, acknowledgement)


@QUESTIONS
@pytest.mark.parametrize("yes", CLEAR_YESES)
async def test_a_clear_yes_is_a_yes_at_every_question(
    settings: Settings, question: Question, yes: str
) -> None:
    assert await answered(settings, question, yes)
