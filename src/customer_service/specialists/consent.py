"""Consent: one question in fixed, versioned wording, and an answer recorded only when clear.

A stored answer is reused (`obtain_consent`), unless the caller asks to change it; a
new one is checked and stored with its topic, wording version and time.
"""

from __future__ import annotations

import datetime as dt
import enum
import logging
from collections.abc import AsyncIterable
from dataclasses import dataclass
from textwrap import dedent
from typing import Annotated

from livekit.agents import (
    FlushSentinel,
    ModelSettings,
    RunContext,
    ToolError,
    function_tool,
    llm,
)
from livekit.agents.llm import ToolFlag
from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    JsonValue,
    ValidationError,
    WithJsonSchema,
)

from customer_service.call.delegation import delegate
from customer_service.call.guard import guarded
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import PERSONA
from customer_service.domain import Customer
from customer_service.store import ConsentRecord

logger = logging.getLogger(__name__)

MAX_ANSWERS = 2
"""A caller's answers the task will hear: an unclear one is asked again once, no more."""


class ConsentTopic(enum.StrEnum):
    CALL_RECORDING = "call_recording"
    ORDER_UPDATES_SMS = "order_updates_sms"


ConsentTopicChoice = Annotated[
    str, WithJsonSchema({"type": "string", "enum": [topic.value for topic in ConsentTopic]})
]
"""A consent topic as a tool argument. The schema the model sees lists the topics;
anything else still reaches `consent_topic`, which refuses it in words a caller can
hear (the framework's own validation error would quote the model's input back)."""

UNKNOWN_CONSENT_TOPIC = "I can only record choices about call recording or text updates."


def consent_topic(choice: str) -> ConsentTopic:
    try:
        return ConsentTopic(choice)
    except ValueError:
        raise ToolError(UNKNOWN_CONSENT_TOPIC) from None


@dataclass(frozen=True)
class ConsentWording:
    version: str
    question: str


# The only place consent questions are worded. Changing a question means a new version,
# so every recorded answer can be traced to the exact words the caller heard.
CONSENT_WORDING: dict[ConsentTopic, ConsentWording] = {
    ConsentTopic.CALL_RECORDING: ConsentWording(
        version="call_recording/2026-11-26",
        question=(
            "May we record this call to check and improve our service? Please say yes or no."
        ),
    ),
    ConsentTopic.ORDER_UPDATES_SMS: ConsentWording(
        version="order_updates_sms/2026-11-01",
        question=(
            "Would you like text message updates about your orders sent to the phone "
            "number on your account? Message and data rates may apply. Please say yes or no."
        ),
    ),
}


class ConsentResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    topic: ConsentTopic
    granted: bool
    wording_version: str
    asked_at: AwareDatetime
    answer_was_clear: bool


def consent_instructions(wording: ConsentWording) -> str:
    return PERSONA + dedent(
        f"""
        You have just asked the caller exactly this: "{wording.question}"
        If the caller clearly says yes, call record_consent with granted true. If they
        clearly say no, call record_consent with granted false. If the answer is
        anything else, repeat the question in the same words. Never reword it, never
        persuade, and never treat a question or a condition as a yes.
        """
    )


class ConsentTask(Specialist[ConsentResult]):
    """Asks one consent question and returns the caller's clear answer (unclear is a no)."""

    def __init__(self, topic: ConsentTopic) -> None:
        self._topic = topic
        self._wording = CONSENT_WORDING[topic]
        self._asked_at = dt.datetime.now(dt.UTC)
        # No earlier history: a "yes" said to something else must not answer this.
        super().__init__(instructions=consent_instructions(self._wording))

    def collected(self) -> dict[str, JsonValue]:
        return {"consent_topic": self._topic.value}

    async def on_enter(self) -> None:
        self._asked_at = dt.datetime.now(dt.UTC)
        self.session.say(self._wording.question)

    @function_tool()
    # Its argument is the caller's answer: a third yes in a call is still a yes.
    @guarded(count_repeats=False)
    async def record_consent(self, context: RunContext[CallState], granted: bool) -> None:
        """Record the caller's clear yes or no to the question you asked.

        Args:
            granted: True for a clear yes, false for a clear no.
        """
        self.finish(self._result(granted=granted, clear=True))

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller will not answer or wants to move on; counts as no."""
        self.finish(self._result(granted=False, clear=False))

    async def llm_node(
        self,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool],
        model_settings: ModelSettings,
    ) -> AsyncIterable[llm.ChatChunk | str | FlushSentinel]:
        # Counted here rather than in on_user_turn_completed, which text sessions skip.
        answers = sum(
            1
            for item in chat_ctx.items
            if isinstance(item, llm.ChatMessage) and item.role == "user"
        )
        stream = super().llm_node(chat_ctx, tools, model_settings)
        if answers < MAX_ANSWERS:
            async for chunk in stream:
                yield chunk
            return
        # The last answer the task will hear: hold the reply until it is clear whether
        # the model recorded an answer or is about to ask a third time.
        chunks = [chunk async for chunk in stream]
        recorded = any(
            isinstance(chunk, llm.ChatChunk) and chunk.delta and chunk.delta.tool_calls
            for chunk in chunks
        )
        if not recorded:
            # The question was asked twice without a clear answer: that is a no, and the
            # model does not get to ask a third time.
            self.finish(self._result(granted=False, clear=False))
            return
        for chunk in chunks:
            yield chunk

    def _result(self, *, granted: bool, clear: bool) -> ConsentResult:
        return ConsentResult(
            topic=self._topic,
            granted=granted,
            wording_version=self._wording.version,
            asked_at=self._asked_at,
            answer_was_clear=clear,
        )


CONSENT_CONFIRMATIONS = {
    (ConsentTopic.CALL_RECORDING, True): "This call may be recorded.",
    (ConsentTopic.CALL_RECORDING, False): "This call will not be recorded.",
    (ConsentTopic.ORDER_UPDATES_SMS, True): "You'll get text updates about your orders.",
    (ConsentTopic.ORDER_UPDATES_SMS, False): "You won't get text updates about your orders.",
}


async def stored_answer(state: CallState, topic: ConsentTopic) -> ConsentRecord | None:
    """The answer already on record: with the customer once verified, else with the call."""
    customer = state.verified_customer
    if customer is not None:
        return await state.store.latest_consent(topic=topic, customer_id=customer.customer_id)
    return await state.store.latest_consent(topic=topic, call_id=state.call_id)


async def obtain_consent(
    state: CallState, topic: ConsentTopic, *, ask_again: bool = False
) -> ConsentRecord:
    """The caller's answer: from the record when they were asked before (unless they want
    to change it, `ask_again`), else asked now in the fixed wording and recorded.
    Raises StoreUnavailable if it cannot be stored."""
    if not ask_again and (existing := await stored_answer(state, topic)) is not None:
        apply_consent(state, existing)
        return existing
    result = await delegate(state, ConsentTask(topic))
    try:
        answer = ConsentResult.model_validate(result)
    except ValidationError:
        logger.error("consent result malformed", extra={"call_id": state.call_id})
        answer = None
    if answer is None or answer.topic is not topic:
        # An answer that cannot be trusted is no answer: record nothing, grant nothing.
        raise ValueError("consent result does not answer the question asked")
    customer = state.verified_customer
    record = ConsentRecord(
        topic=answer.topic,
        granted=answer.granted,
        wording_version=answer.wording_version,
        asked_at=answer.asked_at,
        call_id=state.call_id,
        customer_id=customer.customer_id if customer else None,
    )
    apply_consent(state, record)
    await state.store.record_consent(record)
    return record


def apply_consent(state: CallState, record: ConsentRecord) -> None:
    if record.topic == ConsentTopic.CALL_RECORDING and not record.granted:
        state.stop_recording()


def confirmation(record: ConsentRecord) -> str:
    return CONSENT_CONFIRMATIONS[(ConsentTopic(record.topic), record.granted)]


async def order_updates_offer_due(state: CallState, customer: Customer) -> bool:
    """Text updates are offered once, to a customer with a phone number on file."""
    if not customer.phone:
        return False
    return await stored_answer(state, ConsentTopic.ORDER_UPDATES_SMS) is None
