"""Order cancellation: reads the order back and cancels it only on the caller's clear yes.

The task changes nothing itself. It speaks the read-back (number and items), and
`confirm_cancellation` succeeds only when that read-back finished playing and the
caller's own latest words after it are a clear yes, both checked in code. The
supervisor then checks the result (`confirmed_cancellation`) and writes the
cancellation once (`apply_cancellation`).
"""

from __future__ import annotations

import logging
from textwrap import dedent

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatMessage, ToolFlag
from livekit.agents.voice import SpeechHandle
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from customer_service.call.answers import polarity
from customer_service.call.delegation import ResultRejected, delegate, validated_with_retries
from customer_service.call.guard import guarded
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN, PERSONA, spaced_digits
from customer_service.domain import ORDER_ID_PATTERN, OrderStatus
from customer_service.normalize import digits_from_speech
from customer_service.specialists.order_lookup import OrderLookupResult, not_found_message
from customer_service.store import CancellationOutcome

logger = logging.getLogger(__name__)

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

NOT_A_CLEAR_YES = (
    "I haven't cancelled anything. Do you want me to cancel this order? Please say yes or no."
)


def read_back(order: OrderLookupResult) -> str:
    items = "; ".join(
        item.name if item.quantity == 1 else f"{item.name}, quantity {item.quantity}"
        for item in order.items
    )
    return (
        f"Order {spaced_digits(order.order_id)} contains {items}. Do you want me to cancel "
        "this order? Please say yes or no."
    )


def kept_message(order_id: str) -> str:
    return f"All right, I haven't cancelled order {spaced_digits(order_id)}."


def not_cancellable_message(order_id: str, status: OrderStatus) -> str:
    spaced = spaced_digits(order_id)
    if status is OrderStatus.CANCELLED:
        return f"Order {spaced} is already cancelled."
    done = "been delivered" if status is OrderStatus.DELIVERED else "already shipped"
    return f"Order {spaced} has {done}, so I can't cancel it any more. {OFFER_HUMAN}"


class CancellationResult(BaseModel):
    """The caller's confirmed wish to cancel one order."""

    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)


class CancellationTask(Specialist[CancellationResult]):
    """Reads one order back and returns only when the caller clearly says to cancel it."""

    def __init__(self, *, order: OrderLookupResult) -> None:
        # No earlier history: a "yes" said to something else must not answer this.
        super().__init__(instructions=CANCELLATION_INSTRUCTIONS)
        self._order = order
        self._read_back: SpeechHandle | None = None
        self._answers_from: int | None = None
        """How many caller messages came before the read-back finished playing."""
        self._refused = 0

    def collected(self) -> dict[str, JsonValue]:
        return {"order_id": self._order.order_id}

    async def on_enter(self) -> None:
        self._speak_read_back()

    @function_tool()
    # Its own cap on refused confirmations is the bound here.
    @guarded(count_repeats=False)
    async def confirm_cancellation(self, context: RunContext[CallState]) -> None:
        """Cancel the order you read back. Call only after the caller clearly said yes."""
        if not self._read_back_heard():
            # The caller cannot have agreed to words they did not hear: say them again.
            self._speak_read_back()
            return None
        if self._is_clear_yes(self._latest_answer() or ""):
            self.finish(CancellationResult(order_id=self._order.order_id))
            return None
        self._refused += 1
        if self._refused >= MAX_REFUSED_CONFIRMATIONS:
            self.finish(ToolError(kept_message(self._order.order_id)))
            return None
        raise ToolError(NOT_A_CLEAR_YES)

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller wants to keep the order or to stop."""
        self.finish(ToolError(kept_message(self._order.order_id)))

    def _speak_read_back(self) -> None:
        self._answers_from = None
        self._read_back = self.session.say(read_back(self._order))
        self._read_back.add_done_callback(self._note_read_back_finished)

    def _note_read_back_finished(self, handle: SpeechHandle) -> None:
        if handle.interrupted or handle is not self._read_back:
            return
        self._answers_from = len(self._caller_lines())

    def _read_back_heard(self) -> bool:
        handle = self._read_back
        return handle is not None and handle.done() and self._answers_from is not None

    def _is_clear_yes(self, answer: str) -> bool:
        """A yes that names no other order: "yes, cancel 100101" read back for 100102
        is not a yes to this one."""
        digits = digits_from_speech(answer)
        return polarity(answer) is True and digits in ("", self._order.order_id)

    def _latest_answer(self) -> str | None:
        """The caller's latest words after the read-back finished, if any."""
        answers = self._caller_lines()[self._answers_from or 0 :]
        return answers[-1] if answers and self._answers_from is not None else None

    def _caller_lines(self) -> list[str]:
        return [
            item.text_content or ""
            for item in self.chat_ctx.items
            if isinstance(item, ChatMessage) and item.role == "user"
        ]


def ensure_cancellable(order: OrderLookupResult) -> None:
    if order.status is not OrderStatus.PROCESSING:
        raise ToolError(not_cancellable_message(order.order_id, order.status))


def validated_cancellation(result: object, order_id: str) -> CancellationResult:
    """The confirmation, once it is well formed and for the order being cancelled."""
    try:
        confirmation = CancellationResult.model_validate(result)
    except ValidationError as error:
        raise ResultRejected(
            f"cancellation result malformed: {error.error_count()} errors"
        ) from None
    if confirmation.order_id != order_id:
        raise ResultRejected("cancellation result is for another order")
    return confirmation


async def confirmed_cancellation(state: CallState, order: OrderLookupResult) -> None:
    """Returns once the caller clearly confirmed cancelling `order`; raises a speakable
    `ToolError` when they did not."""

    async def confirm() -> CancellationResult:
        result = await delegate(state, CancellationTask(order=order))
        return validated_cancellation(result, order.order_id)

    await validated_with_retries(state, confirm, what="cancellation")


async def apply_cancellation(state: CallState, order: OrderLookupResult) -> str:
    """Cancels the order once and returns the sentence that tells the caller."""
    outcome = await state.store.cancel_order(
        order_id=order.order_id, customer_id=order.customer_id, call_id=state.call_id
    )
    spaced = spaced_digits(order.order_id)
    if outcome is CancellationOutcome.CANCELLED:
        return f"Done. Order {spaced} is cancelled."
    if outcome is CancellationOutcome.ALREADY_CANCELLED:
        return f"Order {spaced} is cancelled."
    if outcome is CancellationOutcome.ORDER_SHIPPED:
        # It shipped while the caller was deciding.
        raise ToolError(not_cancellable_message(order.order_id, OrderStatus.SHIPPED))
    raise ToolError(not_found_message(order.order_id))
