"""Shared by the offline model's tests: the agents' tools, conversations, and whole chats.

Rule tests build a conversation by hand and ask `OfflineLLM.chat` for one answer, with
the tools the real agents offer (taken from them, never run), found for each specialist
module of the offline model by its marker tools. Walkthroughs run the real agent on
the offline model through `customer_service.chat.converse`, as `make chat` does.
"""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from livekit.agents import llm
from livekit.agents.llm import function_tool
from livekit.agents.llm.tool_context import get_fnc_tool_names

from customer_service import specialists
from customer_service.call.code_steps import offered_to_the_model
from customer_service.call.order_view import OrderLookupResult
from customer_service.chat import converse
from customer_service.domain import Order
from customer_service.offline_llm import OfflineLLM
from customer_service.offline_llm.routing import CORE_TOOLS, menu
from customer_service.offline_llm.specialists import registered
from customer_service.settings import Settings
from customer_service.store import Store
from customer_service.supervisor import CustomerServiceAgent
from support.clock import DEMO_ORDERS

GREETING = "Hello, thanks for calling. How can I help you today?"
ANYTHING_ELSE = "Is there anything else I can help you with?"
ORDER_QUESTION = "What's the order number? If you don't have it, I can list your recent orders."
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


# --- the agents' tools, taken from the real agents (never run here) -------------------


def names(tools: Sequence[llm.Tool | llm.Toolset]) -> frozenset[str]:
    return frozenset(get_fnc_tool_names(tools))


def offered(tools: Sequence[llm.Tool | llm.Toolset]) -> list[llm.Tool]:
    """The tools the model is offered: the code's own steps left out."""
    return [tool for tool in offered_to_the_model(tools) if isinstance(tool, llm.Tool)]


def without(tools: list[llm.Tool], *left_out: str) -> list[llm.Tool]:
    return [tool for tool in tools if tool.id not in left_out]


def _offered_later(name: str) -> llm.Tool:
    async def offered_later() -> None:
        """Offered by the real task once it runs (a confirm tool after a record)."""

    return function_tool(offered_later, name=name)


def specialist_tools(name: str) -> list[llm.Tool]:
    """The tools the model is offered by the real specialist the offline model plays as
    `name`: its task's tools, and the marker tools the task adds only once it runs
    (`confirm_address` after a record), by name (`tests/offline_llm/test_offline_model.py`
    checks that a real chat offers them)."""
    played = next(specialist for specialist in registered() if specialist.name == name)
    task = next(entry.task for entry in specialists.SPECIALISTS if entry.name == name)
    tools = offered(llm.find_function_tools(task))
    return [*tools, *(_offered_later(tool) for tool in sorted(played.markers - names(tools)))]


FULL_SUPERVISOR = offered(CustomerServiceAgent().tools)
"""The supervisor as it runs: address changes, cancellations and consent too."""
SUPERVISOR = [tool for tool in FULL_SUPERVISOR if tool.id in CORE_TOOLS]
"""A supervisor with only the tools every supervisor offers."""
IDENTITY = specialist_tools("identity")
ORDER_LOOKUP = specialist_tools("order_lookup")
ADDRESS = specialist_tools("address_update")
CANCELLATION = specialist_tools("cancellation")
CONSENT = specialist_tools("consent")

CAPABILITIES = menu(names(SUPERVISOR))
CAPABILITIES_WITH_ADDRESS = menu(names(FULL_SUPERVISOR))
"""What the full supervisor (address changes and cancellations too) says it can do."""


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


def flattened(items: Sequence[llm.ChatItem | list[llm.ChatItem]]) -> list[llm.ChatItem]:
    """Messages and tool rounds as one history."""
    flat: list[llm.ChatItem] = []
    for item in items:
        flat.extend(item if isinstance(item, list) else [item])
    return flat


async def answer(
    tools: list[llm.Tool],
    *items: llm.ChatItem | list[llm.ChatItem],
    model: OfflineLLM | None = None,
) -> llm.CollectedResponse:
    model = model or OfflineLLM()
    return await model.chat(chat_ctx=llm.ChatContext(flattened(items)), tools=tools).collect()


@dataclass(frozen=True)
class TaskChat:
    """A specialist's task as the offline model meets it: the tools the real task offers
    (`specialist_tools`), its instructions and its first question."""

    tools: list[llm.Tool]
    instructions: str
    question: str

    def history(self, *items: llm.ChatItem | list[llm.ChatItem]) -> list[llm.ChatItem]:
        """The task's history: its instructions, its question, then `items`."""
        opening = [llm.ChatMessage(role="system", content=[self.instructions])]
        return [*opening, agent(self.question), *flattened(items)]

    async def answer(self, *items: llm.ChatItem | list[llm.ChatItem]) -> llm.CollectedResponse:
        """The offline model's reply to the task's history with `items` after its question."""
        return await answer(self.tools, *self.history(*items))


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
PRIYA = "Priya Natarajan, 10001, priya.n@example.com"
"""Priya's, as a caller types them (orders 200201, delivered, and 200202)."""


def demo_order(order_id: str) -> Order:
    """A demo order as every fresh store starts with it."""
    return next(order for order in DEMO_ORDERS if order.order_id == order_id)


def demo_order_view(order_id: str) -> OrderLookupResult:
    """A demo order as a specialist is handed it (`OrderLookupResult`)."""
    return OrderLookupResult.from_order(demo_order(order_id))


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


async def chat(
    database_url: str,
    *caller_lines: str,
    model: OfflineLLM | None = None,
    settings: Settings | None = None,
) -> Transcript:
    """One `make chat` call on the offline model: each argument is a line the caller
    types; returns when the input ends or the agent ends the call."""
    out = io.StringIO()
    status = await converse(
        model or OfflineLLM(),
        database_url=database_url,
        lines=io.StringIO("".join(f"{line}\n" for line in caller_lines)),
        out=out,
        echo_caller=True,
        settings=settings,
    )
    assert status == 0
    return Transcript(tuple(out.getvalue().splitlines()))
