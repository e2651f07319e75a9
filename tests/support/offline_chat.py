"""Shared by the offline model's tests: the agents' tools, conversations, and whole chats.

Rule tests build a conversation by hand and ask `OfflineLLM.chat` for one answer, with
stand-in tools that have the real agents' names and parameters (`tests/offline_llm/
test_offline_model.py` checks they still match). Walkthroughs run the real agent on
the offline model through `customer_service.chat.converse`, as `make chat` does.
"""

from __future__ import annotations

import io
import itertools
import json
from dataclasses import dataclass
from typing import Any

from livekit.agents import llm
from livekit.agents.llm import function_tool

from customer_service.chat import converse
from customer_service.domain import Order
from customer_service.offline_llm import OfflineLLM
from customer_service.store import Store
from support.clock import DEMO_ORDERS

GREETING = "Hello, thanks for calling. How can I help you today?"
ANYTHING_ELSE = "Is there anything else I can help you with?"
CAPABILITIES = (
    "I can check the status of an order, or put you through to a person. What would you like to do?"
)
CAPABILITIES_WITH_ADDRESS = (
    "I can check the status of an order, change a delivery address, cancel an order, or "
    "put you through to a person. What would you like to do?"
)
"""What the full supervisor (`FULL_SUPERVISOR`: address changes and cancellations too)
says it can do."""
ORDER_QUESTION = (
    "What's the six-digit order number? If you don't have it, I can list your recent orders."
)
IDENTITY_QUESTION = (
    "To verify your identity, please tell me your full name, the postal code, "
    "and the phone number or email on the account."
)
ADDRESS_QUESTION = (
    "Please tell me the full new address: the street, city, state or region, and postal code."
)
CONSENT_TOPICS_QUESTION = (
    "I can change two choices for you: whether you get text message updates about your "
    "orders, and whether this call is recorded. Which one would you like to change?"
)
ASKED_FOR_PERSON = {"reason": "caller asked for a person"}
ACCEPTED_OFFER = {"reason": "caller accepted the offer of a colleague"}


# --- the agents' tools, with the real names and parameters (never run here) ------------


class Supervisor:
    @function_tool()
    async def verify_identity(self) -> str:
        """Verify the caller."""
        return "verified"

    @function_tool()
    async def lookup_order(self, order_id: str | None = None) -> str:
        """Look up an order."""
        return "looked up"

    @function_tool()
    async def transfer_to_human(self, reason: str) -> str:
        """Transfer to a person."""
        return "transferring"

    @function_tool()
    async def end_call(self) -> None:
        """End the call."""


class FullSupervisor(Supervisor):
    """The supervisor as it runs: address changes, cancellations and consent too."""

    @function_tool()
    async def update_address(self, order_id: str | None = None) -> str:
        """Change an order's delivery address."""
        return "updated"

    @function_tool()
    async def cancel_order(self, order_id: str | None = None) -> str:
        """Cancel an order that has not shipped."""
        return "cancelled"

    @function_tool()
    async def request_consent(self, topic: str, caller_said_no: bool = False) -> str:
        """Ask for consent."""
        return "asked"


class SpecialistTools:
    """What every specialist offers: stopping, and handing the caller to a person."""

    @function_tool()
    async def give_up(self) -> None:
        """The caller stops."""

    @function_tool()
    async def caller_wants_something_else(self, request: str) -> None:
        """The caller asks for something else."""

    @function_tool()
    async def transfer_to_human(self, reason: str) -> None:
        """Transfer to a person."""


class Identity(SpecialistTools):
    @function_tool()
    async def check_identity(self, full_name: str, postal_code: str, phone_or_email: str) -> None:
        """Check identity."""


class OrderLookup(SpecialistTools):
    @function_tool()
    async def lookup(self, order_id: str) -> None:
        """Look up one order."""

    @function_tool()
    async def list_recent_orders(self) -> str:
        """List recent orders."""
        return "listed"

    @function_tool()
    async def choose_order(self, choice: str) -> None:
        """Choose an order by what it is."""


class AddressUpdate(SpecialistTools):
    @function_tool()
    async def record_address(
        self,
        street: str,
        city: str,
        region: str,
        postal_code: str,
        country: str,
        unit: str | None = None,
    ) -> str:
        """Record the new address."""
        return "recorded"

    @function_tool()
    async def confirm_address(self) -> None:
        """Confirm it (offered only after a record)."""


class Cancellation(SpecialistTools):
    @function_tool()
    async def confirm_cancellation(self) -> None:
        """Cancel the order read back, after a clear yes."""


class Consent(SpecialistTools):
    @function_tool()
    async def record_consent(self, granted: bool) -> None:
        """Record the answer."""


def tools_of(owner: object) -> list[llm.Tool]:
    return list(llm.find_function_tools(owner))


def without(tools: list[llm.Tool], *names: str) -> list[llm.Tool]:
    return [tool for tool in tools if tool.id not in names]


SUPERVISOR = tools_of(Supervisor())
FULL_SUPERVISOR = tools_of(FullSupervisor())
IDENTITY = tools_of(Identity())
ORDER_LOOKUP = tools_of(OrderLookup())
ADDRESS = tools_of(AddressUpdate())
CANCELLATION = tools_of(Cancellation())
CONSENT = tools_of(Consent())


# --- building conversations and reading answers ----------------------------------------

_call_ids = itertools.count(1)


def user(text: str) -> llm.ChatMessage:
    return llm.ChatMessage(role="user", content=[text])


def agent(text: str) -> llm.ChatMessage:
    return llm.ChatMessage(role="assistant", content=[text])


def tool_round(
    name: str, output: str, *, is_error: bool = False, **arguments: Any
) -> list[llm.ChatItem]:
    call_id = f"call_{next(_call_ids)}"
    return [
        llm.FunctionCall(name=name, arguments=json.dumps(arguments), call_id=call_id),
        llm.FunctionCallOutput(name=name, output=output, is_error=is_error, call_id=call_id),
    ]


async def answer(
    tools: list[llm.Tool],
    *items: llm.ChatItem | list[llm.ChatItem],
    model: OfflineLLM | None = None,
) -> llm.CollectedResponse:
    flat: list[llm.ChatItem] = []
    for item in items:
        flat.extend(item if isinstance(item, list) else [item])
    model = model or OfflineLLM()
    return await model.chat(chat_ctx=llm.ChatContext(flat), tools=tools).collect()


def said(response: llm.CollectedResponse) -> str:
    assert response.tool_calls == [], f"expected words, got {response.tool_calls}"
    return response.text


def called(response: llm.CollectedResponse) -> tuple[str, dict[str, Any]]:
    assert response.text == "", f"expected a tool call, got {response.text!r}"
    assert len(response.tool_calls) == 1
    call = response.tool_calls[0]
    return call.name, json.loads(call.arguments)


# --- whole chats -------------------------------------------------------------------------

GOODBYE = "Thank you for calling. Goodbye!"
JORDAN = "Jordan Lee, 94107, jordan.lee@example.com"
"""Jordan's identity details, as a caller types them (orders 100101 and 100102)."""


def demo_order(order_id: str) -> Order:
    """A demo order as every fresh store starts with it."""
    return next(order for order in DEMO_ORDERS if order.order_id == order_id)


async def stored_order(database_url: str, order_id: str) -> Order:
    """The order as the chat left it in the store."""
    async with await Store.open(database_url) as store:
        order = await store.get_order(order_id)
    assert order is not None
    return order


@dataclass(frozen=True)
class Transcript:
    """A finished `make chat` conversation, as printed."""

    lines: tuple[str, ...]

    @property
    def agent(self) -> list[str]:
        """What the agent said, in order."""
        return [line.removeprefix("Agent: ") for line in self.lines if line.startswith("Agent: ")]

    @property
    def caller(self) -> list[str]:
        """The caller lines the chat read, in order."""
        return [line.removeprefix("Caller: ") for line in self.lines if line.startswith("Caller: ")]

    def text(self) -> str:
        return "\n".join(self.lines)


async def chat(database_url: str, *caller_lines: str) -> Transcript:
    """One `make chat` call on the offline model: each argument is a line the caller
    types; returns when the input ends or the agent ends the call."""
    out = io.StringIO()
    status = await converse(
        OfflineLLM(),
        database_url=database_url,
        lines=io.StringIO("".join(f"{line}\n" for line in caller_lines)),
        out=out,
        echo_caller=True,
    )
    assert status == 0
    return Transcript(tuple(out.getvalue().splitlines()))
