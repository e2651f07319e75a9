"""Payment change: pays a pending order with another of the caller's methods, on their
clear yes only.

The supervisor tool refuses, before the task starts, an order that is not pending, not
paid once, or a caller with no other method. The task names the method that pays now
and asks which other to use; `record_payment_change` checks the choice in code (one of
the caller's own, not the one that pays, a gift card that covers the order) and reads
back what is charged to the new method and what is refunded to the old one, and when.
`confirm_payment_change` takes only the caller's own yes after that read-back. The
supervisor checks the result (`validated_payment_change`) and writes it once, as the
caller heard it (`call.heard_facts`), and says a gift card's balance after the charge;
every refusal of the store is a sentence.

Here the task and the registration; `wording.py` what the caller hears (the question,
the read-back, the refusals); `result.py` the result, the rules and the store's answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from textwrap import dedent

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ToolFlag
from pydantic import JsonValue

from customer_service.call.confirmation import ConfirmBeforeActing
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.heard_facts import as_heard, read_back_again, until_heard_holds
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.payment_methods import (
    PaymentMethodId,
    chosen_method,
    methods_listing,
    spoken_method,
)
from customer_service.call.phrase_cache import say
from customer_service.call.registration import (
    PASS_ORDER_ID,
    CallersOrderId,
    Desk,
    supervisor_tool,
)
from customer_service.call.run_check_write import run_check_write
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import PERSONA
from customer_service.domain import Order, PaymentMethod, Transaction
from customer_service.specialists.payment_change.result import (
    PaymentChangeResult,
    choice_refused,
    payment_change_said,
    the_one_payment,
    validated_payment_change,
)
from customer_service.specialists.payment_change.wording import (
    ONLY_METHOD,
    WORDING,
    opening_question,
    paying_method,
    read_back,
    refused,
    spoken_method_of,
)
from customer_service.store import AuditEvent
from customer_service.store.order_changes import Changed

PAYMENT_CHANGE_INSTRUCTIONS = PERSONA + dedent(
    """
    Your only job now is to learn which other payment method the caller wants order
    {order} paid with. The caller's methods, by id; {paid_with} pays for it now:
    {methods}
    As soon as the caller names one, call record_payment_change with its id; the tool
    reads the change back itself, so do not repeat it. Call confirm_payment_change only
    after the caller clearly says yes to the read-back; if they pick another method,
    call record_payment_change again. If the caller wants to stop, call give_up.
    """
)

Outcome = tuple[Changed[Order], list[PaymentMethod]]
"""What the store answered, and the caller's methods as they stand after it."""

MAX_REFUSED_CONFIRMATIONS = 2
"""Confirmations refused for want of a clear yes before the task ends, changing nothing."""


class PaymentChangeTask(Specialist[PaymentChangeResult]):
    """Learns which other of the caller's methods pays for one order, reads the change
    back itself and returns it only on the caller's clear yes to that read-back."""

    still_there_question = fixed("Which payment method would you like to pay with instead?")

    def __init__(
        self,
        *,
        order: OrderLookupResult,
        paid: Transaction,
        methods: Sequence[PaymentMethod],
        again: PaymentChangeResult | None = None,
    ) -> None:
        self._order = order
        self._paid = paid
        self._methods = tuple(methods)
        self._again = again
        super().__init__(
            instructions=PAYMENT_CHANGE_INSTRUCTIONS.format(
                order=order.order_id, paid_with=paid.method_id, methods=methods_listing(methods)
            )
        )
        self._confirmation = ConfirmBeforeActing(
            self,
            tool_name="confirm_payment_change",
            tool_description=(
                "Make the payment change you read back. Call only after the caller clearly "
                "said yes."
            ),
            wording=WORDING,
            max_refusals=MAX_REFUSED_CONFIRMATIONS,
        )

    def nudge(self) -> None:
        if not self._confirmation.nudge():
            super().nudge()

    def collected(self) -> dict[str, JsonValue]:
        chosen = self._confirmation.proposal
        method_id = chosen.payment_method_id if chosen else None
        return {"order_id": self._order.order_id, "payment_method_id": method_id}

    async def opening(self) -> None:
        # It names the order's amount: its disclosure was recorded when the order was read.
        self.session.userdata.record_disclosure(self._order.order_id)
        if self._again is None:
            say(self.session, opening_question(self._order, self._paid, self._methods))
            return
        # The order or the card's free balance changed after the caller's yes: the same
        # change on the new facts, read back at once, or why it no longer can be made.
        method_id = self._again.payment_method_id
        await read_back_again(self, lambda lead: self._propose(method_id, lead))

    @function_tool()
    @guarded()
    async def record_payment_change(
        self, context: RunContext[CallState], payment_method_id: PaymentMethodId
    ) -> None:
        """Record the method the caller wants to pay with; the tool reads the change back.

        Args:
            payment_method_id: The id of the caller's method to pay with, from your list.
        """
        await self._propose(payment_method_id)

    async def _propose(self, payment_method_id: str, lead: str = "") -> None:
        new = chosen_method(self._methods, payment_method_id)
        paid, order_id = self._paid, self._order.order_id
        refusal = choice_refused(order_id, paid, new)
        if refusal is not None:
            raise ToolError(f"{refusal} {self.still_there_question}")
        old = paying_method(paid, self._methods)
        await self._confirmation.propose(
            PaymentChangeResult(order_id=order_id, payment_method_id=new.method_id),
            read_back=f"{lead} {read_back(self._order, paid, new, old)}".strip(),
            # Only the order number: "yes, 72" must not confirm "72 dollars".
            numbers=order_id,
            # Only the new method: "yes, the gift card" must not confirm its refund.
            names=spoken_method(new),
        )

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller wants to keep paying as they do, or to stop."""
        self.finish(ToolError(WORDING.nothing_done))


@supervisor_tool(
    PaymentChangeTask,
    PaymentChangeResult,
    when_to_use=(
        f"the caller wants an order that has not shipped paid with another of their payment "
        f"methods. {PASS_ORDER_ID}"
    ),
    menu_phrase="change how an order is paid",
    writes="order_payment_changed",
    plain_name="Payment change",
    explains="Which of the caller's methods pays.",
)
async def change_payment_method(
    desk: Desk, context: RunContext[CallState], order_id: CallersOrderId = None
) -> str:
    """Pay one of the caller's orders that has not shipped with another of their methods."""
    state = context.userdata
    # The question names the order's payment: it is read with its disclosure recorded.
    _, first = await desk.callers_order(state, order_id, disclosing=True)

    async def attempt(order: OrderLookupResult, again: PaymentChangeResult | None) -> str:
        paid = the_one_payment(order)
        methods = await state.store.payment_methods(order.customer_id)
        if not [method for method in methods if method.method_id != paid.method_id]:
            raise refused(ONLY_METHOD, order.order_id, method=spoken_method_of(paid, methods))

        async def change(result: PaymentChangeResult, kept: list[AuditEvent]) -> Outcome:
            changed = await state.store.change_order_payment(
                payment_method_id=result.payment_method_id, **as_heard(state, order, kept)
            )
            return changed, await methods_after(changed)

        async def methods_after(changed: Changed[Order]) -> list[PaymentMethod]:
            # As they stand after the change: a gift card's balance after the charge.
            return await state.store.payment_methods(order.customer_id) if changed.done else methods

        async def found(result: PaymentChangeResult) -> Outcome | None:
            now = await state.store.get_order(order.order_id)
            if now is None or now.payments[:1] != order.payments or len(now.payments) < 2:
                return None
            if now.payments[1].method_id != result.payment_method_id:
                return None
            changed = Changed(record=now)
            return changed, await methods_after(changed)

        def said(result: PaymentChangeResult, outcome: Outcome) -> str:
            changed, after = outcome
            now = [method for method in after if method.method_id == result.payment_method_id]
            new = now[0] if now else chosen_method(methods, result.payment_method_id)
            old = paying_method(paid, methods)
            return payment_change_said(order, changed, paid, new, old, result)

        return await run_check_write(
            state,
            lambda: PaymentChangeTask(order=order, paid=paid, methods=methods, again=again),
            check=lambda result: validated_payment_change(result, order.order_id, paid, methods),
            write=change,
            said=said,
            what="payment change",
            found=found,
        )

    return await until_heard_holds(desk, state, first, attempt)
