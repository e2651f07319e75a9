"""Address update: collects a new delivery address, reads it back, returns it once confirmed.

The task changes nothing itself. It returns exactly the address the caller confirmed;
`validated_address_update` checks that result and `run_check_write` writes it, once.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from textwrap import dedent

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, ToolFlag
from livekit.agents.types import NOT_GIVEN, NotGivenOr
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from customer_service.addresses import AddressProblem, read_back, validated_address
from customer_service.call.confirmation import ConfirmationWording, ConfirmBeforeActing
from customer_service.call.consent_wording import ConsentTopic
from customer_service.call.delegation import ResultRejected
from customer_service.call.guard import guarded
from customer_service.call.heard import caller_messages
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
from customer_service.call.wording import OFFER_HUMAN, PERSONA, quoted
from customer_service.domain import ORDER_ID_PATTERN, Customer, OrderStatus, PostalAddress
from customer_service.order_numbers import spoken_order_id
from customer_service.privacy import mask_address
from customer_service.specialists.consent import order_updates_offer_due
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store import AddressChangeOutcome, AuditEvent, StoreUnavailable

ADDRESS_INSTRUCTIONS = PERSONA + dedent(
    """
    Your only job now is to collect the new delivery address for one order. As soon as
    the caller has given it, earlier in this conversation or when you ask, call
    record_address with each part as they said it, without asking for it again; the
    country may be a name or a two-letter code. The tool reads the address back to the
    caller itself, so do not repeat it. Call confirm_address only after the caller clearly says
    the read-back is right; if they correct anything, call record_address again with the
    corrected address. If a part is invalid, say what the tool says and ask for that part
    again. If the caller wants to stop, call give_up. Never invent or complete any part
    of an address.
    """
)

WORDING = ConfirmationWording(
    done="changed",
    thing="the address",
    question="Is the address I read back right?",
    asking="Is that right?",
    refused="I haven't changed the address, since I couldn't confirm it with you.",
    unanswered=(
        "Before I change anything, please tell me whether the address I read back is right."
    ),
    replaced=(
        "The address has changed since I read it back. Please listen to the new read-back "
        "and confirm that one."
    ),
)
MAX_REFUSED_CONFIRMATIONS = 3
"""Confirmations refused for want of a clear yes to one read-back before the task ends,
changing nothing."""


# A shape, never a value: a street with its number ("1 Market Street", "Calle Mayor 5"),
# then a five-digit (ZIP or Spanish), Canadian or UK postal code. The model reads the
# parts; `validated_address` and the caller's yes to the read-back decide.
_ADDRESS_LIKE = re.compile(
    r"(?:\b\d{1,5}[^\W\d_]{0,2}\s+[^\W\d_]{2,}|\b[^\W\d_]{2,}\s+\d{1,4}[^\W\d_]?\b)"
    r".*?(?<![\w-])(?:\d{5}(?:-\d{4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})"
    r"(?![\w-])",
    re.IGNORECASE | re.DOTALL,
)


def offers_address(history: ChatContext) -> bool:
    """Whether the caller's words in `history` hold something shaped like an address.
    Six-digit order numbers are not house numbers here."""
    return any(
        _ADDRESS_LIKE.search(message.text_content or "") for message in caller_messages(history)
    )


def read_back_question(address: PostalAddress) -> str:
    return WORDING.read_back(f"I have {read_back(address)}.")


def opening_question(order_id: str) -> str:
    return (
        f"What's the new delivery address for order {spoken_order_id(order_id)}? Please tell "
        "me the "
        "street, any apartment or unit, the city, the state or region, the postal code and "
        "the country."
    )


class AddressUpdateResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    address: PostalAddress


class AddressUpdateTask(Specialist[AddressUpdateResult]):
    """Captures a new delivery address for one order, reads it back itself and returns it
    only when the caller heard that read-back in full and clearly said it is right."""

    still_there_question = "What's the new delivery address?"

    def __init__(self, *, order_id: str, chat_ctx: NotGivenOr[ChatContext] = NOT_GIVEN) -> None:
        super().__init__(instructions=ADDRESS_INSTRUCTIONS, chat_ctx=chat_ctx)
        self._order_id = order_id
        # Offered from the first record_address on.
        self._confirmation = ConfirmBeforeActing(
            self,
            tool_name="confirm_address",
            tool_description="Call only after the caller said the read-back address is right.",
            wording=WORDING,
            max_refusals=MAX_REFUSED_CONFIRMATIONS,
        )

    async def opening(self) -> None:
        if offers_address(self.chat_ctx):
            # The caller already said an address: one round trip for the model to record
            # it, and no question. The tool then reads it back, as always.
            self.session.generate_reply()
            return
        self.session.say(opening_question(self._order_id))

    def nudge(self) -> None:
        if not self._confirmation.nudge():
            super().nudge()

    def collected(self) -> dict[str, JsonValue]:
        recorded = self._confirmation.proposal
        return {
            "order_id": self._order_id,
            "address_read_back": mask_address(recorded.address.one_line()) if recorded else None,
        }

    @function_tool()
    @guarded()
    async def record_address(
        self,
        context: RunContext[CallState],
        street: str,
        city: str,
        region: str,
        postal_code: str,
        country: str,
        unit: str | None = None,
    ) -> None:
        """Record the new address the caller gave; the tool reads it back to them itself.

        Args:
            street: House number and street name.
            city: City or town.
            region: State, province or region; empty if the caller's country has none.
            postal_code: ZIP or postal code.
            country: Country name or two-letter code.
            unit: Apartment, suite or unit, if any.
        """
        try:
            address = validated_address(
                street=street,
                city=city,
                region=region,
                postal_code=postal_code,
                country=country,
                unit=unit,
            )
        except AddressProblem as problem:
            raise ToolError(problem.message) from None
        await self._confirmation.propose(
            AddressUpdateResult(order_id=self._order_id, address=address),
            read_back=read_back_question(address),
        )

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
    address = update.address
    try:
        revalidated = validated_address(
            street=address.street,
            city=address.city,
            region=address.region,
            postal_code=address.postal_code,
            country=address.country,
            unit=address.unit,
        )
    except AddressProblem as problem:
        raise ResultRejected(f"address result fails validation: {problem.field}") from None
    if revalidated != address:
        raise ResultRejected("address result is not in canonical form")
    return address


def change_key(state: CallState, order_id: str, address: PostalAddress) -> str:
    """The same confirmed change in the same call always gets the same key."""
    digest = hashlib.sha256(address.model_dump_json().encode()).hexdigest()[:24]
    return f"{state.call_id}:{order_id}:{digest}"[:128]


@dataclass(frozen=True)
class SavedAddress:
    """The sentence that confirms a saved change: `spoken` to the caller, for the ear, and
    `reported` to the model, the address in it quoted as data."""

    spoken: str
    reported: str

    @classmethod
    def saying(cls, lead: str, address: PostalAddress) -> SavedAddress:
        said = read_back(address)
        return cls(spoken=f"{lead} {said}.", reported=f"{lead} {quoted(said)}.")


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
