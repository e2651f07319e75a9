"""The cancellation the caller confirmed, the rule an order must meet before the task
starts, the check of the task's result, and what the caller hears of the store's answer
with the refunds the cancellation made."""

from __future__ import annotations

from collections.abc import Sequence

from livekit.agents import ToolError
from pydantic import BaseModel, ConfigDict, Field

from customer_service.call.delegation import ResultRejected
from customer_service.call.heard_facts import ReadBackStale
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.refunds import refunds_said
from customer_service.call.run_check_write import well_formed
from customer_service.domain import (
    ORDER_ID_PATTERN,
    CancelReason,
    Order,
    OrderStatus,
    PaymentMethod,
    Transaction,
)
from customer_service.order_numbers import spoken_order_id
from customer_service.specialists.cancellation.wording import not_cancellable_message
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store import CancellationOutcome


class CancellationResult(BaseModel):
    """The caller's confirmed wish to cancel one order."""

    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    reason: CancelReason


def ensure_cancellable(order: OrderLookupResult) -> None:
    if order.status is not OrderStatus.PENDING:
        raise ToolError(not_cancellable_message(order.order_id, order.status))


def validated_cancellation(result: object, order_id: str) -> CancellationResult:
    """The confirmation, once it is well formed and for the order being cancelled."""
    confirmation = well_formed(CancellationResult, result, what="cancellation")
    if confirmation.order_id != order_id:
        raise ResultRejected("cancellation result is for another order")
    return confirmation


def refunds_of_cancelled(read: OrderLookupResult, cancelled: Order) -> tuple[Transaction, ...]:
    """The refunds the cancellation added to the payment history the caller heard about;
    none said when that history changed in another call meanwhile."""
    before = read.payments
    if cancelled.payments[: len(before)] != before:
        return ()
    return cancelled.payments[len(before) :]


def cancellation_said(
    order: OrderLookupResult,
    stored: tuple[CancellationOutcome, Order | None],
    methods: Sequence[PaymentMethod],
    result: CancellationResult | None = None,
) -> str:
    """The sentence that tells the caller what the store did and how the money comes
    back; a refusal is raised, and `ReadBackStale` with `result` when the order is no
    longer what the caller heard."""
    outcome, cancelled = stored
    if outcome is CancellationOutcome.CHANGED_SINCE_READ_BACK:
        raise ReadBackStale(result)
    spaced = spoken_order_id(order.order_id)
    if outcome is CancellationOutcome.CANCELLED and cancelled is not None:
        refunds = refunds_said(refunds_of_cancelled(order, cancelled), methods)
        return f"Done. Order {spaced} is cancelled. {refunds}".strip()
    if outcome is CancellationOutcome.ALREADY_CANCELLED:
        return f"Order {spaced} is cancelled."
    if outcome is CancellationOutcome.ORDER_SHIPPED:
        # It shipped while the caller was deciding.
        raise ToolError(not_cancellable_message(order.order_id, OrderStatus.PROCESSED))
    if outcome is CancellationOutcome.ITEMS_CHANGED:
        # Its items were changed while the caller was deciding.
        raise ToolError(not_cancellable_message(order.order_id, OrderStatus.PENDING_ITEMS_MODIFIED))
    raise ToolError(not_found_message(order.order_id))
