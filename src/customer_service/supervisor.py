"""The supervisor: keeps the conversation, routes work to specialists, enforces policy."""

from __future__ import annotations

import logging
from textwrap import dedent

from livekit.agents import Agent, RunContext, StopResponse, ToolError, function_tool
from livekit.agents.llm import ChatContext

from customer_service import audit, policy
from customer_service.address_changes import apply_address_change, ensure_changeable
from customer_service.call_state import CallState
from customer_service.consents import confirmation as consent_confirmation
from customer_service.consents import obtain_consent, stored_answer
from customer_service.delegation import delegate
from customer_service.domain import Customer, PostalAddress
from customer_service.escalation import escalate
from customer_service.guard import guarded
from customer_service.normalize import normalize_order_id
from customer_service.persona import PERSONA
from customer_service.settings import RecordingConsent
from customer_service.store import StoreUnavailable
from customer_service.tasks.address_update import AddressUpdateTask
from customer_service.tasks.consent import ConsentTopic
from customer_service.tasks.identity import IdentityOutcome, VerifyIdentityTask
from customer_service.tasks.order_lookup import (
    OrderLookupResult,
    OrderLookupTask,
    find_callers_order,
)

logger = logging.getLogger("customer_service.supervisor")

WELCOME = "Hello, thanks for calling."
HOW_CAN_I_HELP = "How can I help you today?"
GREETING = f"{WELCOME} {HOW_CAN_I_HELP}"

SUPERVISOR_INSTRUCTIONS = PERSONA + dedent(
    """
    You lead the call and hand focused work to specialist tools:
    - lookup_order: the caller asks about an order's status, contents, tracking or
      delivery. Pass order_id when the caller has already said the number.
    - update_address: the caller wants an order delivered to a different address. Pass
      order_id when the caller has already said the number.
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

UNKNOWN_CONSENT_TOPIC = "I can only record choices about call recording or text updates."

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
        self.session.say(WELCOME)
        try:
            answer = consent_confirmation(await obtain_consent(state, ConsentTopic.CALL_RECORDING))
        except StopResponse:
            return  # the caller hung up during the question
        except (StoreUnavailable, ToolError, ValueError):
            # Without an answer that is stored and trusted, the call is not recorded.
            state.stop_recording()
            answer = "This call will not be recorded."
        self.session.say(f"Thank you. {answer} {HOW_CAN_I_HELP}")

    @function_tool()
    @guarded()
    async def verify_identity(self, context: RunContext[CallState]) -> str:
        """Verify the caller's identity. Use only when no other tool fits the request."""
        customer = await self._verified_customer(context.userdata)
        return f"Thank you, {customer.full_name}, you are verified."

    @function_tool()
    @guarded()
    async def lookup_order(
        self, context: RunContext[CallState], order_id: str | None = None
    ) -> str:
        """Look up one of the caller's orders: status, contents, tracking, delivery.

        Args:
            order_id: The six-digit order number if the caller already said it, else omit.
        """
        state = context.userdata
        await self._verified_customer(state)
        order = await self._checked(state, order_id)
        state.record_disclosure(order.order_id)
        await audit.record(
            state, "order_disclosed", customer_id=order.customer_id, order_id=order.order_id
        )
        return order.spoken_summary()

    @function_tool()
    @guarded()
    async def update_address(
        self, context: RunContext[CallState], order_id: str | None = None
    ) -> str:
        """Change the delivery address of one of the caller's orders that has not shipped.

        Args:
            order_id: The six-digit order number if the caller already said it, else omit.
        """
        state = context.userdata
        customer = await self._verified_customer(state)
        order = await self._checked(state, order_id)
        ensure_changeable(order)
        address = await self._confirmed_address(state, order.order_id)
        confirmation = await apply_address_change(state, order, address)
        if not await self._should_offer_order_updates(state, customer):
            return confirmation
        # The caller hears the change is done before the text-update question, not after.
        context.session.say(confirmation)
        sms = await self._offer_order_updates(state)
        return f"The new address for order {' '.join(order.order_id)} is saved. {sms}"

    @function_tool()
    @guarded()
    async def request_consent(self, context: RunContext[CallState], topic: str) -> str:
        """Ask the caller a consent question in its fixed wording and record the answer.

        Args:
            topic: "order_updates_sms" or "call_recording".
        """
        state = context.userdata
        try:
            consent_topic = ConsentTopic(topic)
        except ValueError:
            raise ToolError(UNKNOWN_CONSENT_TOPIC) from None
        if consent_topic is ConsentTopic.ORDER_UPDATES_SMS:
            await self._verified_customer(state)
        # The caller asked: a stored answer is theirs to change.
        return consent_confirmation(await obtain_consent(state, consent_topic, ask_again=True))

    @function_tool()
    @guarded(count_repeats=False)
    async def transfer_to_human(self, context: RunContext[CallState], reason: str) -> str:
        """Hand the call to a person. Use when the caller asks for one or accepts the offer.

        Args:
            reason: A few words on why, for the colleague who takes over.
        """
        return await escalate(context.userdata, reason)

    @function_tool()
    @guarded(count_repeats=False)
    async def end_call(self, context: RunContext[CallState]) -> None:
        """End the call after the caller says goodbye or needs nothing else."""
        context.userdata.end()
        await audit.record(context.userdata, "call_ended_by_agent")
        context.session.say("Thank you for calling. Goodbye!")
        context.session.shutdown(drain=True)

    async def _verified_customer(self, state: CallState) -> Customer:
        """The verified caller; runs the identity specialist first when there is none."""
        if state.verified_customer is not None:
            return state.verified_customer
        if state.identity.locked:
            raise ToolError(policy.VERIFICATION_LOCKED)

        async def verify() -> Customer | IdentityOutcome:
            result = await delegate(
                state,
                VerifyIdentityTask(chat_ctx=self._recent_history()),
                is_failure=lambda identity: identity.outcome is not IdentityOutcome.VERIFIED,
            )
            return policy.validated_identity(result, state)

        outcome = await policy.validated_with_retries(state, verify, what="identity")
        if isinstance(outcome, Customer):
            return outcome
        if outcome is IdentityOutcome.LOCKED:
            raise ToolError(policy.VERIFICATION_LOCKED)
        raise ToolError(policy.VERIFICATION_DECLINED)

    async def _checked(self, state: CallState, order_id: str | None) -> OrderLookupResult:
        """The caller's order, validated. A usable number is looked up in code, so a caller
        who already said it is not asked again; otherwise the specialist asks."""
        requested = normalize_order_id(order_id) if order_id is not None else None

        async def look_up() -> OrderLookupResult:
            result: OrderLookupResult
            if requested is not None:
                result = OrderLookupResult.from_order(await find_callers_order(state, requested))
            else:
                result = await delegate(state, OrderLookupTask(chat_ctx=self._recent_history()))
            return await policy.validated_order(result, state, requested_order_id=requested)

        return await policy.validated_with_retries(state, look_up, what="order")

    async def _confirmed_address(self, state: CallState, order_id: str) -> PostalAddress:
        async def collect() -> PostalAddress:
            result = await delegate(
                state, AddressUpdateTask(order_id=order_id, chat_ctx=self._recent_history())
            )
            return policy.validated_address_update(result, order_id)

        return await policy.validated_with_retries(state, collect, what="address")

    async def _should_offer_order_updates(self, state: CallState, customer: Customer) -> bool:
        """Text updates are offered once, to a customer with a phone number on file."""
        if not customer.phone:
            return False
        try:
            return await stored_answer(state, ConsentTopic.ORDER_UPDATES_SMS) is None
        except StoreUnavailable:
            return False

    async def _offer_order_updates(self, state: CallState) -> str:
        try:
            return consent_confirmation(await obtain_consent(state, ConsentTopic.ORDER_UPDATES_SMS))
        except StoreUnavailable:
            return "I couldn't save your text-update choice just now; nothing was set."

    def _recent_history(self) -> ChatContext:
        return self.chat_ctx.copy(
            exclude_instructions=True, exclude_function_call=True, exclude_handoff=True
        ).truncate(max_items=HISTORY_FOR_SPECIALISTS)
