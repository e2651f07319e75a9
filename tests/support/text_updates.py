"""A verified caller asking for text updates about their orders, as the consent tests
drive it: the model's steps (the consent tool, the identity check, then the answers
scripted), and the caller's lines (the request, their details, then their answers)."""

from __future__ import annotations

from livekit.agents import AgentSession

from customer_service.call.state import CallState

from .conversation import JORDAN, JORDAN_SAYS, check_identity
from .scripted_llm import Call, Step
from .scripted_llm import relay_tool_output as relay


def asking_for_texts(*answers: Step) -> list[Step]:
    """The model's steps: the consent tool for text updates, Jordan's identity check,
    `answers` (the task's tools), and the relay of what the consent tool says."""
    return [
        Call("request_consent", {"topic": "order_updates_sms"}),
        check_identity(JORDAN),
        *answers,
        relay,
    ]


async def ask_for_texts(session: AgentSession[CallState], *answers: str) -> None:
    """Jordan asks for text updates, gives their details, then says each of `answers`."""
    await session.run(user_input="Can you send me text updates?")
    await session.run(user_input=JORDAN_SAYS)
    for answer in answers:
        await session.run(user_input=answer)
