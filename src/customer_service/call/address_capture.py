"""Capture a postal address by voice: record its parts, check them, read it back, and
take only the caller's own clear yes to that read-back.

An address a caller gives is collected the same way wherever it is going (an order's
delivery, the account's default address): the model records the parts as the caller
said them (`AddressCapture.tool`), `validated_address` decides whether they make an
address (plausibility, postal code for the region and country), and the address is
read back in full and confirmed through `ConfirmBeforeActing`. The specialist says only
what is its own: its question, how its read-back frames the address, its wording, and
the result it finishes with.

    capture = AddressCapture(
        self,
        wording=WORDING,
        proposal=lambda address: MyResult(address=address),
        read_back=lambda address: WORDING.read_back(f"I have {read_back(address)}."),
    )
    super().__init__(instructions=address_instructions("..."), tools=[capture.tool])
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from textwrap import dedent
from typing import Any, Generic, TypeVar

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, FunctionTool

from customer_service.addresses import AddressProblem, read_back, validated_address
from customer_service.call.confirmation import ConfirmationWording, ConfirmBeforeActing
from customer_service.call.delegation import ResultRejected
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.heard import caller_messages
from customer_service.call.phrase_cache import say
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import PERSONA, quoted
from customer_service.domain import PostalAddress
from customer_service.privacy import mask_address

__all__ = [
    "ADDRESS_PARTS",
    "MAX_REFUSED_CONFIRMATIONS",
    "AddressCapture",
    "SavedAddress",
    "address_instructions",
    "canonical_address",
    "offers_address",
]

ResultT = TypeVar("ResultT")

MAX_REFUSED_CONFIRMATIONS = 3
"""Confirmations refused for want of a clear yes to one read-back before the specialist
ends, changing nothing: an address is long, and a caller may need to hear it again."""

ADDRESS_PARTS = fixed(
    "Please tell me the street, any apartment or unit, the city, the state or region, the "
    "postal code and the country."
)
"""How every question for an address ends: the parts a caller should say."""

_INSTRUCTIONS = dedent(
    """
    Your only job now is to collect {what}. As soon as the caller has given it, earlier in
    this conversation or when you ask, call {record} with each part as they said it,
    without asking for it again; the country may be a name or a two-letter code. The tool
    reads the address back to the caller itself, so do not repeat it. Call {confirm} only
    after the caller clearly says the read-back is right; if they correct anything, call
    {record} again with the corrected address. If a part is invalid, say what the tool says
    and ask for that part again. If the caller wants to stop, call give_up. Never invent
    or complete any part of an address.
    """
)

# A shape, never a value: a street with its number ("1 Market Street", "Calle Mayor 5"),
# then a five-digit (ZIP or Spanish), Canadian or UK postal code. The model reads the
# parts; `validated_address` and the caller's yes to the read-back decide.
_ADDRESS_LIKE = re.compile(
    r"(?:\b\d{1,5}[^\W\d_]{0,2}\s+[^\W\d_]{2,}|\b[^\W\d_]{2,}\s+\d{1,4}[^\W\d_]?\b)"
    r".*?(?<![\w-])(?:\d{5}(?:-\d{4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})"
    r"(?![\w-])",
    re.IGNORECASE | re.DOTALL,
)


def address_instructions(
    what: str, *, record: str = "record_address", confirm: str = "confirm_address"
) -> str:
    """A capturing specialist's instructions: collect `what` ("the new delivery address
    for one order") with its `record` tool, and confirm it with its `confirm` tool."""
    return PERSONA + _INSTRUCTIONS.format(what=what, record=record, confirm=confirm)


def offers_address(history: ChatContext) -> bool:
    """Whether the caller's words in `history` hold something shaped like an address.
    Six-digit order numbers are not house numbers here."""
    return any(
        _ADDRESS_LIKE.search(message.text_content or "") for message in caller_messages(history)
    )


def canonical_address(address: PostalAddress) -> PostalAddress:
    """`address`, once it passes the address rules again and is in their canonical form:
    a specialist's result could have been built by anything. Raises `ResultRejected`
    naming the failing field, never its value."""
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


@dataclass(frozen=True)
class SavedAddress:
    """The sentence that confirms a saved address: `spoken` to the caller, for the ear,
    and `reported` to the model, the address in it quoted as data."""

    spoken: str
    reported: str

    @classmethod
    def saying(cls, lead: str, address: PostalAddress, after: str = "") -> SavedAddress:
        said = read_back(address)
        tail = f" {after}" if after else ""
        return cls(spoken=f"{lead} {said}.{tail}", reported=f"{lead} {quoted(said)}.{tail}")


class AddressCapture(Generic[ResultT]):
    """The record tool of `specialist` and the confirmation of what it recorded.

    `proposal` makes the result the specialist finishes with from a valid address, and
    `read_back` the words that read it back (ending in the wording's question). The
    record tool is `record_tool` (offered from the start: list `tool` in the
    specialist's tools); the confirm tool, `confirm_tool`, from the first record on.
    """

    def __init__(
        self,
        specialist: Specialist[ResultT],
        *,
        wording: ConfirmationWording,
        proposal: Callable[[PostalAddress], ResultT],
        read_back: Callable[[PostalAddress], str],
        record_tool: str = "record_address",
        confirm_tool: str = "confirm_address",
    ) -> None:
        self._specialist = specialist
        self._proposal = proposal
        self._read_back = read_back
        self._recorded: PostalAddress | None = None
        self.confirmation = ConfirmBeforeActing(
            specialist,
            tool_name=confirm_tool,
            tool_description="Call only after the caller said the read-back address is right.",
            wording=wording,
            max_refusals=MAX_REFUSED_CONFIRMATIONS,
        )
        self.tool: FunctionTool[Any, Any] = function_tool(self.record_address, name=record_tool)

    def open(self, question: str) -> None:
        """Asks `question`, unless the caller already said an address: then one round
        trip for the model to record it, and no question (the tool reads it back)."""
        session = self._specialist.session
        if offers_address(self._specialist.chat_ctx):
            session.generate_reply()
            return
        say(session, question)

    def masked_read_back(self) -> str | None:
        """The address last read back, masked (for a colleague who takes over); None
        before one was."""
        if self.confirmation.proposal is None or self._recorded is None:
            return None
        return mask_address(self._recorded.one_line())

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
        self._recorded = address
        await self.confirmation.propose(self._proposal(address), read_back=self._read_back(address))
