"""Returns: asks which items of a delivered order go back, why, and where the refund goes,
reads the request back, and returns it only on the caller's clear yes.

The task changes nothing itself. The model records the items (their numbers in the
order), the reason as a category (the caller's words are never kept) and where the
refund goes (`call.refunds.refund_choices`; with one choice it is said, not asked).
The read-back says the refund, where it goes and when; only the caller's own yes counts.
The supervisor checks the result (`validated_return`) and stores it once, as the caller
heard it (`call.heard_facts`), telling the caller the return number.
"""

from __future__ import annotations

from collections.abc import Sequence
from textwrap import dedent

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, ToolFlag
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from customer_service.call import callers_request
from customer_service.call.confirmation import ConfirmationWording, ConfirmBeforeActing
from customer_service.call.delegation import ResultRejected
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.heard_facts import (
    ReadBackStale,
    heard_of,
    read_back_again,
    until_heard_holds,
)
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.refunds import (
    chosen_refund_method,
    no_refund_method_message,
    refund_choice_instructions,
    refund_choices,
    refund_destination,
)
from customer_service.call.registration import (
    PASS_ORDER_ID,
    CallersOrderId,
    Desk,
    supervisor_tool,
)
from customer_service.call.run_check_write import run_check_write, well_formed
from customer_service.call.speakable import count_word, spaced_digits, spoken_date, spoken_items
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN, PERSONA, quoted
from customer_service.domain import (
    ORDER_ID_PATTERN,
    OrderStatus,
    PaymentMethod,
    value_of,
)
from customer_service.order_numbers import spoken_order_id
from customer_service.simulation.expectations import OrderRecords
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store import (
    AuditEvent,
    ReturnOutcome,
    ReturnReason,
    ReturnRequest,
    Store,
    last_return_day,
    return_refusal,
)

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

WORDING = ConfirmationWording(
    done="requested", thing="a return", question=fixed("Shall I request this return?")
)
REASON_WORDS = {
    ReturnReason.DAMAGED: "{they} arrived damaged",
    ReturnReason.DEFECTIVE: "{they} {are} faulty",
    ReturnReason.WRONG_ITEM: "{they} {are} not what was ordered",
    ReturnReason.NOT_AS_DESCRIBED: "{they} {are} not as described",
    ReturnReason.NO_LONGER_NEEDED: "{they} {are} no longer needed",
    ReturnReason.OTHER: "of another reason",
}
"""The reason as the read-back says it: the category, never the caller's words."""


class ReturnResult(BaseModel):
    """The caller's confirmed request to return some items of one order."""

    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    item_indices: tuple[int, ...] = Field(
        min_length=1, description="Positions in the order's items, from 0, ascending."
    )
    reason: ReturnReason
    refund_method_id: str = Field(min_length=1, description="The method the refund goes to.")


def instructions_for(order: OrderLookupResult, choices: Sequence[PaymentMethod]) -> str:
    """The task's instructions, with the order's items numbered for `record_return` and,
    when there is a choice, where the refund may go; stored text quoted, as data."""
    listing = "\n".join(
        f"{number}. {quoted(item.name)}, quantity {item.quantity}"
        for number, item in enumerate(order.items, start=1)
    )
    refund = refund_choice_instructions(choices)
    return RETURN_INSTRUCTIONS.format(order=order.order_id, items=listing, refund=refund)


def opening_question(order: OrderLookupResult) -> str:
    """The first of the task's questions, one at a time: the items; the reason and where
    the refund goes are asked once the caller has answered it."""
    return (
        f"Order {spoken_order_id(order.order_id)} contains {spoken_items(order.items)}. "
        "Which items would you like to return, or is it all of them?"
    )


def read_back(order: OrderLookupResult, request: ReturnResult, refund_to: PaymentMethod) -> str:
    chosen = [order.items[index] for index in request.item_indices]
    several = len(chosen) > 1 or chosen[0].quantity > 1
    reason = REASON_WORDS[request.reason].format(
        they="they" if several else "it", are="are" if several else "is"
    )
    return WORDING.read_back(
        f"You'd like to return {spoken_items(chosen)} from order "
        f"{spoken_order_id(order.order_id)}, because {reason}. "
        f"{refund_destination(refund_to, value_of(chosen))}"
    )


def return_number_message(lead: str, request: ReturnRequest) -> str:
    number = spaced_digits(request.return_number)
    return f"{lead} Your return number is {number}. Once more, that's {number}."


def already_requested_message(request: ReturnRequest) -> str:
    spaced = spoken_order_id(request.order_id)
    return return_number_message(f"A return is already requested for order {spaced}.", request)


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


def not_returnable_message(order: OrderLookupResult, refusal: ReturnOutcome) -> str:
    spaced = spoken_order_id(order.order_id)
    if order.status is OrderStatus.CANCELLED:
        return f"Order {spaced} is cancelled, so there is nothing to return."
    if refusal is ReturnOutcome.OUTSIDE_WINDOW and order.delivered_on is not None:
        last_day = spoken_date(last_return_day(order.delivered_on))
        return (
            f"Order {spaced} could be returned until {last_day}, thirty days after it "
            f"arrived, so it can't be returned any more. {OFFER_HUMAN}"
        )
    not_yet = f"Order {spaced} hasn't been delivered yet, so it can't be returned."
    # The window runs from the delivery date, which only a dated order will have: a store
    # without dates (τ²-bench's) has no window, so none is promised.
    if order.placed_on is None:
        return not_yet
    return f"{not_yet} Once it arrives, you'll have thirty days to return it."


async def ensure_returnable(state: CallState, order: OrderLookupResult) -> None:
    """Raises a speakable `ToolError` when `order` cannot be returned today, or when a
    return is already requested for it (its number is said again)."""
    for existing in await state.store.return_requests(order_id=order.order_id):
        if existing.customer_id == order.customer_id:
            raise ToolError(already_requested_message(existing))
    refusal = return_refusal(order, state.clock.today())
    if refusal is not None:
        raise ToolError(not_returnable_message(order, refusal))


def validated_return(
    result: object, order: OrderLookupResult, choices: Sequence[PaymentMethod]
) -> ReturnResult:
    """The confirmed request, once it is well formed, for `order`, names its items and
    sends the refund to one of `choices`."""
    request = well_formed(ReturnResult, result, what="return")
    if request.order_id != order.order_id:
        raise ResultRejected("return result is for another order")
    if request.refund_method_id not in {method.method_id for method in choices}:
        raise ResultRejected("return result refunds to a method it may not")
    indices = request.item_indices
    if list(indices) != sorted(set(indices)) or not 0 <= indices[0] <= indices[-1] < len(
        order.items
    ):
        raise ResultRejected("return result names items not in the order")
    return request


def return_said(
    order: OrderLookupResult,
    stored: tuple[ReturnOutcome, ReturnRequest | None],
    result: ReturnResult | None = None,
) -> str:
    """The sentence with the return number; a refusal is raised, and `ReadBackStale`
    with `result` when the order is no longer what the caller heard."""
    outcome, request = stored
    if outcome is ReturnOutcome.CHANGED_SINCE_READ_BACK:
        raise ReadBackStale(result)
    if outcome is ReturnOutcome.REQUESTED and request is not None:
        return return_number_message("Your return is requested.", request)
    if outcome is ReturnOutcome.ALREADY_REQUESTED and request is not None:
        # Requested in another call while this caller was deciding.
        return already_requested_message(request)
    if outcome in (ReturnOutcome.NOT_DELIVERED, ReturnOutcome.OUTSIDE_WINDOW):
        raise ToolError(not_returnable_message(order, outcome))
    if outcome is ReturnOutcome.ITEMS_NOT_IN_ORDER:
        raise ToolError(f"Those items aren't in order {spoken_order_id(order.order_id)}.")
    if outcome is ReturnOutcome.REFUND_METHOD_NOT_ALLOWED:
        # The method was removed from the account while the caller was deciding.
        raise ToolError(
            f"That payment method can't take the refund for order "
            f"{spoken_order_id(order.order_id)} any more, so nothing was requested. {OFFER_HUMAN}"
        )
    raise ToolError(not_found_message(order.order_id))


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
            return await state.store.request_return(
                order_id=order.order_id,
                customer_id=order.customer_id,
                item_indices=request.item_indices,
                reason=request.reason,
                refund_method_id=request.refund_method_id,
                call_id=state.call_id,
                heard=heard_of(order, value_of(order.items[i] for i in request.item_indices)),
                other_events=kept,
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
