"""Replies every specialist shares: a person, leaving for other work, its question again.

Every specialist also offers `transfer_to_human`: a caller who asks for a person is
handed over from wherever they are.
"""

from __future__ import annotations

from customer_service.call.answers import normalise, polarity
from customer_service.call.callers_request import ASK_FIRST
from customer_service.offline_llm.conversation import CallTool, Conversation
from customer_service.offline_llm.routing import (
    ACCEPTED_OFFER,
    ASKED_FOR_PERSON,
    new_request,
    offered_colleague,
)
from customer_service.offline_llm.speech import PERSON

__all__ = ["CLEAR_YES_NO", "declined_colleague", "first_question", "leave", "transfer"]

CLEAR_YES_NO = "Sorry, I need a clear yes or no."


def transfer(conversation: Conversation) -> CallTool | None:
    """`transfer_to_human` when the caller asks for a person, or says yes to the offer
    of a colleague (a tool's words: "I can transfer you to a colleague ...")."""
    line = conversation.last_caller_line or ""
    if PERSON.found_in(normalise(line)):
        return CallTool("transfer_to_human", {"reason": ASKED_FOR_PERSON})
    if offered_colleague(conversation) and polarity(line) is True:
        return CallTool("transfer_to_human", {"reason": ACCEPTED_OFFER})
    return None


def declined_colleague(conversation: Conversation) -> bool:
    """Whether the caller said no to the offer of a colleague (a tool's words)."""
    return (
        offered_colleague(conversation) and polarity(conversation.last_caller_line or "") is False
    )


def leave(conversation: Conversation, *, own: str, only_goodbye: bool = False) -> CallTool | None:
    """`caller_wants_something_else` when the caller's line asks the supervisor for other
    work than this specialist's (`own`, its supervisor tool), or says goodbye."""
    line = conversation.last_caller_line or ""
    request = new_request(line)
    if request is None or request == own or (only_goodbye and request != "end_call"):
        return None
    if not conversation.agent_lines():
        # The caller's words that asked for this task, passed in (`request_lines`): they
        # asked for it, whatever other words they hold.
        return None
    return CallTool("caller_wants_something_else", {"request": line})


def first_question(conversation: Conversation) -> str:
    """The question a task that starts without earlier history asked (its first line),
    word for word, to ask again unchanged (consent, cancellation); before it asked, the
    question its opening names, to ask first (`call.callers_request`)."""
    lines = conversation.agent_lines()
    if lines:
        return lines[0]
    _, asks_first, question = conversation.instructions.rpartition(ASK_FIRST)
    return question.strip() if asks_first and question.strip() else CLEAR_YES_NO
