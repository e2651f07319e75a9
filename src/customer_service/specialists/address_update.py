"""Address update: collects a new delivery address, reads it back, returns it once confirmed.

The task changes nothing itself. It returns exactly the address the caller confirmed;
`validated_address_update` checks that result and `run_check_write` writes it, once.
"""

from __future__ import annotations

import hashlib

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, ToolFlag
from livekit.agents.types import NOT_GIVEN, NotGivenOr
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from customer_service.addresses import read_back
from customer_service.call.address_capture import (
    ADDRESS_PARTS,
    AddressCapture,
    SavedAddress,
    address_instructions,
    canonical_address,
)
from customer_service.call.address_capture import offers_address as offers_address
from customer_service.call.confirmation import ConfirmationWording
from customer_service.call.consent_wording import ConsentTopic
from customer_service.call.delegation import ResultRejected
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.registration import (
    PASS_ORDER_ID,
    CallersOrderId,
    Desk,
    supervisor_tool,
)
from customer_service.call.run_check_write import run_check_write, well_formed
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN
from customer_service.domain import ORDER_ID_PATTERN, Customer, OrderStatus, PostalAddress
from customer_service.order_numbers import spoken_order_id
from customer_service.specialists.consent import order_updates_offer_due
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store import AddressChangeOutcome, AuditEvent, StoreUnavailable

ADDRESS_INSTRUCTIONS = address_instructions("the new delivery address for one order")

WORDING = ConfirmationWording(
    done="changed",
    thing="the address",
    question=fixed("Is the address I read back right?"),
    asking=fixed("Is that right?"),
    refused="I haven't changed the address, since I couldn't confirm it with you.",
    unanswered=(
        "Before I change anything, please tell me whether the address I read back is right."
    ),
    replaced=(
        "The address has changed since I read it back. Please listen to the new read-back "
        "and confirm that one."
    ),
)


def read_back_question(address: PostalAddress) -> str:
    return WORDING.read_back(f"I have {read_back(address)}.")


def opening_question(order_id: str) -> str:
    return f"What's the new delivery address for order {spoken_order_id(order_id)}? {ADDRESS_PARTS}"


class AddressUpdateResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    address: PostalAddress


class AddressUpdateTask(Specialist[AddressUpdateResult]):
    """Captures a new delivery address for one order, reads it back itself and returns it
    only when the caller heard that read-back in full and clearly said it is right."""

    still_there_question = fixed("What's the new delivery address?")

    def __init__(self, *, order_id: str, chat_ctx: NotGivenOr[ChatContext] = NOT_GIVEN) -> None:
        self._order_id = order_id
        self._capture = AddressCapture(
            self,
            wording=WORDING,
            proposal=lambda address: AddressUpdateResult(order_id=order_id, address=address),
            read_back=read_back_question,
        )
        super().__init__(
            instructions=ADDRESS_INSTRUCTIONS, chat_ctx=chat_ctx, tools=[self._capture.tool]
        )

    async def opening(self) -> None:
        self._capture.open(opening_question(self._order_id))

    def nudge(self) -> None:
        if not self._capture.confirmation.nudge():
            super().nudge()

    def collected(self) -> dict[str, JsonValue]:
        return {"order_id": self._order_id, "address_read_back": self._capture.masked_read_back()}

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller no longer wants to change the address."""
        self.finish(ToolError(WORDING.nothing_done))


def not_changeable_message(order_id: str, status: OrderStatus) -> str:
    spaced = spoken_order_id(order_id)
    if status is OrderStatus.CANCELLED:
        return f"Order {spaced} is cancelled, so there is no delivery to change."
    done = "been delivered" if status is OrderStatus.DELIVERED else "already shipped"
    return (
        f"Order {spaced} has {done}, so I can't change its delivery address any more. {OFFER_HUMAN}"
    )


def ensure_changeable(order: OrderLookupResult) -> None:
    if not order.status.is_pending:
        raise ToolError(not_changeable_message(order.order_id, order.status))


def validated_address_update(result: object, order_id: str) -> PostalAddress:
    """The confirmed address, once it is for the order being changed and passes the same
    address rules again (the result could have been built by anything)."""
    update = well_formed(AddressUpdateResult, result, what="address")
    if update.order_id != order_id:
        raise ResultRejected("address result is for another order")
    return canonical_address(update.address)


def change_key(state: CallState, order_id: str, address: PostalAddress) -> str:
    """The same confirmed change in the same call always gets the same key."""
    digest = hashlib.sha256(address.model_dump_json().encode()).hexdigest()[:24]
    return f"{state.call_id}:{order_id}:{digest}"[:128]


def saved_address_said(
    order: OrderLookupResult, address: PostalAddress, outcome: AddressChangeOutcome
) -> SavedAddress:
    """The sentence that confirms the change the store made; a refusal is raised."""
    spaced = spoken_order_id(order.order_id)
    if outcome is AddressChangeOutcome.CHANGED:
        return SavedAddress.saying(f"Done. Order {spaced} will now be delivered to", address)
    if outcome is AddressChangeOutcome.ALREADY_APPLIED:
        return SavedAddress.saying(f"Order {spaced} is already set to be delivered to", address)
    if outcome is AddressChangeOutcome.ORDER_SHIPPED:
        # It shipped while the caller was giving the new address.
        shipped = order.status if order.status.has_shipped else OrderStatus.PROCESSED
        raise ToolError(not_changeable_message(order.order_id, shipped))
    if outcome is AddressChangeOutcome.ORDER_CANCELLED:
        raise ToolError(not_changeable_message(order.order_id, OrderStatus.CANCELLED))
    raise ToolError(not_found_message(order.order_id))


@supervisor_tool(
    AddressUpdateTask,
    AddressUpdateResult,
    when_to_use=f"the caller wants an order delivered to a different address. {PASS_ORDER_ID}",
    menu_phrase="change a delivery address",
    writes="address_changed",
    plain_name="Delivery address change",
    explains="Where one order is delivered.",
)
async def update_address(
    desk: Desk, context: RunContext[CallState], order_id: CallersOrderId = None
) -> str:
    """Change the delivery address of one of the caller's orders that has not shipped."""
    state = context.userdata
    customer, order = await desk.callers_order(state, order_id)
    ensure_changeable(order)
    history = desk.recent_history()

    async def change(address: PostalAddress, kept: list[AuditEvent]) -> AddressChangeOutcome:
        outcome, _ = await state.store.change_shipping_address(
            order_id=order.order_id,
            customer_id=order.customer_id,
            new_address=address,
            call_id=state.call_id,
            change_key=change_key(state, order.order_id, address),
            other_events=kept,
        )
        return outcome

    saved = await run_check_write(
        state,
        lambda: AddressUpdateTask(order_id=order.order_id, chat_ctx=history),
        check=lambda result: validated_address_update(result, order.order_id),
        write=change,
        said=lambda address, outcome: saved_address_said(order, address, outcome),
        what="address",
    )
    # The change is committed: nothing after this line may report it as failed.
    await owe_text_update_offer(desk, state, customer, context.function_call.call_id, saved)
    return saved.reported


async def owe_text_update_offer(
    desk: Desk, state: CallState, customer: Customer, change_call_id: str, saved: SavedAddress
) -> None:
    """Text updates are offered once after a saved change: a question of its own, put
    after the change has been said (and any words over it answered)."""
    try:
        due = await order_updates_offer_due(state, customer)
    except StoreUnavailable:
        return  # no offer, and the change stands
    if due:
        state.consent_topics_asked.add(ConsentTopic.ORDER_UPDATES_SMS.value)
        desk.owe_question(
            ConsentTopic.ORDER_UPDATES_SMS, after_output_of=change_call_id, lead_in=saved.spoken
        )
