"""The order number typed on a phone's keypad (SIP): the tool offered only on a phone
line, the keys listened for, and a wrong-length entry counted as a miss."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from textwrap import dedent
from typing import Any

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import FunctionTool

from customer_service.call.guard import guarded
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.order_numbers import KEYED_DIGITS
from customer_service.specialists.order_lookup.wording import (
    KEYPAD_ENTRY_NOT_AN_ORDER_NUMBER,
    KEYPAD_ENTRY_STOPPED,
    KEYPAD_NOT_AVAILABLE,
    NOT_VERIFIED,
    TOO_MANY_MISSES,
)
from customer_service.telephony.keypad import (
    KeypadEntryFailed,
    KeypadEntryStopped,
    KeypadUnavailable,
    digits_from_keypad,
)

KEYPAD_INSTRUCTIONS = dedent(
    """
    The caller is on a phone. If they want to type the number on their keypad, call
    type_order_number: it asks them to type and listens for the keys itself.
    """
)


class KeypadEntry(Specialist[OrderLookupResult]):
    """The order lookup's keypad part; the task (`OrderLookupTask`) offers the tool on a
    phone line and handles the digits typed as any number said (`_handle`)."""

    _handle: Callable[[CallState, str], Awaitable[None]]

    def _keypad_tool(self) -> FunctionTool[[RunContext[CallState]], Coroutine[Any, Any, None]]:
        @function_tool(name="type_order_number")
        async def type_order_number(context: RunContext[CallState]) -> None:
            """Let the caller type the order number on their phone's keypad. Call when they
            say they want to type it."""
            await self._type_order_number(context)

        return type_order_number

    # Its own cap on misses is the stricter bound here, as for spoken numbers.
    @guarded(count_repeats=False)
    async def _type_order_number(self, context: RunContext[CallState]) -> None:
        state = context.userdata
        if state.verified_customer is None:
            raise ToolError(NOT_VERIFIED)
        try:
            digits = await digits_from_keypad(KEYED_DIGITS)
        except KeypadUnavailable:
            raise ToolError(KEYPAD_NOT_AVAILABLE) from None
        except KeypadEntryStopped:
            raise ToolError(KEYPAD_ENTRY_STOPPED) from None
        except KeypadEntryFailed:
            # A wrong-length entry is a miss, counted like a number that finds nothing.
            state.record_order_lookup_failure()
            if state.order_lookup_attempts_left == 0:
                self.finish(ToolError(TOO_MANY_MISSES))
                return
            raise ToolError(KEYPAD_ENTRY_NOT_AN_ORDER_NUMBER) from None
        await self._handle(state, digits)
