"""The task and the supervisor's run of a swap of an order's items (`call.item_swaps`):
an exchange and an item change are each this task with their own rules and words, and
their supervisor tools each `swap_of_callers_order`.

The task lists the order's items, their products' variants and the caller's methods in
its instructions, records the swap with the specialist's record tool (every rule checked
in code, the difference computed in code), reads it back and takes only the caller's
own yes (`ConfirmBeforeActing`). `run_swap` runs it for the supervisor tool, checks the
result again in code and writes it once (`run_check_write`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar, Generic, Protocol

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, ToolFlag
from pydantic import JsonValue

from customer_service.call.callers_request import (
    naming_a_new_version,
    open_on_request,
    request_lines,
)
from customer_service.call.confirmation import ConfirmBeforeActing
from customer_service.call.delegation import ResultRejected
from customer_service.call.guard import guarded
from customer_service.call.heard_facts import (
    ReadBackStale,
    as_heard,
    read_back_again,
    until_heard_holds,
)
from customer_service.call.item_swaps import (
    ItemSwapResult,
    ResultT,
    Swap,
    SwapChoices,
    SwapRules,
    checked_swap,
    chosen_names,
    item_refusal,
    read_back,
    swap_choices,
)
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.payment_methods import PaymentMethodId
from customer_service.call.registration import Desk
from customer_service.call.run_check_write import run_check_write, well_formed
from customer_service.call.speakable import spoken_items
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.domain import Order
from customer_service.order_numbers import spoken_order_id
from customer_service.store import AuditEvent
from customer_service.store.order_changes import Changed, ChangeRefusal, Heard

__all__ = ["ItemSwapTask", "run_swap", "swap_of_callers_order"]

MAX_REFUSED_CONFIRMATIONS = 2
"""Confirmations refused for want of a clear yes before the task ends, changing nothing."""
RECORD_DESCRIPTION = (
    "Record the {verb}: the units, the variant each becomes and the payment method; the "
    "tool checks them and reads the {verb} back itself."
)
CONFIRM_DESCRIPTION = "Make the {verb} you read back. Call only after the caller clearly said yes."


class ItemSwapTask(Specialist[ResultT], Generic[ResultT]):
    """Learns which units of one order become which variants and through which of the
    caller's methods the difference goes, checks it all in code, reads it back and
    returns it only when the caller heard that read-back in full and clearly said yes."""

    rules: ClassVar[SwapRules[Any]]
    """The specialist's: what its swap allows and says."""

    def __init__(
        self,
        choices: SwapChoices,
        again: ItemSwapResult | None = None,
        request: ChatContext | None = None,
    ) -> None:
        self._choices = choices
        self._again = again
        self._rules = rules = self.rules
        self.still_there_question = rules.still_there_question
        record = function_tool(
            self._record,
            name=rules.record_tool,
            description=RECORD_DESCRIPTION.format(verb=rules.verb),
        )
        # Of the call's history, at most the caller's words that asked for it, when they
        # name a version (`call.callers_request`); the rest is asked here.
        super().__init__(instructions=rules.instructions(choices), tools=[record], chat_ctx=request)
        self._confirmation: ConfirmBeforeActing[ResultT] = ConfirmBeforeActing(
            self,
            tool_name=rules.confirm_tool,
            tool_description=CONFIRM_DESCRIPTION.format(verb=rules.verb),
            wording=rules.wording,
            max_refusals=MAX_REFUSED_CONFIRMATIONS,
        )

    def collected(self) -> dict[str, JsonValue]:
        proposal = self._confirmation.proposal
        return {
            "order_id": self._choices.order.order_id,
            "items": len(proposal.item_ids) if proposal else None,
        }

    def nudge(self) -> None:
        if not self._confirmation.nudge():
            super().nudge()

    async def opening(self) -> None:
        # The question names the order's items: its disclosure was recorded when the
        # order was read (the supervisor tool reads it with `disclosing`).
        order = self._choices.order
        self.session.userdata.record_disclosure(order.order_id)
        again = self._again
        if again is None:
            return open_on_request(
                self,
                f"Order {spoken_order_id(order.order_id)} contains {spoken_items(order.items)}. "
                f"{self._rules.question}",
            )
        # The order, a price or the card's free balance changed after the caller's yes:
        # the same swap on the new facts, read back at once, or why it no longer can be.
        await read_back_again(
            self,
            lambda lead: self._propose(
                list(again.item_ids), list(again.new_item_ids), again.payment_method_id, lead
            ),
        )

    @guarded()
    async def _record(
        self,
        context: RunContext[CallState],
        item_ids: list[str],
        new_item_ids: list[str],
        payment_method_id: PaymentMethodId,
    ) -> None:
        """Record the swap; the tool checks it and reads it back itself.

        Args:
            item_ids: The item id of each unit to swap, from the order's items; an id
                twice for two units of it.
            new_item_ids: For each of those units, in the same order, the id of the
                variant it becomes, from that item's variants.
            payment_method_id: The caller's payment method for the price difference.
        """
        await self._propose(item_ids, new_item_ids, payment_method_id)

    async def _propose(
        self,
        item_ids: list[str],
        new_item_ids: list[str],
        payment_method_id: str,
        lead: str = "",
    ) -> None:
        choices, rules = self._choices, self._rules
        swap = checked_swap(choices, item_ids, new_item_ids, payment_method_id, rules)
        result = rules.result(
            order_id=choices.order.order_id,
            item_ids=tuple(item.item_id or "" for item, _ in swap.pairs),
            new_item_ids=tuple(variant.item_id for _, variant in swap.pairs),
            payment_method_id=swap.method.method_id,
        )
        await self._confirmation.propose(
            result,
            read_back=f"{lead} {read_back(choices, swap, rules)}".strip(),
            # Only the order number: "yes, two" must not confirm "two yoga blocks".
            numbers=choices.order.order_id,
            # Only the new items and the method: "yes, the black one" is a correction
            # when black is what the caller has now.
            names=chosen_names(swap),
        )

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller no longer wants to swap anything."""
        self.finish(ToolError(self._rules.wording.nothing_done))


def validated_swap(
    result: object, choices: SwapChoices, rules: SwapRules[Any]
) -> tuple[ItemSwapResult, Swap]:
    """The confirmed swap, once it is well formed, for the order and passes every rule."""
    swap_result = well_formed(rules.result, result, what=rules.verb)
    if swap_result.order_id != choices.order.order_id:
        raise ResultRejected(f"{rules.verb} result is for another order")
    try:
        swap = checked_swap(
            choices,
            list(swap_result.item_ids),
            list(swap_result.new_item_ids),
            swap_result.payment_method_id,
            rules,
        )
    except ToolError:
        raise ResultRejected(f"{rules.verb} result breaks a rule") from None
    return swap_result, swap


def swap_outcome(
    changed: Changed[Order], choices: SwapChoices, rules: SwapRules[Any], result: ItemSwapResult
) -> Order:
    """The order after the swap; a speakable `ToolError` for each refusal, and
    `ReadBackStale` with `result` when the order, a price or the card's free balance is
    no longer what the caller heard."""
    if changed.record is not None:
        return changed.record
    refusal = changed.refusal or ChangeRefusal.ORDER_NOT_FOUND
    if refusal in (ChangeRefusal.CHANGED_SINCE_READ_BACK, ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW):
        raise ReadBackStale(result)
    status = rules.status_refused(choices.order.order_id, refusal)
    raise ToolError(status if status is not None else item_refusal(refusal, choices, rules))


class SwapWrite(Protocol):
    """The store's write of a swap (`Store.exchange_order_items`, `change_order_items`)."""

    def __call__(
        self,
        *,
        order_id: str,
        customer_id: str,
        item_ids: Sequence[str],
        new_item_ids: Sequence[str],
        payment_method_id: str,
        call_id: str,
        heard: Heard | None = None,
        other_events: Sequence[AuditEvent] = (),
    ) -> Awaitable[Changed[Order]]: ...


async def run_swap(
    state: CallState,
    choices: SwapChoices,
    rules: SwapRules[Any],
    task: Callable[[SwapChoices, ItemSwapResult | None, ChatContext | None], Specialist[Any]],
    *,
    write: SwapWrite,
    said: Callable[[Swap, Order], str],
    again: ItemSwapResult | None = None,
    request: ChatContext | None = None,
) -> str:
    """Runs a fresh `task` for `choices` (and the request to read back `again`, or the
    caller's words that asked for it and name a version, `request`), checks
    its result in code, writes it once with `write`, as the caller heard it, and returns
    `said` of the checked swap and the order after it, or raises a speakable `ToolError`
    (`run_check_write`) or `ReadBackStale`."""
    order = choices.order

    async def store(checked: tuple[ItemSwapResult, Swap], kept: list[AuditEvent]) -> Changed[Order]:
        swap = checked[0]
        return await write(
            item_ids=swap.item_ids,
            new_item_ids=swap.new_item_ids,
            payment_method_id=swap.payment_method_id,
            **as_heard(state, order, kept, checked[1].difference),
        )

    async def found(checked: tuple[ItemSwapResult, Swap]) -> Changed[Order] | None:
        now = await state.store.get_order(order.order_id)
        return Changed(record=now) if now and now.status is rules.swapped else None

    def told(checked: tuple[ItemSwapResult, Swap], changed: Changed[Order]) -> str:
        return said(checked[1], swap_outcome(changed, choices, rules, checked[0]))

    return await run_check_write(
        state,
        lambda: task(choices, again, None if again else request),
        check=lambda result: validated_swap(result, choices, rules),
        write=store,
        said=told,
        what=rules.verb,
        found=found,
    )


async def swap_of_callers_order(
    desk: Desk,
    state: CallState,
    order_id: str | None,
    task: type[ItemSwapTask[Any]],
    *,
    write: SwapWrite,
    said: Callable[[Swap, Order], str],
) -> str:
    """A swap's supervisor tool: the verified caller's order (its disclosure recorded, as
    the task names its items), refused in words unless it is in the one state `task`'s
    rules swap, then `run_swap`."""
    rules = task.rules
    asked = request_lines(desk.chat_ctx)  # the words that asked for it
    _, first = await desk.callers_order(state, order_id, disclosing=True)

    async def attempt(order: OrderLookupResult, again: ItemSwapResult | None) -> str:
        if order.status is not rules.swappable:
            raise ToolError(rules.not_swappable_message(order.order_id, order.status))
        choices = await swap_choices(state, order)
        request = naming_a_new_version(asked, order.items, choices.products)
        return await run_swap(
            state, choices, rules, task, write=write, said=said, again=again, request=request
        )

    return await until_heard_holds(desk, state, first, attempt)
