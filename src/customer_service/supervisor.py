"""The supervisor: keeps the conversation, routes work to specialists, enforces policy.

Each tool is a short recipe of policy calls: who the caller is, which order, whether
it may change, what the specialist returned, and the write. The checks and the writes
themselves live with their specialist in `customer_service.specialists`.
"""

from __future__ import annotations

import logging
from textwrap import dedent

from livekit.agents import Agent, RunContext, StopResponse, ToolError, function_tool
from livekit.agents.llm import ChatContext

from customer_service.call.guard import guarded
from customer_service.call.state import CallState
from customer_service.call.wording import (
    GOODBYE,
    GREETING,
    HOW_CAN_I_HELP,
    PERSONA,
    WELCOME,
    spaced_digits,
)
from customer_service.domain import Customer
from customer_service.settings import RecordingConsent
from customer_service.specialists.address_update import (
    SavedAddress,
    apply_address_change,
    confirmed_address,
    ensure_changeable,
)
from customer_service.specialists.cancellation import (
    apply_cancellation,
    confirmed_cancellation,
    ensure_cancellable,
)
from customer_service.specialists.consent import (
    ConsentTopic,
    ConsentTopicChoice,
    consent_topic,
    obtain_consent,
    order_updates_offer_due,
)
from customer_service.specialists.consent import confirmation as consent_confirmation
from customer_service.specialists.identity import verified_customer
from customer_service.specialists.order_lookup import (
    OrderLookupResult,
    callers_order,
    disclosed,
)
from customer_service.store import StoreUnavailable
from customer_service.telephony.hangup import start_hang_up
from customer_service.telephony.transfer import hand_to_person

logger = logging.getLogger(__name__)

SUPERVISOR_INSTRUCTIONS = PERSONA + dedent(
    """
    You lead the call and hand focused work to specialist tools:
    - lookup_order: the caller asks about an order's status, contents, tracking or
      delivery. Pass order_id when the caller has already said the number.
    - update_address: the caller wants an order delivered to a different address. Pass
      order_id when the caller has already said the number.
    - cancel_order: the caller wants to cancel an order. Pass order_id when the caller
      has already said the number.
    - request_consent: only when the caller asks to change their text-update preference
      (topic order_updates_sms) or their call-recording choice (topic call_recording).
    - verify_identity: the caller wants something done on their account and nothing
      else fits. Other tools verify the caller themselves when needed.
    - transfer_to_human: the caller asks for a person, or a tool offers a colleague and
      the caller accepts.
    - end_call: the caller says goodbye or needs nothing else.
    Tool results are facts written for the caller: relay them briefly in your own words,
    then ask if there is anything else. When a tool fails, say what it says and offer
    what it offers. Never state account or order details no tool returned, and never
    call the caller verified unless a tool said so.
    """
)

TEXT_UPDATES_NOT_SET = "I couldn't set up text updates just now; nothing was set."
NOT_RECORDED = "This call will not be recorded."
ANSWER_EARLIER_WORDS = (
    "The caller spoke before the recording question was finished. Reply to what they "
    "said then; do not ask how you can help."
)
EARLIER_WORDS_PENDING = (
    "The caller also said something during the text-update question; reply to it now."
)

HISTORY_FOR_SPECIALISTS = 6
"""Recent turns a specialist sees, so it can use details the caller already gave."""


class CustomerServiceAgent(Agent):
    """The long-lived agent that owns the conversation for the whole call."""

    def __init__(self, *, chat_ctx: ChatContext | None = None) -> None:
        super().__init__(instructions=SUPERVISOR_INSTRUCTIONS, chat_ctx=chat_ctx)

    async def on_enter(self) -> None:
        state: CallState = self.session.userdata
        if state.settings.recording_consent != RecordingConsent.ASK:
            self.session.say(GREETING)
            return
        try:
            consent = await obtain_consent(state, ConsentTopic.CALL_RECORDING, lead_in=WELCOME)
        except StopResponse:
            return  # the caller hung up during the question
        except (StoreUnavailable, ToolError, ValueError):
            # Without an answer that is stored and trusted, the call is not recorded.
            state.stop_recording()
            self.session.say(f"Thank you. {NOT_RECORDED} {HOW_CAN_I_HELP}")
            return
        if not consent.caller_spoke_first:
            self.session.say(f"Thank you. {consent_confirmation(consent)} {HOW_CAN_I_HELP}")
            return
        # The caller spoke before the question: their words are in the history, and the
        # reply answers them instead of asking how to help.
        self.session.say(f"Thank you. {consent_confirmation(consent)}")
        self.session.generate_reply(instructions=ANSWER_EARLIER_WORDS)

    @function_tool()
    @guarded(one_at_a_time=True)
    async def verify_identity(self, context: RunContext[CallState]) -> str:
        """Verify the caller's identity. Use only when no other tool fits the request."""
        customer = await verified_customer(context.userdata, self._recent_history())
        return f"Thank you, {customer.full_name}, you are verified."

    @function_tool()
    @guarded(one_at_a_time=True)
    async def lookup_order(
        self, context: RunContext[CallState], order_id: str | None = None
    ) -> str:
        """Look up one of the caller's orders: status, contents, tracking, delivery.

        Args:
            order_id: The six-digit order number if the caller already said it, else omit.
        """
        state = context.userdata
        _, order = await self._callers_order(state, order_id, disclosing=True)
        return disclosed(state, order)

    @function_tool()
    @guarded(one_at_a_time=True)
    async def update_address(
        self, context: RunContext[CallState], order_id: str | None = None
    ) -> str:
        """Change the delivery address of one of the caller's orders that has not shipped.

        Args:
            order_id: The six-digit order number if the caller already said it, else omit.
        """
        state = context.userdata
        customer, order = await self._callers_order(state, order_id)
        ensure_changeable(order)
        address = await confirmed_address(state, order.order_id, self._recent_history())
        saved = await apply_address_change(state, order, address)
        # The change is committed: nothing after this line may report it as failed.
        return await self._offer_text_updates(context, customer, saved, order.order_id)

    @function_tool()
    @guarded(one_at_a_time=True)
    async def cancel_order(
        self, context: RunContext[CallState], order_id: str | None = None
    ) -> str:
        """Cancel one of the caller's orders that has not shipped yet.

        Args:
            order_id: The six-digit order number if the caller already said it, else omit.
        """
        state = context.userdata
        _, order = await self._callers_order(state, order_id, disclosing=True)
        ensure_cancellable(order)
        await confirmed_cancellation(state, order)
        return await apply_cancellation(state, order)

    @function_tool()
    @guarded(one_at_a_time=True)
    async def request_consent(
        self, context: RunContext[CallState], topic: ConsentTopicChoice
    ) -> str:
        """Ask the caller a consent question in its fixed wording and record the answer.

        Args:
            topic: order_updates_sms for text updates about orders, call_recording for
                recording this call.
        """
        state = context.userdata
        chosen = consent_topic(topic)
        if chosen is ConsentTopic.ORDER_UPDATES_SMS:
            await verified_customer(state, self._recent_history())
        # The caller asked: a stored answer is theirs to change.
        return consent_confirmation(await obtain_consent(state, chosen, ask_again=True))

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

    async def _callers_order(
        self, state: CallState, order_id: str | None, *, disclosing: bool = False
    ) -> tuple[Customer, OrderLookupResult]:
        """The verified caller (verifying them first if needed) and their order, checked
        (and its disclosure recorded when `disclosing`)."""
        customer = await verified_customer(state, self._recent_history())
        order = await callers_order(state, order_id, self._recent_history(), disclosing=disclosing)
        return customer, order

    async def _offer_text_updates(
        self,
        context: RunContext[CallState],
        customer: Customer,
        saved: SavedAddress,
        order_id: str,
    ) -> str:
        """Offers text updates once after a saved change. Whatever happens to the offer,
        the model hears that the change was saved."""
        state = context.userdata
        saved_summary = f"The new address for order {spaced_digits(order_id)} is saved."
        try:
            if not await order_updates_offer_due(state, customer):
                return saved.reported
        except StoreUnavailable:
            return saved.reported
        try:
            # The confirmation leads in to the question, spoken by the consent task itself:
            # the caller's words over it are then heard, not dropped in the hand-over.
            # Asked without a second look at the stored answer: the offer is due, and an
            # answer another call stores meanwhile must not swallow the confirmation.
            consent = await obtain_consent(
                state, ConsentTopic.ORDER_UPDATES_SMS, ask_again=True, lead_in=saved.spoken
            )
        except StopResponse:
            raise  # the caller hung up; nobody is left to hear a reply
        except Exception as error:
            # A tripped bound, an outage or a bad answer costs the offer, not the change.
            logger.warning(
                "text-update offer failed after a saved change",
                extra={"call_id": state.call_id, "error": type(error).__name__},
            )
            return f"{saved_summary} {TEXT_UPDATES_NOT_SET}"
        summary = f"{saved_summary} {consent_confirmation(consent)}"
        if consent.caller_spoke_first:
            return f"{summary} {EARLIER_WORDS_PENDING}"
        return summary

    def _recent_history(self) -> ChatContext:
        return self.chat_ctx.copy(
            exclude_instructions=True, exclude_function_call=True, exclude_handoff=True
        ).truncate(max_items=HISTORY_FOR_SPECIALISTS)
