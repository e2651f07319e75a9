"""Consent: one question in fixed, versioned wording, and an answer recorded only when clear.

The task speaks the question itself. Only the caller's own words begun after it finished
playing answer it, and whether they are an explicit yes or no is read in code; the
model's `granted` must agree. An acknowledgement ("okay, thanks") answers nothing: the
question is put again briefly. An unclear answer is never stored as a yes or a no. Words
the caller began before the question was heard are no answer either: the task ends at
once without one (`ConsentAnswer.SPOKEN_OVER`), so that the supervisor can reply to
them before the question is put again. A stored answer to the current wording is reused
(`obtain_consent`) unless the caller asks to change it; a new wording version asks again.
"""

from __future__ import annotations

import datetime as dt
import enum
import logging
from collections.abc import AsyncIterable
from dataclasses import dataclass
from textwrap import dedent

from livekit.agents import FlushSentinel, ModelSettings, RunContext, function_tool, llm
from livekit.agents.llm import ToolFlag
from pydantic import AwareDatetime, BaseModel, ConfigDict, JsonValue

from customer_service.call import audit
from customer_service.call.answers import acknowledgement_only, declines_outright, polarity
from customer_service.call.code_steps import calls_a_tool, code_step, for_the_model, step_call
from customer_service.call.consent_wording import CONSENT_CONFIRMATIONS as CONSENT_CONFIRMATIONS
from customer_service.call.consent_wording import CONSENT_WORDING as CONSENT_WORDING
from customer_service.call.consent_wording import UNCLEAR_CONFIRMATIONS as UNCLEAR_CONFIRMATIONS
from customer_service.call.consent_wording import ConsentTopic as ConsentTopic
from customer_service.call.consent_wording import ConsentTopicChoice, ConsentWording, consent_topic
from customer_service.call.delegation import ResultRejected, delegate
from customer_service.call.guard import guarded
from customer_service.call.heard import SpokenQuestion, caller_messages
from customer_service.call.registration import Desk, supervisor_tool
from customer_service.call.run_check_write import well_formed, write_once
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import PERSONA, STILL_THERE
from customer_service.domain import Customer
from customer_service.store import AuditEvent, ConsentRecord

logger = logging.getLogger(__name__)

MAX_ANSWERS = 2
"""Answers to the question the task will hear: an unclear one is asked again once, no
more."""
SETTLE = "settle_in_code"
IS_THAT_A_YES = "is_that_a_yes"


class ConsentAnswer(enum.StrEnum):
    GRANTED = "granted"
    DECLINED = "declined"
    UNCLEAR = "unclear"
    """No clear yes or no: nothing is stored, and nothing is granted."""
    SPOKEN_OVER = "spoken_over"
    """The caller spoke before the question was heard: not answered, nothing is stored,
    and their words still need a reply before the question is put again."""


class ConsentResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    topic: ConsentTopic
    answer: ConsentAnswer
    wording_version: str
    asked_at: AwareDatetime


def consent_instructions(wording: ConsentWording) -> str:
    return PERSONA + dedent(
        f"""
        You have just asked the caller exactly this: "{wording.question}"
        If the caller clearly says yes, call record_consent with granted true. If they
        clearly say no, call record_consent with granted false. If they want to skip the
        question, call give_up. If the answer is anything else, repeat the question in
        the same words. Never reword it, never persuade, and never treat a question or a
        condition as a yes.
        """
    )


class ConsentTask(Specialist[ConsentResult]):
    """Asks one consent question itself and returns the caller's answer, read in code
    from the caller's own words after the question finished playing."""

    def __init__(self, topic: ConsentTopic, *, lead_in: str = "") -> None:
        self._topic = topic
        self._wording = CONSENT_WORDING[topic]
        self._lead_in = lead_in
        # When the question starts playing (`opening`), on the call's clock.
        self._asked_at: dt.datetime | None = None
        # No earlier history: a "yes" said to something else must not answer this.
        super().__init__(instructions=consent_instructions(self._wording))
        self._question = SpokenQuestion(self)

    def collected(self) -> dict[str, JsonValue]:
        return {"consent_topic": self._topic.value}

    def nudge(self) -> None:
        # The question itself, in its fixed words: only its asking can be answered.
        self._question.ask(f"{STILL_THERE} {self._wording.question}")

    async def opening(self) -> None:
        self._asked_at = self.session.userdata.clock.now()
        # Whatever leads in is spoken by the task itself: while a tool's own speech plays
        # and a task starts, the framework drops the caller's words.
        self._question.ask(f"{self._lead_in} {self._wording.question}".strip())

    @function_tool()
    # Its argument is the caller's answer: a third yes in a call is still a yes.
    @guarded(count_repeats=False)
    async def record_consent(self, context: RunContext[CallState], granted: bool) -> None:
        """Record the caller's clear yes or no to the question you asked.

        Args:
            granted: True for a clear yes, false for a clear no.
        """
        answer = self._question.answer() if self._question.heard else None
        said = polarity(answer) if answer is not None else None
        if said is None or said is not granted:
            # The caller's own words decide; the model's reading of them does not.
            self._unclear_answer()
            return None
        self.finish(self._result(ConsentAnswer.GRANTED if said else ConsentAnswer.DECLINED))

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller will not answer or wants to skip the question."""
        self.finish(self._result(ConsentAnswer.UNCLEAR))

    @function_tool()
    @code_step
    @guarded(count_repeats=False)
    async def settle_in_code(self, context: RunContext[CallState], step: str) -> None:
        """Never offered to the model: what `llm_node` decided in code, taken once the
        caller's turn is in the history."""
        if step == IS_THAT_A_YES:
            self._question.ask(self._wording.is_that_a_yes)
        elif step in (ConsentAnswer.SPOKEN_OVER, ConsentAnswer.UNCLEAR):
            self.finish(self._result(ConsentAnswer(step)))

    async def llm_node(
        self,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool],
        model_settings: ModelSettings,
    ) -> AsyncIterable[llm.ChatChunk | str | FlushSentinel]:
        if self._question.spoke_over(chat_ctx):
            # Words said before the question was heard answer nothing, and they may ask
            # for something this task cannot give: the task ends, the words go back to
            # the supervisor in its history, and it replies before asking again.
            yield step_call(SETTLE, step=ConsentAnswer.SPOKEN_OVER)
            return
        answers = self._answers_heard(chat_ctx)
        latest = caller_messages(chat_ctx)[-1:]
        if (
            self._question.heard
            and latest
            and acknowledgement_only(latest[0].text_content or "")
            and answers < MAX_ANSWERS
        ):
            # "Okay, thanks" after the question: heard, but not answered. Asked briefly,
            # in code, whatever the model would make of it.
            yield step_call(SETTLE, step=IS_THAT_A_YES)
            return
        chat_ctx, tools = for_the_model(chat_ctx, tools)
        stream = super().llm_node(chat_ctx, tools, model_settings)
        if answers < MAX_ANSWERS:
            async for chunk in stream:
                yield chunk
            return
        # The last answer the task will hear: hold the reply until it is clear whether
        # the model recorded an answer or is about to ask a third time.
        chunks = [chunk async for chunk in stream]
        if not any(calls_a_tool(chunk) for chunk in chunks):
            # Asked twice without a clear answer: unclear, and no third asking.
            yield step_call(SETTLE, step=ConsentAnswer.UNCLEAR)
            return
        for chunk in chunks:
            yield chunk

    def _unclear_answer(self) -> None:
        if self._answers_heard(self.chat_ctx) >= MAX_ANSWERS:
            self.finish(self._result(ConsentAnswer.UNCLEAR))
        else:
            self._question.ask(self._wording.question)

    def _answers_heard(self, history: llm.ChatContext) -> int:
        # The task starts without earlier history, and words spoken over its question
        # end it: every caller message here answered an asking that was heard.
        return len(caller_messages(history))

    def _result(self, answer: ConsentAnswer) -> ConsentResult:
        return ConsentResult(
            topic=self._topic,
            answer=answer,
            wording_version=self._wording.version,
            asked_at=self._asked_at or self.session.userdata.clock.now(),
        )


@dataclass(frozen=True)
class Consent:
    """The answer in force after asking (or finding it on record)."""

    topic: ConsentTopic
    record: ConsentRecord | None
    """None when the caller gave no clear answer: nothing was stored or granted."""
    spoken_over: bool = False
    """The caller spoke before the question was heard: it is not answered yet, nothing
    was stored or applied, and their words still need a reply."""

    @property
    def granted(self) -> bool:
        return self.record is not None and self.record.granted


async def stored_answer(state: CallState, topic: ConsentTopic) -> ConsentRecord | None:
    """The answer on record to the current wording of the question: with the customer
    once verified, else with the call. An answer to older wording is not reused."""
    customer = state.verified_customer
    if customer is not None:
        record = await state.store.latest_consent(topic=topic, customer_id=customer.customer_id)
    else:
        record = await state.store.latest_consent(topic=topic, call_id=state.call_id)
    if record is None or record.wording_version != CONSENT_WORDING[topic].version:
        return None
    return record


async def obtain_consent(
    state: CallState,
    topic: ConsentTopic,
    *,
    ask_again: bool = False,
    lead_in: str = "",
    said_no: bool = False,
) -> Consent:
    """The caller's answer: on record for this wording (unless `ask_again`), a no they
    said outright (`said_no`, read from their words by the caller), else asked now after
    `lead_in` and stored when clear; `spoken_over` when the caller talked over the
    question (nothing stored or applied). Raises StoreUnavailable if it cannot be stored."""
    if not ask_again and (existing := await stored_answer(state, topic)) is not None:
        consent = Consent(topic=topic, record=existing)
        apply_consent(state, consent)
        return consent
    state.consent_topics_asked.add(topic.value)
    # Only a no is taken unasked: a yes is given to the question's exact words.
    version, now = CONSENT_WORDING[topic].version, state.clock.now()
    result = (
        ConsentResult(
            topic=topic, answer=ConsentAnswer.DECLINED, wording_version=version, asked_at=now
        )
        if said_no
        else await delegate(state, ConsentTask(topic, lead_in=lead_in))
    )
    try:
        answer = well_formed(ConsentResult, result, what="consent")
        if answer.topic is not topic:
            raise ResultRejected("consent result is for another topic")
    except ResultRejected as rejection:
        # An answer that cannot be trusted is no answer: record nothing, grant nothing,
        # and the question is not put again.
        logger.error(
            "consent result rejected", extra={"call_id": state.call_id, "reason": str(rejection)}
        )
        raise ValueError("consent result does not answer the question asked") from None
    if answer.answer is ConsentAnswer.SPOKEN_OVER:
        return Consent(topic=topic, record=None, spoken_over=True)
    consent = Consent(topic=topic, record=await _stored(state, answer))
    apply_consent(state, consent)
    return consent


async def _stored(state: CallState, answer: ConsentResult) -> ConsentRecord | None:
    """Stores a clear answer; an unclear one is only audited, never stored as a no."""
    if answer.answer is ConsentAnswer.UNCLEAR:
        await audit.record(
            state,
            "consent_unclear",
            topic=answer.topic.value,
            wording_version=answer.wording_version,
        )
        return None
    customer = state.verified_customer
    record = ConsentRecord(
        topic=answer.topic,
        granted=answer.answer is ConsentAnswer.GRANTED,
        wording_version=answer.wording_version,
        asked_at=answer.asked_at,
        call_id=state.call_id,
        customer_id=customer.customer_id if customer else None,
    )

    async def store(kept: list[AuditEvent]) -> None:
        await state.store.record_consent(record, kept)

    await write_once(state, store)
    return record


def apply_consent(state: CallState, consent: Consent) -> None:
    if consent.topic is ConsentTopic.CALL_RECORDING:
        if consent.granted:
            state.allow_recording()
        else:
            state.stop_recording()


def confirmation(consent: Consent) -> str:
    if consent.record is None:
        return UNCLEAR_CONFIRMATIONS[consent.topic]
    return CONSENT_CONFIRMATIONS[(consent.topic, consent.record.granted)]


async def order_updates_offer_due(state: CallState, customer: Customer) -> bool:
    """Text updates are offered once per call and wording, to a customer with a phone
    on file."""
    if not customer.phone or ConsentTopic.ORDER_UPDATES_SMS.value in state.consent_topics_asked:
        return False
    return await stored_answer(state, ConsentTopic.ORDER_UPDATES_SMS) is None


@supervisor_tool(
    ConsentTask,
    ConsentResult,
    when_to_use=(
        "only when the caller asks to change their text-update preference (topic "
        "order_updates_sms) or their call-recording choice (topic call_recording)."
    ),
    writes="consent_recorded",
    plain_name="Consent question",
    explains="The caller's yes or no to text updates or call recording.",
)
async def request_consent(
    desk: Desk,
    context: RunContext[CallState],
    topic: ConsentTopicChoice,
    caller_said_no: bool = False,
) -> str | None:
    """Record the caller's consent choice: a no they said outright ("stop texting me")
    is recorded as said; otherwise the question is asked in its fixed wording.

    Args:
        topic: order_updates_sms for text updates about orders, call_recording for
            recording this call.
        caller_said_no: True when the caller's own words already refuse it.
    """
    state = context.userdata
    chosen = consent_topic(topic)
    # Read before any identity check adds lines: the words that asked for this.
    asking = caller_messages(desk.chat_ctx)[-1:]
    said_no = caller_said_no and bool(asking) and declines_outright(asking[0].text_content or "")
    if chosen is ConsentTopic.ORDER_UPDATES_SMS:
        # Text updates go to the phone on the caller's own account.
        await desk.verified_caller(state)
    # Asked now, at the caller's request: no longer owed for later.
    desk.asked_now(chosen)
    # The caller asked: a stored answer is theirs to change.
    consent = await obtain_consent(state, chosen, ask_again=True, said_no=said_no)
    if consent.spoken_over:
        desk.answer_first(chosen)
        return None
    return confirmation(consent)
