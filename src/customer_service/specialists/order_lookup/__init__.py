"""Order lookup: finds one of the verified caller's orders and reports what it holds.

A number the caller already said, or an item only one of their recent orders holds, is
looked up in code; otherwise the task asks, lists their recent orders or offers their
only one. Every order is read from the store as the caller's own and checked again.

Here the task, its delegation (`callers_order`) and the registration; `wording.py` what
the caller hears (the questions, the refusals, an order not found); `choice.py` an order
picked without its number; `keypad.py` the number typed on a phone's keypad; `reads.py`
the caller's orders as read, each miss counted; `result.py` the check of the order
result; `status.py` the status said by code.
"""

from __future__ import annotations

from textwrap import dedent

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, ToolFlag
from livekit.agents.types import NOT_GIVEN, NotGivenOr

from customer_service.call.delegation import delegate, validated_with_retries
from customer_service.call.disclosed_reads import disclosure_recorded
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.order_view import OrderLookupResult as OrderLookupResult
from customer_service.call.phrase_cache import say
from customer_service.call.registration import PASS_ORDER_ID, CallersOrderId, Desk, supervisor_tool
from customer_service.call.state import CallerLine, CallState
from customer_service.call.wording import PERSONA
from customer_service.domain import Order
from customer_service.order_choice import SEVERAL_FIT_UNLISTED, one_order_offer, orders_named
from customer_service.order_numbers import normalize_order_id
from customer_service.specialists.order_lookup.choice import OrderChoice
from customer_service.specialists.order_lookup.keypad import KEYPAD_INSTRUCTIONS, KeypadEntry
from customer_service.specialists.order_lookup.reads import find_callers_order, newest_orders
from customer_service.specialists.order_lookup.result import validated_order
from customer_service.specialists.order_lookup.status import disclosed, status_said
from customer_service.specialists.order_lookup.wording import (
    INVALID_ORDER_NUMBER as INVALID_ORDER_NUMBER,
)
from customer_service.specialists.order_lookup.wording import (
    KEYPAD_ENTRY_NOT_AN_ORDER_NUMBER as KEYPAD_ENTRY_NOT_AN_ORDER_NUMBER,
)
from customer_service.specialists.order_lookup.wording import (
    KEYPAD_ENTRY_STOPPED as KEYPAD_ENTRY_STOPPED,
)
from customer_service.specialists.order_lookup.wording import (
    KEYPAD_NOT_AVAILABLE as KEYPAD_NOT_AVAILABLE,
)
from customer_service.specialists.order_lookup.wording import (
    LOOKUP_ABANDONED,
    OPENING_QUESTION,
    OPENING_QUESTION_ON_A_PHONE,
)
from customer_service.specialists.order_lookup.wording import TOO_MANY_MISSES as TOO_MANY_MISSES
from customer_service.specialists.order_lookup.wording import (
    not_found_message as not_found_message,
)

ORDER_LOOKUP_INSTRUCTIONS = PERSONA + dedent(
    """
    Your only job now is to find the order the caller is asking about. The caller is
    already verified. When they give an order number, call lookup with it exactly as
    they said it. If they don't know the number, call list_recent_orders. When they
    pick an order by what it is ("the headphones", "the first one", "that order"), call
    choose_order with their words. When you offered their one order and they say yes,
    call lookup with its number; if they say no, ask for the order number. If a lookup
    fails, say what the tool says. If they want to stop, call give_up. Never guess or
    invent an order number.
    """
)


class OrderLookupTask(OrderChoice, KeypadEntry):
    """Asks for an order number (or lists recent orders) and returns the caller's order.
    On a phone line the caller may also type the number on the keypad."""

    still_there_question = fixed("What's the order number?")

    def __init__(
        self,
        *,
        chat_ctx: NotGivenOr[ChatContext] = NOT_GIVEN,
        line: CallerLine | None = None,
        disclosing: bool = False,
        several_named: bool = False,
        only_order: Order | None = None,
    ) -> None:
        """`disclosing`: the order found is read in the transaction that records its
        disclosure (`find_callers_order`), for a caller who is about to hear it.
        `several_named`: the caller's request named items that several of their orders
        hold; they are asked which, instead of the usual question. `only_order`: the
        caller's one order, offered to them instead."""
        self._disclosing = disclosing
        self._several_named = several_named
        self._only_order = only_order
        self._listed: list[Order] = []
        """The orders read out in this task, in the order the caller heard them."""
        # Only a phone caller hears of, or can be offered, the keypad.
        self._on_phone = line is not None and line.is_phone
        keypad = KEYPAD_INSTRUCTIONS if self._on_phone else ""
        super().__init__(
            instructions=ORDER_LOOKUP_INSTRUCTIONS + keypad,
            chat_ctx=chat_ctx,
            tools=[self._keypad_tool()] if self._on_phone else None,
        )

    async def opening(self) -> None:
        only = self._only_order
        if self._several_named:
            say(self.session, SEVERAL_FIT_UNLISTED)
        elif only is not None and await disclosure_recorded(self.session.userdata, only):
            # Heard like a list of one: "that one" then picks it.
            self._listed = [only]
            say(self.session, one_order_offer(only))
        else:
            say(self.session, OPENING_QUESTION_ON_A_PHONE if self._on_phone else OPENING_QUESTION)

    @function_tool()
    # Its own cap on misses is the stricter bound here.
    @guarded(count_repeats=False)
    async def lookup(self, context: RunContext[CallState], order_id: str) -> None:
        """Look up one of the caller's orders.

        Args:
            order_id: The order number exactly as the caller said it, digits or words,
                with its W if it has one.
        """
        await self._handle(context.userdata, order_id)

    async def _handle(self, state: CallState, order_id: str) -> None:
        """The outcome of every lookup, typed or spoken: the order ends the task, and so
        does the last miss allowed; any other miss is a speakable error."""
        try:
            order = await find_callers_order(state, order_id, disclosing=self._disclosing)
        except ToolError as error:
            if state.order_lookup_attempts_left == 0:
                self.finish(error)
                return
            raise
        self.finish(OrderLookupResult.from_order(order))

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller no longer wants to look up an order."""
        self.finish(ToolError(LOOKUP_ABANDONED))


async def callers_order(
    state: CallState,
    order_id: str | None,
    history: ChatContext,
    *,
    disclosing: bool = False,
    request: str | None = None,
) -> OrderLookupResult:
    """The verified caller's order, checked. A usable number is looked up in code, so a
    caller who already said it is not asked again; otherwise the specialist asks (or
    offers the caller's only order).

    When `disclosing`, its disclosure is recorded in the transaction that reads it,
    before it is returned: details whose disclosure cannot be recorded are not given.
    The caller then hears `disclosed(state, order)`.

    `request`: the caller's words that asked for this work. An item in them that only
    one of their orders holds ("return the water bottles") names that order, looked up
    in code like a number they said.
    """
    requested = normalize_order_id(order_id) if order_id is not None else None

    async def look_up() -> OrderLookupResult:
        recent = [] if requested is not None else await newest_orders(state)
        named = orders_named(request or "", recent[: state.settings.recent_orders_limit])
        if requested is not None or len(named) == 1:
            asked = requested or named[0].order_id
            read = await find_callers_order(state, asked, disclosing=disclosing)
            return await validated_order(OrderLookupResult.from_order(read), state, asked)
        task = OrderLookupTask(
            chat_ctx=history,
            line=state.line,
            disclosing=disclosing,
            several_named=bool(named),
            only_order=recent[0] if len(recent) == 1 else None,
        )
        result = await delegate(state, task)
        return await validated_order(result, state, None)

    return await validated_with_retries(state, look_up, what="order")


@supervisor_tool(
    OrderLookupTask,
    OrderLookupResult,
    when_to_use=(
        f"the caller asks about an order's status, contents, tracking or delivery. {PASS_ORDER_ID}"
    ),
    menu_phrase="check the status of an order",
    plain_name="Order lookup",
    explains="Finds the caller's order and says its status.",
)
async def lookup_order(
    desk: Desk, context: RunContext[CallState], order_id: CallersOrderId = None
) -> str:
    """Look up one of the caller's orders: status, contents, tracking, delivery."""
    state = context.userdata
    _, order = await desk.callers_order(state, order_id, disclosing=True)
    return status_said(context, disclosed(state, order))
