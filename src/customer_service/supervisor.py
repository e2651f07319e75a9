"""The supervisor: keeps the conversation, routes work to specialists, enforces policy."""

from __future__ import annotations

import logging
from textwrap import dedent

from livekit.agents import Agent, RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext

from customer_service import audit, policy
from customer_service.call_state import CallState
from customer_service.delegation import delegate
from customer_service.domain import Customer
from customer_service.normalize import normalize_order_id
from customer_service.persona import PERSONA
from customer_service.tasks.identity import IdentityOutcome, VerifyIdentityTask
from customer_service.tasks.order_lookup import (
    OrderLookupResult,
    OrderLookupTask,
    find_callers_order,
)

logger = logging.getLogger("customer_service.supervisor")

GREETING = "Hello, thanks for calling. How can I help you today?"

SUPERVISOR_INSTRUCTIONS = PERSONA + dedent(
    """
    You lead the call and hand focused work to specialist tools:
    - lookup_order: the caller asks about an order's status, contents, tracking or
      delivery. Pass order_id when the caller has already said the number.
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

HISTORY_FOR_SPECIALISTS = 6
"""Recent turns a specialist sees, so it can use details the caller already gave."""


class CustomerServiceAgent(Agent):
    """The long-lived agent that owns the conversation for the whole call."""

    def __init__(self, *, chat_ctx: ChatContext | None = None) -> None:
        super().__init__(instructions=SUPERVISOR_INSTRUCTIONS, chat_ctx=chat_ctx)

    async def on_enter(self) -> None:
        self.session.say(GREETING)

    @function_tool()
    async def verify_identity(self, context: RunContext[CallState]) -> str:
        """Verify the caller's identity. Use only when no other tool fits the request."""
        customer = await self._verified_customer(context.userdata)
        return f"Thank you, {customer.full_name}, you are verified."

    @function_tool()
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
    async def transfer_to_human(self, context: RunContext[CallState], reason: str) -> str:
        """Hand the call to a person. Use when the caller asks for one or accepts the offer.

        Args:
            reason: A few words on why, for the colleague who takes over.
        """
        state = context.userdata
        customer = state.verified_customer
        await audit.record(
            state,
            "escalation_requested",
            customer_id=customer.customer_id if customer else None,
            reason=reason[:200],
        )
        return (
            "I've passed your call to our support team with a summary of what we covered. "
            "A colleague will contact you shortly."
        )

    @function_tool()
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
        for _ in range(state.settings.result_validation_retries + 1):
            result = await delegate(state, VerifyIdentityTask(chat_ctx=self._recent_history()))
            try:
                outcome = policy.validated_identity(result, state)
            except policy.ResultRejected as rejection:
                logger.error(
                    "identity result rejected",
                    extra={"call_id": state.call_id, "reason": str(rejection)},
                )
                continue
            if isinstance(outcome, Customer):
                return outcome
            if outcome is IdentityOutcome.LOCKED:
                raise ToolError(policy.VERIFICATION_LOCKED)
            raise ToolError(policy.VERIFICATION_DECLINED)
        raise ToolError(policy.RESULT_UNUSABLE)

    async def _checked(self, state: CallState, order_id: str | None) -> OrderLookupResult:
        """The caller's order, validated. A usable number is looked up in code, so a caller
        who already said it is not asked again; otherwise the specialist asks."""
        requested = normalize_order_id(order_id) if order_id is not None else None
        for _ in range(state.settings.result_validation_retries + 1):
            result: OrderLookupResult
            if requested is not None:
                order = await find_callers_order(state, requested)
                result = OrderLookupResult.from_order(order)
            else:
                result = await delegate(state, OrderLookupTask(chat_ctx=self._recent_history()))
            try:
                return await policy.validated_order(result, state, requested_order_id=requested)
            except policy.ResultRejected as rejection:
                logger.error(
                    "order result rejected",
                    extra={"call_id": state.call_id, "reason": str(rejection)},
                )
        raise ToolError(policy.RESULT_UNUSABLE)

    def _recent_history(self) -> ChatContext:
        return self.chat_ctx.copy(
            exclude_instructions=True, exclude_function_call=True, exclude_handoff=True
        ).truncate(max_items=HISTORY_FOR_SPECIALISTS)
