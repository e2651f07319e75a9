"""Default address: changes the address on the caller's own account, not an order's.

The new address is collected as an order's delivery address is (`call.address_capture`:
the same rules, the read-back heard in full and the caller's own clear yes), read back
as the account's default address, with the reminder that orders already placed keep
theirs. The task changes nothing itself: the supervisor checks its result
(`validated_default_address`) and writes it once (`run_check_write`). The account's
postal code, which identity checks compare, changes with the address.
"""

from __future__ import annotations

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, ToolFlag
from livekit.agents.types import NOT_GIVEN, NotGivenOr
from pydantic import BaseModel, ConfigDict, JsonValue

from customer_service.addresses import read_back
from customer_service.call.address_capture import (
    ADDRESS_PARTS,
    AddressCapture,
    SavedAddress,
    address_instructions,
    canonical_address,
)
from customer_service.call.confirmation import ConfirmationWording
from customer_service.call.delegation import ResultRejected
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.registration import Desk, supervisor_tool
from customer_service.call.run_check_write import run_check_write, well_formed
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN
from customer_service.domain import Customer, PostalAddress
from customer_service.simulation.expectations import AccountExpectation
from customer_service.store import AuditEvent
from customer_service.store.order_changes import Changed

RECORD_TOOL = "record_account_address"
CONFIRM_TOOL = "confirm_account_address"

DEFAULT_ADDRESS_INSTRUCTIONS = (
    address_instructions(
        "the new default address for the caller's account",
        record=RECORD_TOOL,
        confirm=CONFIRM_TOOL,
    )
    + " Orders already placed keep their delivery addresses: changing where an order goes"
    " is another request."
)

WORDING = ConfirmationWording(
    done="changed",
    thing="the address on your account",
    question=fixed("Is that the right address for your account?"),
)

ORDERS_KEEP_THEIRS = (
    "Orders you've already placed keep their delivery addresses; to change where one of "
    "them goes, that's a separate request."
)
NEW_POSTAL_CODE = "When you call us again, give this new postal code when we confirm who you are."
ACCOUNT_NOT_FOUND = (
    f"I couldn't find your account just now, so I haven't changed its address. {OFFER_HUMAN}"
)


def opening_question() -> str:
    return fixed(f"What's the new default address for your account? {ADDRESS_PARTS}")


def read_back_question(address: PostalAddress) -> str:
    return WORDING.read_back(
        f"The default address on your account would be {read_back(address)}. {ORDERS_KEEP_THEIRS}"
    )


class DefaultAddressResult(BaseModel):
    """The caller's confirmed new default address for their own account."""

    model_config = ConfigDict(frozen=True)

    customer_id: str
    address: PostalAddress


class DefaultAddressTask(Specialist[DefaultAddressResult]):
    """Captures the account's new default address, reads it back itself and returns it
    only when the caller heard that read-back in full and clearly said it is right."""

    still_there_question = fixed("What's the new address for your account?")

    def __init__(self, *, customer_id: str, chat_ctx: NotGivenOr[ChatContext] = NOT_GIVEN) -> None:
        self._capture = AddressCapture(
            self,
            wording=WORDING,
            proposal=lambda address: DefaultAddressResult(customer_id=customer_id, address=address),
            read_back=read_back_question,
            record_tool=RECORD_TOOL,
            confirm_tool=CONFIRM_TOOL,
        )
        super().__init__(
            instructions=DEFAULT_ADDRESS_INSTRUCTIONS,
            chat_ctx=chat_ctx,
            tools=[self._capture.tool],
        )

    async def opening(self) -> None:
        self._capture.open(opening_question())

    def nudge(self) -> None:
        if not self._capture.confirmation.nudge():
            super().nudge()

    def collected(self) -> dict[str, JsonValue]:
        return {"address_read_back": self._capture.masked_read_back()}

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller no longer wants the address on their account changed."""
        self.finish(ToolError(WORDING.nothing_done))


def validated_default_address(result: object, customer_id: str) -> PostalAddress:
    """The confirmed address, once it is for the verified caller's own account and passes
    the address rules again."""
    change = well_formed(DefaultAddressResult, result, what="default address")
    if change.customer_id != customer_id:
        raise ResultRejected("default address result is for another account")
    return canonical_address(change.address)


def default_address_said(
    before: Customer | None, address: PostalAddress, changed: Changed[Customer]
) -> SavedAddress:
    """The sentence that confirms what the store did; a refusal is raised."""
    if not changed.done or before is None:
        raise ToolError(ACCOUNT_NOT_FOUND)
    if before.address == address:
        return SavedAddress.saying("The default address on your account is already", address)
    # The read-back said that orders keep their addresses; a new postal code is what
    # the caller will be asked for next time.
    after = NEW_POSTAL_CODE if before.postal_code != address.postal_code else ""
    return SavedAddress.saying("Done. The default address on your account is now", address, after)


ACCOUNTS_ADDRESSES = AccountExpectation(
    "default_addresses",
    PostalAddress,
    lambda account: account.address,
    "default address",
    PostalAddress.one_line,
)
"""A scenario's `default_addresses`: each account's address at the end, by customer id."""


@supervisor_tool(
    DefaultAddressTask,
    DefaultAddressResult,
    when_to_use=(
        "the caller wants the address on their account (their default address) changed, "
        "not where an order is delivered."
    ),
    menu_phrase="change the address on your account",
    writes="default_address_changed",
    plain_name="Account address change",
    explains="The address on the account.",
    expects=ACCOUNTS_ADDRESSES,
)
async def change_default_address(desk: Desk, context: RunContext[CallState]) -> str:
    """Change the default address on the caller's own account; orders keep theirs."""
    state = context.userdata
    # Only ever the verified caller's account: nothing the model passes names one.
    customer_id = (await desk.verified_caller(state)).customer_id
    history = desk.recent_history()

    async def change(
        address: PostalAddress, kept: list[AuditEvent]
    ) -> tuple[Customer | None, Changed[Customer]]:
        # Read fresh: the address may have changed earlier in this call.
        before = await state.store.get_customer(customer_id)
        changed = await state.store.change_default_address(
            customer_id=customer_id, address=address, call_id=state.call_id, other_events=kept
        )
        return before, changed

    saved = await run_check_write(
        state,
        lambda: DefaultAddressTask(customer_id=customer_id, chat_ctx=history),
        check=lambda result: validated_default_address(result, customer_id),
        write=change,
        said=lambda address, stored: default_address_said(stored[0], address, stored[1]),
        what="default address",
    )
    return saved.reported
