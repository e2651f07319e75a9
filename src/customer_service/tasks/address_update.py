"""Address update: collects a new delivery address, reads it back, returns it once confirmed.

The task changes nothing itself. It returns exactly the address the caller confirmed,
and the supervisor writes it after its own checks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from textwrap import dedent
from typing import Any

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import (
    ChatContext,
    ChatMessage,
    FunctionCallOutput,
    FunctionTool,
    ToolFlag,
)
from livekit.agents.types import NOT_GIVEN, NotGivenOr
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from customer_service.addresses import AddressProblem, read_back, validated_address
from customer_service.call_state import CallState
from customer_service.domain import ORDER_ID_PATTERN, PostalAddress
from customer_service.guard import guarded
from customer_service.persona import PERSONA
from customer_service.privacy import mask_address
from customer_service.tasks.base import Specialist

ADDRESS_INSTRUCTIONS = PERSONA + dedent(
    """
    Your only job now is to collect the new delivery address for one order. When the
    caller has given it, call record_address with each part as they said it; the country
    may be a name or a two-letter code. Then read back what the tool returns and wait.
    Call confirm_address only after the caller clearly says the read-back is right; if
    they correct anything, call record_address again with the corrected address. If a
    part is invalid, say what the tool says and ask for that part again. If the caller
    wants to stop, call give_up. Never invent or complete any part of an address.
    """
)

ADDRESS_CHANGED_SINCE_READ_BACK = (
    "The address has changed since I read it back. Please listen to the new read-back and "
    "confirm that one."
)
CONFIRMATION_NEEDED = (
    "Before I change anything, please tell me whether the address I read back is right."
)
READ_BACK_NOT_HEARD = (
    "I'm not sure you heard the address I read back. Let me read it again before I change anything."
)
ADDRESS_UPDATE_ABANDONED = "No problem, I haven't changed the address."


def opening_question(order_id: str) -> str:
    return (
        f"What's the new delivery address for order {' '.join(order_id)}? Please tell me the "
        "street, any apartment or unit, the city, the state or region, the postal code and "
        "the country."
    )


class AddressUpdateResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    address: PostalAddress


class AddressUpdateTask(Specialist[AddressUpdateResult]):
    """Captures and confirms a new delivery address for one order."""

    def __init__(self, *, order_id: str, chat_ctx: NotGivenOr[ChatContext] = NOT_GIVEN) -> None:
        super().__init__(instructions=ADDRESS_INSTRUCTIONS, chat_ctx=chat_ctx)
        self._order_id = order_id
        self._read_back: PostalAddress | None = None
        self._read_back_after_turn = 0

    async def on_enter(self) -> None:
        self.session.say(opening_question(self._order_id))

    def collected(self) -> dict[str, JsonValue]:
        read_back_so_far = self._read_back
        return {
            "order_id": self._order_id,
            "address_read_back": mask_address(read_back_so_far.one_line())
            if read_back_so_far
            else None,
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
    ) -> str:
        """Record the new address the caller gave, to read it back to them.

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
        self._read_back = address
        self._read_back_after_turn = self._caller_turns()
        # A confirm tool bound to this exact address: a confirmation meant for an earlier
        # read-back can never confirm a later one.
        tools = [tool for tool in self.tools if getattr(tool, "id", None) != "confirm_address"]
        await self.update_tools([*tools, self._confirm_tool(address)])
        return f"I have {read_back(address)}. Is that right?"

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller no longer wants to change the address."""
        self.finish(ToolError(ADDRESS_UPDATE_ABANDONED))

    def _confirm_tool(self, address: PostalAddress) -> FunctionTool[[], Coroutine[Any, Any, None]]:
        @function_tool(name="confirm_address")
        async def confirm_address() -> None:
            """Call only after the caller said the read-back address is right."""
            # Let a record_address from the same model reply run first, so a correction
            # sent together with a confirmation is never lost.
            await asyncio.sleep(0)
            if self._read_back is not address:
                raise ToolError(ADDRESS_CHANGED_SINCE_READ_BACK)
            if self._caller_turns() <= self._read_back_after_turn:
                raise ToolError(CONFIRMATION_NEEDED)
            if not self._read_back_was_heard():
                raise ToolError(READ_BACK_NOT_HEARD)
            self.finish(AddressUpdateResult(order_id=self._order_id, address=address))

        return confirm_address

    def _read_back_was_heard(self) -> bool:
        """Whether the agent finished saying something after the latest read-back was
        recorded: a "yes" to an interrupted read-back confirms nothing."""
        items = self.chat_ctx.items
        recorded = max(
            (
                index
                for index, item in enumerate(items)
                if isinstance(item, FunctionCallOutput) and item.name == "record_address"
            ),
            default=-1,
        )
        return any(
            isinstance(item, ChatMessage) and item.role == "assistant" and not item.interrupted
            for item in items[recorded + 1 :]
        )

    def _caller_turns(self) -> int:
        return sum(
            1
            for item in self.chat_ctx.items
            if isinstance(item, ChatMessage) and item.role == "user"
        )
