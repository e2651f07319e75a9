"""Demo callers and small readers of a finished conversation."""

from __future__ import annotations

from typing import Any

from livekit.agents import AgentSession, llm

from customer_service.call import audit
from customer_service.call.state import CallState
from customer_service.domain import Order
from customer_service.store import AuditEvent

from .scripted_llm import Call

JORDAN: dict[str, Any] = {
    "full_name": "Jordan Lee",
    "postal_code": "94107",
    "phone_or_email": "jordan.lee@example.com",
}
JORDAN_SAYS = "Jordan Lee, 94107, jordan.lee@example.com"
"""Jordan's three identity details, the way a caller says them in one breath: all of one
account's in one line, so code checks them (`specialists/identity/said.py`)."""
JORDAN_SAYS_TO_THE_MODEL = f"{JORDAN_SAYS}, or my phone 415 555 0134"
"""Jordan's details with two contact details: which one is meant is the identity
specialist's model's to read, so its request stands before the check."""
PRIYA: dict[str, Any] = {
    "full_name": "Priya Natarajan",
    "postal_code": "10001",
    "phone_or_email": "priya.n@example.com",
}
PRIYA_SAYS = "Priya Natarajan, 10001, priya.n@example.com"


def check_identity(details: dict[str, Any], **changes: str) -> Call:
    """The identity specialist's model checking `details`: passed over when its code
    already checked them, all said in the caller's one line (`identity.said`)."""
    return Call("check_identity", {**details, **changes}, only_if_offered=True)


def verifying_for(tool: str, order_id: str, details: dict[str, Any]) -> list[Call]:
    """A model's first steps when the caller names an order before verifying: the
    supervisor tool for it, then the identity specialist's check of `details`."""
    return [Call(tool, {"order_id": order_id}), check_identity(details)]


async def ask_then_verify(session: AgentSession[CallState], request: str, says: str) -> None:
    """The caller's request, then their identity details when the agent asks."""
    await session.run(user_input=request)
    await session.run(user_input=says)


def agent_lines(session: AgentSession[CallState]) -> list[str]:
    """What the agent said, in order."""
    return [
        item.text_content or ""
        for item in session.history.items
        if isinstance(item, llm.ChatMessage) and item.role == "assistant"
    ]


def tool_outputs(session: AgentSession[CallState], name: str) -> list[llm.FunctionCallOutput]:
    return [
        item
        for item in session.history.items
        if isinstance(item, llm.FunctionCallOutput) and item.name == name
    ]


async def audit_events(
    session: AgentSession[CallState], kind: str | None = None
) -> list[AuditEvent]:
    """The call's stored audit events, those kept for its next write included (written
    first, as the call's end would)."""
    await audit.flush(session.userdata)
    return await session.userdata.store.audit_events(call_id=session.userdata.call_id, kind=kind)


async def audit_kinds(session: AgentSession[CallState]) -> list[str]:
    await audit.flush(session.userdata)
    events: list[AuditEvent] = await session.userdata.store.audit_events(
        call_id=session.userdata.call_id
    )
    return [event.kind for event in events]


async def order_now(session: AgentSession[CallState], order_id: str) -> Order:
    """The order as the call's store holds it now."""
    order = await session.userdata.store.get_order(order_id)
    assert order is not None
    return order
