"""Consent: one question in fixed, versioned wording, and an answer recorded only when clear.

The task speaks the question itself. Only the caller's own words begun after it finished
playing answer it, and whether they are an explicit yes or no is read in code; the
model's `granted` must agree. An acknowledgement ("okay, thanks") answers nothing: the
question is put again briefly. An unclear answer is never stored as a yes or a no. Words
the caller began before the question was heard are no answer either: the task ends at
once without one (`ConsentAnswer.SPOKEN_OVER`), so that the supervisor can reply to
them before the question is put again. A stored answer to the current wording is reused
(`obtain_consent`) unless the caller asks to change it; a new wording version asks again.

Here the asking and the registration; `answer.py` the answer, on record and stored;
`reading.py` what the caller's words decide in code; `expected.py` a scenario's part.
"""

from __future__ import annotations

import datetime as dt
from textwrap import dedent

from livekit.agents import ModelSettings, RunContext, function_tool, llm
from livekit.agents.llm import ToolFlag
from pydantic import JsonValue

from customer_service.call.answers import declines_outright, polarity
from customer_service.call.code_steps import code_step, for_the_model, step_call
from customer_service.call.consent_wording import CONSENT_CONFIRMATIONS as CONSENT_CONFIRMATIONS
from customer_service.call.consent_wording import CONSENT_WORDING as CONSENT_WORDING
from customer_service.call.consent_wording import UNCLEAR_CONFIRMATIONS as UNCLEAR_CONFIRMATIONS
from customer_service.call.consent_wording import ConsentTopic as ConsentTopic
from customer_service.call.consent_wording import ConsentTopicChoice, ConsentWording, consent_topic
from customer_service.call.delegation import delegate
from customer_service.call.empty_replies import Reply
from customer_service.call.guard import guarded
from customer_service.call.heard import SpokenQuestion, caller_messages
from customer_service.call.registration import Desk, supervisor_tool
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import PERSONA, STILL_THERE
from customer_service.specialists.consent.answer import Consent as Consent
from customer_service.specialists.consent.answer import (
    ConsentAnswer,
    ConsentResult,
    applied,
    checked_answer,
    declined_unasked,
    store_answer,
    stored_answer,
)
from customer_service.specialists.consent.answer import confirmation as confirmation
from customer_service.specialists.consent.answer import (
    order_updates_offer_due as order_updates_offer_due,
)
from customer_service.specialists.consent.expected import CONSENTS_STORED
from customer_service.specialists.consent.reading import (
    IS_THAT_A_YES,
    MAX_ANSWERS,
    SETTLE,
    answers_heard,
    decided_in_code,
    unclear_after_the_last_answer,
)


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
        self, chat_ctx: llm.ChatContext, tools: list[llm.Tool], model_settings: ModelSettings
    ) -> Reply:
        step = decided_in_code(self._question, chat_ctx)
        if step is not None:
            yield step_call(SETTLE, step=step)
            return
        answers = answers_heard(chat_ctx)
        chat_ctx, tools = for_the_model(chat_ctx, tools)
        reply = super().llm_node(chat_ctx, tools, model_settings)
        async for chunk in unclear_after_the_last_answer(reply, answers):
            yield chunk

    def _unclear_answer(self) -> None:
        if answers_heard(self.chat_ctx) >= MAX_ANSWERS:
            self.finish(self._result(ConsentAnswer.UNCLEAR))
        else:
            self._question.ask(self._wording.question)

    def _result(self, answer: ConsentAnswer) -> ConsentResult:
        return ConsentResult(
            topic=self._topic,
            answer=answer,
            wording_version=self._wording.version,
            asked_at=self._asked_at or self.session.userdata.clock.now(),
        )


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
        return applied(state, Consent(topic=topic, record=existing))
    state.consent_topics_asked.add(topic.value)
    # Only a no is taken unasked: a yes is given to the question's exact words.
    result = (
        declined_unasked(state, topic)
        if said_no
        else await delegate(state, ConsentTask(topic, lead_in=lead_in))
    )
    answer = checked_answer(state, result, topic)
    if answer.answer is ConsentAnswer.SPOKEN_OVER:
        return Consent(topic=topic, record=None, spoken_over=True)
    return applied(state, Consent(topic=topic, record=await store_answer(state, answer)))


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
    expects=CONSENTS_STORED,
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
