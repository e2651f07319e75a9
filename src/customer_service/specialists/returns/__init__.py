"""Returns: asks which items of a delivered order go back, why, and where the refund goes,
reads the request back, and returns it only on the caller's clear yes.

The task changes nothing itself. The model records the items (their numbers in the
order), the reason as a category (the caller's words are never kept) and where the
refund goes (`call.refunds.refund_choices`; with one choice it is said, not asked).
The read-back says the refund, where it goes and when; only the caller's own yes counts.
The supervisor checks the result (`validated_return`) and stores it once, as the caller
heard it (`call.heard_facts`), telling the caller the return number.

Here the task and the registration; `result.py` the result and its check in code;
`wording.py` the question, the read-back and the return number; `outcome.py` whether the
order may be returned, before the task and as the store answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from textwrap import dedent

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, ToolFlag
from pydantic import JsonValue

from customer_service.call import callers_request
from customer_service.call.confirmation import ConfirmBeforeActing
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.heard_facts import as_heard, read_back_again, until_heard_holds
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.refunds import (
    chosen_refund_method,
    no_refund_method_message,
    refund_choice_instructions,
    refund_choices,
)
from customer_service.call.registration import PASS_ORDER_ID, CallersOrderId, Desk, supervisor_tool
from customer_service.call.run_check_write import run_check_write
from customer_service.call.speakable import count_word, spoken_items
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import PERSONA, quoted
from customer_service.domain import PaymentMethod, value_of
from customer_service.order_numbers import spoken_order_id
from customer_service.simulation.expectations import OrderRecords
from customer_service.specialists.returns.outcome import ensure_returnable, return_said
from customer_service.specialists.returns.result import ReturnResult, validated_return
from customer_service.specialists.returns.wording import WORDING, opening_question, read_back
from customer_service.store import AuditEvent, ReturnOutcome, ReturnReason, ReturnRequest, Store

RETURN_INSTRUCTIONS = PERSONA + dedent(
    """
    Your only job now is to learn which items of order {order} the caller wants to return
    and why, asking one thing at a time: the items first, then the reason. Its items, by
    number:
    {items}
    As soon as the caller has said both, call record_return with the numbers of those
    items (every number when they say all of them) and the reason category closest to
    what they said; the tool reads the request back itself, so do not repeat it. Call
    confirm_return only after the caller clearly says the read-back is right; if they
    correct anything, call record_return again. If the caller wants to stop, call
    give_up. Never add an item the caller did not ask to return.
    {refund}
    """
)
MAX_REFUSED_CONFIRMATIONS = 2
"""Confirmations refused for want of a clear yes before the task ends, requesting nothing."""


def instructions_for(order: OrderLookupResult, choices: Sequence[PaymentMethod]) -> str:
    """The task's instructions, with the order's items numbered for `record_return` and,
    when there is a choice, where the refund may go; stored text quoted, as data."""
    listing = "\n".join(
        f"{number}. {quoted(item.name)}, quantity {item.quantity}"
        for number, item in enumerate(order.items, start=1)
    )
    refund = refund_choice_instructions(choices)
    return RETURN_INSTRUCTIONS.format(order=order.order_id, items=listing, refund=refund)


class ReturnTask(Specialist[ReturnResult]):
    """Learns which items of one order go back and why, reads the request back itself and
    returns it only when the caller heard that read-back in full and clearly said yes."""

    still_there_question = fixed("Which items would you like to return, and why?")

    def __init__(
        self,
        *,
        order: OrderLookupResult,
        choices: Sequence[PaymentMethod],
        again: ReturnResult | None = None,
        request: ChatContext | None = None,
    ) -> None:
        self._order, self._choices, self._again = order, tuple(choices), again
        # Of the history, only a request that names items or a reason (`call.callers_request`).
        super().__init__(instructions=instructions_for(order, choices), chat_ctx=request)
        self._confirmation = ConfirmBeforeActing(
            self,
            tool_name="confirm_return",
            tool_description=(
                "Request the return you read back. Call only after the caller clearly said yes."
            ),
            wording=WORDING,
            max_refusals=MAX_REFUSED_CONFIRMATIONS,
        )

    def collected(self) -> dict[str, JsonValue]:
        proposal = self._confirmation.proposal
        return {
            "order_id": self._order.order_id,
            "items": len(proposal.item_indices) if proposal else None,
            "reason": proposal.reason.value if proposal else None,
            "refund_method_id": proposal.refund_method_id if proposal else None,
        }

    def nudge(self) -> None:
        if not self._confirmation.nudge():
            super().nudge()

    async def opening(self) -> None:
        # The question names the order's items: its disclosure was recorded when the
        # order was read (`request_return` reads it with `disclosing`).
        self.session.userdata.record_disclosure(self._order.order_id)
        again = self._again
        if again is None:
            return callers_request.open_on_request(self, opening_question(self._order))
        # The order changed after the caller's yes: its new facts, read back at once,
        # or the question again when the refund can no longer go where they chose.
        await read_back_again(self, lambda lead: self._propose_again(again, lead))

    async def _propose_again(self, request: ReturnResult, lead: str) -> None:
        # Asks where the refund goes when the method chosen no longer holds the money.
        refund_to = chosen_refund_method(self._choices, request.refund_method_id)
        await self._propose(request, refund_to, lead)

    async def _propose(
        self, request: ReturnResult, refund_to: PaymentMethod, lead: str = ""
    ) -> None:
        await self._confirmation.propose(
            request,
            read_back=f"{lead} {read_back(self._order, request, refund_to)}".strip(),
            # Only the order number: "yes, two" must not confirm "two yoga blocks".
            numbers=self._order.order_id,
        )

    @function_tool()
    @guarded()
    async def record_return(
        self,
        context: RunContext[CallState],
        item_numbers: list[int],
        reason: ReturnReason,
        refund_method_id: str | None = None,
    ) -> None:
        """Record which items go back, why and where the refund goes; the tool reads the
        request back itself.

        Args:
            item_numbers: The numbers of the items to return, from the list you were given.
            reason: The category closest to the caller's reason.
            refund_method_id: The id of the method the caller wants the refund sent to,
                from the list you were given; omit when you were given none.
        """
        order = self._order
        if not item_numbers:
            raise ToolError("Which items would you like to return?")
        count = len(order.items)
        if any(not 1 <= number <= count for number in item_numbers):
            raise ToolError(
                f"Order {spoken_order_id(order.order_id)} has {count_word(count)} "
                f"item{'s' if count > 1 else ''}: {spoken_items(order.items)}. Which would "
                "you like to return?"
            )
        refund_to = chosen_refund_method(self._choices, refund_method_id)
        request = ReturnResult(
            order_id=order.order_id,
            item_indices=tuple(sorted({number - 1 for number in item_numbers})),
            reason=reason,
            refund_method_id=refund_to.method_id,
        )
        await self._propose(request, refund_to)

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller no longer wants to return anything."""
        self.finish(ToolError(WORDING.nothing_done))


@supervisor_tool(
    ReturnTask,
    ReturnResult,
    when_to_use=f"the caller wants to send back items of an order they received. {PASS_ORDER_ID}",
    menu_phrase="return items from an order you've received",
    writes="return_requested",
    plain_name="Return",
    explains="Delivered items sent back.",
    expects=OrderRecords("returns", Store.return_requests, ("item_indices", "reason")),
)
async def request_return(
    desk: Desk, context: RunContext[CallState], order_id: CallersOrderId = None
) -> str:
    """Request a return of items from one of the caller's orders they received."""
    state = context.userdata
    asked = callers_request.request_lines(desk.chat_ctx)  # the words that asked for it
    _, first = await desk.callers_order(state, order_id, disclosing=True)

    async def attempt(order: OrderLookupResult, again: ReturnResult | None) -> str:
        await ensure_returnable(state, order)
        request = None if again else callers_request.naming_items_or_reason(asked, order.items)
        methods = await state.store.payment_methods(order.customer_id)
        choices = refund_choices(order, methods)
        if not choices:
            raise ToolError(no_refund_method_message(order.order_id))

        async def store(
            request: ReturnResult, kept: list[AuditEvent]
        ) -> tuple[ReturnOutcome, ReturnRequest | None]:
            amount = value_of(order.items[i] for i in request.item_indices)
            return await state.store.request_return(
                item_indices=request.item_indices,
                reason=request.reason,
                refund_method_id=request.refund_method_id,
                **as_heard(state, order, kept, amount),
            )

        async def found(request: ReturnResult) -> tuple[ReturnOutcome, ReturnRequest | None] | None:
            made = await state.store.return_requests(order_id=order.order_id)
            return next(
                ((ReturnOutcome.REQUESTED, r) for r in made if r.call_id == state.call_id), None
            )

        return await run_check_write(
            state,
            lambda: ReturnTask(order=order, choices=choices, again=again, request=request),
            check=lambda result: validated_return(result, order, choices),
            write=store,
            said=lambda request, stored: return_said(order, stored, request),
            what="return",
            found=found,
        )

    return await until_heard_holds(desk, state, first, attempt)
