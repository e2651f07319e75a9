"""An order picked without its number: the caller's recent orders read out, and an order
chosen by what they say about it, a miss counted like a number that finds nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from livekit.agents import RunContext, ToolError, function_tool

from customer_service.call import audit
from customer_service.call.guard import guarded
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.domain import Order
from customer_service.order_choice import NOTHING_FITS, NothingFits, picked_order_id
from customer_service.specialists.order_lookup.reads import recent_orders_read_out
from customer_service.specialists.order_lookup.wording import NOT_VERIFIED, TOO_MANY_MISSES


class OrderChoice(Specialist[OrderLookupResult]):
    """The order lookup's choice of an order by what it is; the task (`OrderLookupTask`)
    sets the orders the caller heard (`_listed`) and reads the order chosen as any number
    said (`_handle`)."""

    _listed: list[Order]
    _handle: Callable[[CallState, str], Awaitable[None]]

    @function_tool()
    @guarded()
    async def list_recent_orders(self, context: RunContext[CallState]) -> str:
        """List the caller's recent orders, for a caller who doesn't know the number."""
        self._listed, said = await recent_orders_read_out(context.userdata)
        return said

    @function_tool()
    # Its own cap on misses is the stricter bound here, as for numbers.
    @guarded(count_repeats=False)
    async def choose_order(self, context: RunContext[CallState], choice: str) -> None:
        """Choose one of the caller's orders by what they say about it instead of its
        number: an item, a date, a status, a place in the list, or "that one" for the
        order just discussed.

        Args:
            choice: The caller's words for the order, as said ("the headphones", "the
                delivered one", "the first one", "that order").
        """
        state = context.userdata
        customer = state.verified_customer
        if customer is None:
            raise ToolError(NOT_VERIFIED)
        try:
            order_id = await picked_order_id(state, customer.customer_id, choice, self._listed)
        except NothingFits:
            # Counted, and recorded, like a number that finds nothing.
            state.record_order_lookup_failure()
            await audit.record_later(
                state, "order_not_found", customer_id=customer.customer_id, picked=True
            )
            if state.order_lookup_attempts_left == 0:
                self.finish(ToolError(TOO_MANY_MISSES))
                return
            raise ToolError(NOTHING_FITS) from None
        # Read again as any number is: the caller's own order, its disclosure recorded.
        await self._handle(state, order_id)
