"""Order cancellation: reads the order back and cancels it only on the caller's clear yes.

The task changes nothing itself. It speaks the read-back (number and items), and
`confirm_cancellation` succeeds only when that read-back finished playing and the
caller's own latest words after it are a clear yes, both checked in code. The
supervisor then checks the result (`validated_cancellation`) and cancels the order once
(`run_check_write`).
"""

from __future__ import annotations

from textwrap import dedent

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ToolFlag
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from customer_service.call.confirmation import ConfirmationWording, ConfirmBeforeActing
from customer_service.call.delegation import ResultRejected
from customer_service.call.guard import guarded
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.registration import (
    PASS_ORDER_ID,
    CallersOrderId,
    Desk,
    supervisor_tool,
)
from customer_service.call.run_check_write import run_check_write, well_formed
from customer_service.call.speakable import spoken_items
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN, PERSONA
from customer_service.domain import ORDER_ID_PATTERN, OrderStatus
from customer_service.order_numbers import spoken_order_id
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store import AuditEvent, CancellationOutcome

CANCELLATION_INSTRUCTIONS = PERSONA + dedent(
    """
    Your only job now is to learn whether the caller wants the order you just read back
    cancelled. If they clearly say yes, call confirm_cancellation. If they say no, want
    to keep the order or want to stop, call give_up. If the answer is unclear, ask once
    more whether they want that order cancelled, yes or no. Never cancel any other order.
    """
)

MAX_REFUSED_CONFIRMATIONS = 2
"""Confirmations refused for want of a clear yes before the task ends, cancelling nothing."""


def wording(order_id: str) -> ConfirmationWording:
    """What the cancellation of `order_id` says; the caller has nothing to correct."""
    return ConfirmationWording(
        done="cancelled",
        thing=f"order {spoken_order_id(order_id)}",
        question="Do you want me to cancel this order?",
        correctable=False,
    )


def read_back(order: OrderLookupResult) -> str:
    return wording(order.order_id).read_back(
        f"Order {spoken_order_id(order.order_id)} contains {spoken_items(order.items)}."
    )


def kept_message(order_id: str) -> str:
    return wording(order_id).nothing_done


def not_cancellable_message(order_id: str, status: OrderStatus) -> str:
    spaced = spoken_order_id(order_id)
    if status is OrderStatus.CANCELLED:
        return f"Order {spaced} is already cancelled."
    if status is OrderStatus.PENDING_ITEMS_MODIFIED:
        return f"Order {spaced} had its items changed, so I can't cancel it any more. {OFFER_HUMAN}"
    done = "been delivered" if status is OrderStatus.DELIVERED else "already shipped"
    return f"Order {spaced} has {done}, so I can't cancel it any more. {OFFER_HUMAN}"


class CancellationResult(BaseModel):
    """The caller's confirmed wish to cancel one order."""

    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)


class CancellationTask(Specialist[CancellationResult]):
    """Reads one order back and returns only when the caller clearly says to cancel it."""

    def __init__(self, *, order: OrderLookupResult) -> None:
        self._order = order
        self._confirmation = ConfirmBeforeActing(
            self,
            tool_name="confirm_cancellation",
            tool_description=(
                "Cancel the order you read back. Call only after the caller clearly said yes."
            ),
            wording=wording(order.order_id),
            max_refusals=MAX_REFUSED_CONFIRMATIONS,
        )
        # No earlier history: a "yes" said to something else must not answer this. The
        # order is read back as the task opens, so its confirm tool is offered at once.
        super().__init__(instructions=CANCELLATION_INSTRUCTIONS, tools=[self._confirmation.tool])

    def collected(self) -> dict[str, JsonValue]:
        return {"order_id": self._order.order_id}

    def nudge(self) -> None:
        self._confirmation.nudge()

    async def opening(self) -> None:
        # The read-back names the order's items: its disclosure was recorded when the
        # order was read (`cancel_order` reads it with `disclosing`).
        order_id = self._order.order_id
        self.session.userdata.record_disclosure(order_id)
        await self._confirmation.propose(
            CancellationResult(order_id=order_id),
            read_back=read_back(self._order),
            # Only the order number: "yes, two" must not confirm "two Feather pillows".
            numbers=order_id,
        )

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller wants to keep the order or to stop."""
        self.finish(ToolError(self._confirmation.wording.nothing_done))


def ensure_cancellable(order: OrderLookupResult) -> None:
    if order.status is not OrderStatus.PENDING:
        raise ToolError(not_cancellable_message(order.order_id, order.status))


def validated_cancellation(result: object, order_id: str) -> CancellationResult:
    """The confirmation, once it is well formed and for the order being cancelled."""
    confirmation = well_formed(CancellationResult, result, what="cancellation")
    if confirmation.order_id != order_id:
        raise ResultRejected("cancellation result is for another order")
    return confirmation


def cancellation_said(order: OrderLookupResult, outcome: CancellationOutcome) -> str:
    """The sentence that tells the caller what the store did; a refusal is raised."""
    spaced = spoken_order_id(order.order_id)
    if outcome is CancellationOutcome.CANCELLED:
        return f"Done. Order {spaced} is cancelled."
    if outcome is CancellationOutcome.ALREADY_CANCELLED:
        return f"Order {spaced} is cancelled."
    if outcome is CancellationOutcome.ORDER_SHIPPED:
        # It shipped while the caller was deciding.
        raise ToolError(not_cancellable_message(order.order_id, OrderStatus.PROCESSED))
    if outcome is CancellationOutcome.ITEMS_CHANGED:
        # Its items were changed while the caller was deciding.
        raise ToolError(not_cancellable_message(order.order_id, OrderStatus.PENDING_ITEMS_MODIFIED))
    raise ToolError(not_found_message(order.order_id))


@supervisor_tool(
    CancellationTask,
    CancellationResult,
    when_to_use=f"the caller wants to cancel an order. {PASS_ORDER_ID}",
    menu_phrase="cancel an order",
    writes="order_cancelled",
)
async def cancel_order(
    desk: Desk, context: RunContext[CallState], order_id: CallersOrderId = None
) -> str:
    """Cancel one of the caller's orders that has not shipped yet."""
    state = context.userdata
    # The read-back names its items: the order is read with its disclosure recorded.
    _, order = await desk.callers_order(state, order_id, disclosing=True)
    ensure_cancellable(order)

    async def cancel(_: CancellationResult, kept: list[AuditEvent]) -> CancellationOutcome:
        outcome, _order = await state.store.cancel_order(
            order_id=order.order_id,
            customer_id=order.customer_id,
            # Not asked for yet: the order is cancelled without a reason.
            reason=None,
            call_id=state.call_id,
            other_events=kept,
        )
        return outcome

    return await run_check_write(
        state,
        lambda: CancellationTask(order=order),
        check=lambda result: validated_cancellation(result, order.order_id),
        write=cancel,
        said=lambda _, outcome: cancellation_said(order, outcome),
        what="cancellation",
    )
