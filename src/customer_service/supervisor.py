"""The supervisor: keeps the conversation, routes work to specialists, enforces policy.

Its specialists' tools are not written here: each specialist's module registers its
supervisor tool (`customer_service.call.registration`), a short recipe of policy calls
(who the caller is, which order, whether it may change, what the specialist returned,
and the write), and the supervisor offers every registered tool and lists it in its
instructions. It lends those tools what is its own (`Desk`): the history, the verified
caller and their order, and the consent questions it owes the caller. Its own tools hand the
call to a person, end it, and put those questions.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, AsyncIterator, Sequence
from dataclasses import dataclass
from textwrap import dedent

from livekit import rtc
from livekit.agents import (
    Agent,
    ModelSettings,
    RunContext,
    StopResponse,
    function_tool,
    llm,
)
from livekit.agents.llm import ChatContext

from customer_service.call.answers import only_reacts
from customer_service.call.code_steps import calls_a_tool, code_step, for_the_model, step_call
from customer_service.call.consent_wording import ConsentTopic
from customer_service.call.empty_replies import (
    Reply,
    never_empty,
    relays_a_tool_result,
    results_to_relay,
)
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.heard import caller_messages
from customer_service.call.latency import FirstWords
from customer_service.call.phrase_cache import say
from customer_service.call.registration import SpecialistRegistration
from customer_service.call.specialist import LeftForNewRequest
from customer_service.call.state import CallState
from customer_service.call.wording import (
    ANYTHING_ELSE,
    GOODBYE,
    GREETING,
    HOW_CAN_I_HELP,
    PERSONA,
    WELCOME,
)
from customer_service.domain import Customer
from customer_service.pipeline.resilience import model_reply
from customer_service.settings import RecordingConsent
from customer_service.specialists import SPECIALISTS
from customer_service.specialists.consent import Consent, obtain_consent
from customer_service.specialists.consent import confirmation as consent_confirmation
from customer_service.specialists.identity import verified_customer
from customer_service.specialists.order_lookup import OrderLookupResult, callers_order
from customer_service.telephony.hangup import start_hang_up
from customer_service.telephony.transfer import hand_to_person

logger = logging.getLogger(__name__)

OWN_TOOLS = dedent(
    """
    - transfer_to_human: the caller asks for a person, or a tool offers a colleague and
      the caller accepts.
    - end_call: the caller says goodbye or needs nothing else.
    """
).strip()
HOW_TO_RELAY = dedent(
    """
    When the caller asked for something else while a tool ran, say what the tool said
    (what was done, or that nothing was changed), then act on the caller's latest words
    at once, as a new request.
    Tool results are facts written for the caller: relay them briefly in your own words,
    then ask if there is anything else. When a tool fails, say what it says and offer
    what it offers. Never state account or order details no tool returned, and never
    call the caller verified unless a tool said so.
    """
).strip()


def supervisor_instructions(specialists: Sequence[SpecialistRegistration]) -> str:
    """The supervisor's prompt: a line for each specialist's tool, then its own tools."""
    routes = "\n".join(registration.instruction_line for registration in specialists)
    return (
        f"{PERSONA}\nYou lead the call and hand focused work to specialist tools:\n"
        f"{routes}\n{OWN_TOOLS}\n{HOW_TO_RELAY}\n"
    )


TEXT_UPDATES_NOT_SET = fixed("I couldn't set up text updates just now, so nothing was set.")
NOT_RECORDED = fixed("This call will not be recorded.")
THANK_YOU = fixed("Thank you.")
"""Before what was decided about the recording the caller answered for."""
NOT_SET = {
    ConsentTopic.CALL_RECORDING: NOT_RECORDED,
    ConsentTopic.ORDER_UPDATES_SMS: TEXT_UPDATES_NOT_SET,
}
"""Said when a question owed to the caller cannot be asked or its answer not kept."""

ASK_OWED_QUESTION = "ask_owed_question"
MAX_PUTS = 3
"""Times a consent question is put to a caller who keeps talking over it; a recording
question never answered leaves the call unrecorded."""


@dataclass
class OwedQuestion:
    """A consent question the supervisor puts once a reply of its own has played, so the
    caller's words are answered before it."""

    topic: ConsentTopic
    puts: int = 0
    after_output_of: str | None = None
    """The tool call whose output leads in to the question: said in its spoken form
    (`lead_in`), then the question, with no model turn between them."""
    lead_in: str = ""
    """The caller's version of that output: for the ear, stored text not quoted."""


HISTORY_FOR_SPECIALISTS = 6
"""Recent turns a specialist sees, so it can use details the caller already gave."""


class CustomerServiceAgent(Agent):
    """The long-lived agent that owns the conversation for the whole call; the `Desk` of
    every specialist's supervisor tool."""

    def __init__(
        self,
        *,
        chat_ctx: ChatContext | None = None,
        specialists: Sequence[SpecialistRegistration] | None = None,
    ) -> None:
        """`specialists`: every registered one unless given."""
        specialists = SPECIALISTS if specialists is None else specialists
        super().__init__(
            instructions=supervisor_instructions(specialists),
            chat_ctx=chat_ctx,
            tools=[registration.bound_to(self) for registration in specialists],
        )
        self._owed: list[OwedQuestion] = []

    async def on_enter(self) -> None:
        state: CallState = self.session.userdata
        if state.settings.recording_consent != RecordingConsent.ASK:
            say(self.session, GREETING)
            return
        recording = OwedQuestion(ConsentTopic.CALL_RECORDING)
        try:
            await self._put(recording, lead_in=WELCOME, closing=HOW_CAN_I_HELP)
        except StopResponse:
            return  # the caller hung up during the question

    async def llm_node(
        self, chat_ctx: llm.ChatContext, tools: list[llm.Tool], model_settings: ModelSettings
    ) -> Reply:
        chat_ctx, tools = for_the_model(chat_ctx, tools)
        # A question owed to the caller follows a reply that answers them: one that calls
        # no tool of its own (and is allowed to call the step at all).
        can_ask = self._owed and model_settings.tool_choice != "none"
        owed = self._owed[0] if can_ask else None
        if owed and _relays_only(chat_ctx, owed.after_output_of):
            # The tool's own words, then the question: no model turn, and no "anything
            # else?" before a question.
            owed.after_output_of = None
            yield owed.lead_in
            yield step_call(ASK_OWED_QUESTION)
            return
        if owed and _only_reacts(chat_ctx):
            # "Thank you" over what led to the question: nothing to answer, so the
            # question comes instead of a reply, not after one.
            yield step_call(ASK_OWED_QUESTION)
            return

        # A tool's result the model fails to relay is said by code: a change made is
        # never heard as "could you say that again?".
        results = results_to_relay(chat_ctx)

        def reply_from_model() -> Reply:
            return model_reply(self, chat_ctx, tools, model_settings, instead_of_apology=results)

        reply = reply_from_model()
        if owed is None:
            # An empty reply is followed by the owed question when there is one; else it
            # says something itself.
            again = reply_from_model if relays_a_tool_result(chat_ctx) else None
            reply = never_empty(reply, ask_again=again)
        asking = owed is not None
        first_words = self.session.userdata.first_words  # the call's `CallState`
        async for chunk in first_words.reply(reply, chat_ctx=chat_ctx):
            asking = asking and not calls_a_tool(chunk)
            yield chunk
        if asking:
            yield step_call(ASK_OWED_QUESTION)

    def tts_node(
        self, text: AsyncIterable[str], model_settings: ModelSettings
    ) -> AsyncIterator[rtc.AudioFrame]:
        first_words: FirstWords = self.session.userdata.first_words  # the call's `CallState`
        return first_words.audio(self, text, model_settings)

    @function_tool()
    @code_step
    @guarded(count_repeats=False, one_at_a_time=True, notice_if_slow=False)
    async def ask_owed_question(self, context: RunContext[CallState]) -> None:
        """Never offered to the model: puts the questions owed to the caller, once the
        reply before this step has played (a caller who cuts it off cancels the step)."""
        await context.wait_for_playout()
        if context.speech_handle.interrupted:
            return  # cut off by the caller: their words come first, the question stays owed
        while self._owed:
            if not await self._put(self._owed.pop(0), closing=ANYTHING_ELSE):
                return

    @function_tool()
    @guarded(count_repeats=False, notice_if_slow=False)
    async def transfer_to_human(self, context: RunContext[CallState], reason: str) -> str | None:
        """Hand the call to a person. Use when the caller asks for one or accepts the offer.

        Args:
            reason: A few words on why, for the colleague who takes over.
        """
        # A phone caller is put through (nothing more to say); anyone else, or a transfer
        # that failed, hears what happens next and is offered the end of the call.
        return await hand_to_person(context.session, reason)

    @function_tool()
    @guarded(count_repeats=False, notice_if_slow=False)
    async def end_call(self, context: RunContext[CallState]) -> None:
        """End the call after the caller says goodbye or needs nothing else."""
        # Not awaited: the caller's words over the goodbye are a turn, and a turn waits for
        # the tool that is running. The call ends once the goodbye has played in full.
        start_hang_up(context.session, GOODBYE)

    async def verified_caller(self, state: CallState) -> Customer:
        """The verified caller, verifying them first if needed."""
        return await verified_customer(state, self.recent_history())

    async def callers_order(
        self, state: CallState, order_id: str | None, *, disclosing: bool = False
    ) -> tuple[Customer, OrderLookupResult]:
        """The verified caller (verifying them first if needed) and their order, checked
        (and its disclosure recorded when `disclosing`)."""
        # The caller's words that asked for this, before any verification answers them.
        asked = caller_messages(self.chat_ctx)
        request = asked[-1].text_content if asked else None
        customer = await self.verified_caller(state)
        order = await callers_order(
            state, order_id, self.recent_history(), disclosing=disclosing, request=request
        )
        return customer, order

    def owe_question(
        self, topic: ConsentTopic, *, after_output_of: str | None = None, lead_in: str = ""
    ) -> None:
        self._owed.append(OwedQuestion(topic, after_output_of=after_output_of, lead_in=lead_in))

    def asked_now(self, topic: ConsentTopic) -> None:
        self._owed = [owed for owed in self._owed if owed.topic is not topic]

    def answer_first(self, topic: ConsentTopic) -> None:
        # Put once already, talked over: the caller's words first.
        self._answer_first(OwedQuestion(topic, puts=1))

    def recent_history(self) -> ChatContext:
        return self.chat_ctx.copy(
            exclude_instructions=True, exclude_function_call=True, exclude_handoff=True
        ).truncate(max_items=HISTORY_FOR_SPECIALISTS)

    async def _put(self, owed: OwedQuestion, *, closing: str, lead_in: str = "") -> bool:
        """Puts an owed consent question to the caller now and says what was decided.
        False when the caller talked over it: their words get a reply first, and the
        question is owed again. Whatever happens here, nothing saved before it is undone."""
        state: CallState = self.session.userdata
        owed.puts += 1
        thanks = f"{THANK_YOU} " if owed.topic is ConsentTopic.CALL_RECORDING else ""
        consent: Consent | None = None
        try:
            consent = await obtain_consent(state, owed.topic, ask_again=True, lead_in=lead_in)
        except StopResponse:
            # Never asked (the caller's words came first) or nobody is left to hear it.
            owed.puts -= 1
            self._owed.insert(0, owed)
            raise
        except LeftForNewRequest:
            # The caller asked for something else instead of answering: nothing is set,
            # and their request is answered now, the question not put again.
            if owed.topic is ConsentTopic.CALL_RECORDING:
                state.stop_recording()
            self._answer_first(None)
            return False
        except Exception as error:
            # A tripped bound, an outage or a bad answer costs the question, nothing else.
            logger.warning(
                "consent question failed",
                extra={"call_id": state.call_id, "error": type(error).__name__},
            )
        recording = owed.topic is ConsentTopic.CALL_RECORDING
        if consent is None:
            if recording:
                state.stop_recording()  # without a stored, trusted answer, no recording
            say(self.session, f"{thanks}{NOT_SET[owed.topic]} {closing}")
            return True
        if consent.spoken_over:
            if recording:
                state.stop_recording()  # not recorded unless the caller says yes
            self._answer_first(owed if owed.puts < MAX_PUTS else None)
            return False
        say(self.session, f"{thanks}{consent_confirmation(consent)} {closing}")
        return True

    def _answer_first(self, owed: OwedQuestion | None) -> None:
        """The caller talked over a question: their words (in the history now) get a
        real reply, and the question, if still `owed`, is put after it."""
        if owed is not None:
            self._owed.insert(0, owed)
        self.session.generate_reply(tool_choice="auto")


def _only_reacts(chat_ctx: ChatContext) -> bool:
    """Whether the reply asked for answers caller's words that only react to a statement
    they heard (`answers.only_reacts`): a yes to a question is an answer."""
    messages = [item for item in chat_ctx.items if isinstance(item, llm.ChatMessage)]
    if len(messages) < 2 or chat_ctx.items[-1] is not messages[-1]:
        return False
    heard, said = messages[-2], messages[-1]
    asked = heard.role == "assistant" and (heard.text_content or "").rstrip().endswith("?")
    return said.role == "user" and not asked and only_reacts(said.text_content or "")


def _relays_only(chat_ctx: ChatContext, call_id: str | None) -> bool:
    """Whether the new results this reply relays are the successful output of tool call
    `call_id` (and any duplicates of it)."""
    outputs = []
    for item in reversed(chat_ctx.items):
        if not isinstance(item, llm.FunctionCallOutput):
            break
        outputs.append(item)
    owed = [output for output in outputs if output.call_id == call_id]
    if call_id is None or len(owed) != 1 or owed[0].is_error:
        return False
    # A duplicate of the same call in the same reply gets the same output (`guard`).
    return all(output.output == owed[0].output for output in outputs)
