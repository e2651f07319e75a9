"""Order cancellation: asks why, reads the order and its refund back, and cancels it only
on the caller's clear yes.

The task changes nothing itself. It names the order's items and asks the reason, one of
the two the store takes (`CancelReason`); `record_cancellation_reason` reads back the
order, the reason and how the money comes back (to which method, and when), and
`confirm_cancellation` succeeds only when that read-back finished playing and the
caller's own latest words after it are a clear yes, both checked in code. A caller
whose reason is neither is asked which is closer; if neither fits, they are offered a
colleague. The supervisor then checks the result (`validated_cancellation`) and
cancels the order once, for that reason, as the caller heard it (`call.heard_facts`:
an order paid otherwise meanwhile is read back again before anything is cancelled).

Here the task and the registration; `wording.py` what the caller hears (the reasons and
the question about them, the read-back, why an order is kept); `result.py` the result,
the rule an order must meet, the check and the store's answer.
"""

from __future__ import annotations

from textwrap import dedent

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, ToolFlag
from pydantic import JsonValue

from customer_service.call.callers_request import (
    giving_cancel_reason,
    open_on_request,
    request_lines,
)
from customer_service.call.confirmation import ConfirmBeforeActing
from customer_service.call.guard import guarded
from customer_service.call.heard_facts import as_heard, read_back_again, until_heard_holds
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.refunds import refunds_said
from customer_service.call.registration import PASS_ORDER_ID, CallersOrderId, Desk, supervisor_tool
from customer_service.call.run_check_write import run_check_write
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import PERSONA
from customer_service.domain import CancelReason, Order, OrderStatus
from customer_service.specialists.cancellation.result import (
    CancellationResult,
    cancellation_said,
    ensure_cancellable,
    validated_cancellation,
)
from customer_service.specialists.cancellation.wording import (
    CLOSER_REASON_QUESTION as CLOSER_REASON_QUESTION,
)
from customer_service.specialists.cancellation.wording import (
    REASON_QUESTION,
    no_fitting_reason_message,
    opening_question,
    read_back,
    wording,
)
from customer_service.specialists.cancellation.wording import kept_message as kept_message
from customer_service.specialists.cancellation.wording import (
    not_cancellable_message as not_cancellable_message,
)
from customer_service.store import AuditEvent, CancellationOutcome
from customer_service.store.orders import outstanding_refunds

CANCELLATION_INSTRUCTIONS = PERSONA + dedent(
    """
    Your only job now is to learn why the caller wants the order you just named
    cancelled, then whether they want it cancelled. An order is cancelled only because
    the caller no longer needs it or because it was ordered by mistake: as soon as they
    give one of those, call record_cancellation_reason with it; the tool reads the
    cancellation back itself, so do not repeat it. For any other reason, ask which of
    the two is closer; if neither fits, call reason_fits_neither. Call
    confirm_cancellation only after the caller clearly says yes to the read-back; if
    they give another reason, call record_cancellation_reason again. If they say no,
    want to keep the order or want to stop, call give_up. Never cancel any other order.
    """
)

MAX_REFUSED_CONFIRMATIONS = 2
"""Confirmations refused for want of a clear yes before the task ends, cancelling nothing."""


class CancellationTask(Specialist[CancellationResult]):
    """Asks why one order is to be cancelled, reads it back with its refund and returns
    only when the caller heard that read-back in full and clearly said yes."""

    still_there_question = REASON_QUESTION

    def __init__(
        self,
        *,
        order: OrderLookupResult,
        refunds: str,
        again: CancellationResult | None = None,
        request: ChatContext | None = None,
    ) -> None:
        self._order = order
        self._refunds = refunds
        self._again = again
        # Of the call's history, at most the caller's words that asked for it, when they
        # give the reason (`call.callers_request`): a "yes" said to something else must
        # not answer this, and the code checks that none can.
        super().__init__(instructions=CANCELLATION_INSTRUCTIONS, chat_ctx=request)
        self._confirmation = ConfirmBeforeActing(
            self,
            tool_name="confirm_cancellation",
            tool_description=(
                "Cancel the order you read back. Call only after the caller clearly said yes."
            ),
            wording=wording(order.order_id),
            max_refusals=MAX_REFUSED_CONFIRMATIONS,
        )

    def collected(self) -> dict[str, JsonValue]:
        proposal = self._confirmation.proposal
        return {
            "order_id": self._order.order_id,
            "reason": proposal.reason.value if proposal else None,
        }

    def nudge(self) -> None:
        if not self._confirmation.nudge():
            super().nudge()

    async def opening(self) -> None:
        # The question names the order's items: its disclosure was recorded when the
        # order was read (`cancel_order` reads it with `disclosing`).
        self.session.userdata.record_disclosure(self._order.order_id)
        if self._again is None:
            open_on_request(self, opening_question(self._order))
        else:
            # The order changed after the caller's yes: its new facts, read back at once.
            reason = self._again.reason
            await read_back_again(self, lambda lead: self._propose(reason, lead))

    async def _propose(self, reason: CancelReason, lead: str = "") -> None:
        order_id = self._order.order_id
        await self._confirmation.propose(
            CancellationResult(order_id=order_id, reason=reason),
            read_back=f"{lead} {read_back(self._order, reason, self._refunds)}".strip(),
            # Only the order number: "yes, two" must not confirm "two Feather pillows".
            numbers=order_id,
        )

    @function_tool()
    @guarded()
    async def record_cancellation_reason(
        self, context: RunContext[CallState], reason: CancelReason
    ) -> None:
        """Record why the caller cancels; the tool reads the cancellation back itself.

        Args:
            reason: The caller's reason: one of the two an order is cancelled for.
        """
        await self._propose(reason)

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def reason_fits_neither(self, context: RunContext[CallState]) -> None:
        """Call when the caller's reason is neither of the two, even the closer one."""
        self.finish(ToolError(no_fitting_reason_message(self._order.order_id)))

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller wants to keep the order or to stop."""
        self.finish(ToolError(self._confirmation.wording.nothing_done))


@supervisor_tool(
    CancellationTask,
    CancellationResult,
    when_to_use=f"the caller wants to cancel an order. {PASS_ORDER_ID}",
    menu_phrase="cancel an order",
    writes="order_cancelled",
    plain_name="Cancellation",
    explains="Cancels an order with its refund.",
)
async def cancel_order(
    desk: Desk, context: RunContext[CallState], order_id: CallersOrderId = None
) -> str:
    """Cancel one of the caller's orders that has not shipped yet."""
    state = context.userdata
    asked = request_lines(desk.chat_ctx)  # the words that asked for it
    # Those words open the task only when they already say why (`call.callers_request`).
    request = giving_cancel_reason(asked)
    # The question names its items: the order is read with its disclosure recorded.
    _, first = await desk.callers_order(state, order_id, disclosing=True)

    async def attempt(order: OrderLookupResult, again: CancellationResult | None) -> str:
        ensure_cancellable(order)
        methods = await state.store.payment_methods(order.customer_id)
        # What cancelling refunds: what each method holds of the order now, as the store does.
        refunds = refunds_said(outstanding_refunds(order.payments), methods)

        async def cancel(
            result: CancellationResult, kept: list[AuditEvent]
        ) -> tuple[CancellationOutcome, Order | None]:
            return await state.store.cancel_order(
                reason=result.reason, **as_heard(state, order, kept)
            )

        async def found(
            result: CancellationResult,
        ) -> tuple[CancellationOutcome, Order | None] | None:
            now = await state.store.get_order(order.order_id)
            if now is None or now.status is not OrderStatus.CANCELLED:
                return None
            return CancellationOutcome.CANCELLED, now

        return await run_check_write(
            state,
            lambda: CancellationTask(
                order=order, refunds=refunds, again=again, request=None if again else request
            ),
            check=lambda result: validated_cancellation(result, order.order_id),
            write=cancel,
            said=lambda result, stored: cancellation_said(order, stored, methods, result),
            what="cancellation",
            found=found,
        )

    return await until_heard_holds(desk, state, first, attempt)
