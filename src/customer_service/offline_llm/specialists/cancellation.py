"""The cancellation specialist: learns why, then cancels the order it read back, on a clear
yes only."""

from __future__ import annotations

from typing import TypeGuard

from livekit.agents import llm

from customer_service.call.answers import Phrases, normalise, polarity
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.heard_order_numbers import (
    find_order_number,
    find_order_number_read_out,
)
from customer_service.offline_llm.routing import names_an_order, order_arguments
from customer_service.offline_llm.specialist_replies import first_question, leave, transfer
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.specialists.cancellation import CLOSER_REASON_QUESTION
from customer_service.spoken.reasons import cancel_reason_in

__all__ = ["SPECIALIST"]

_CANCEL = Phrases(
    [
        "cancel",
        "cancellation",
        "call off",
        # "I don't want order 100102 any more": the order itself, not how it comes.
        "don't want order",
        "don't want that order",
        "don't want this order",
        "don't want it any more",
        "don't want it anymore",
        "no longer want",
    ],
    plurals=True,
)
# Not `REFUSALS`: there "cancel" means stop, and here it is what the caller asked for.
_KEEP_ORDER = Phrases(
    ["keep", "leave it", "never mind", "nevermind", "forget it", "stop", "give up"]
)
_RECORD = "record_cancellation_reason"


def _names_another_order(conversation: Conversation, line: str) -> bool:
    """Whether the caller's line names an order other than the one read back."""
    said = find_order_number(line)
    read_back = find_order_number_read_out(first_question(conversation))
    return said is not None and (read_back is None or said.order_id != read_back.order_id)


def _agent_said(turn: object) -> TypeGuard[llm.ChatMessage]:
    return isinstance(turn, llm.ChatMessage) and turn.role == "assistant"


def _read_back(conversation: Conversation) -> str | None:
    """What the agent said first after the last reason was recorded: the read-back."""
    read_back: str | None = None
    after_record = False
    for turn in conversation.turns:
        if isinstance(turn, llm.FunctionCall) and turn.name == _RECORD:
            after_record, read_back = True, None
        elif after_record and read_back is None and _agent_said(turn):
            read_back = (turn.text_content or "").strip() or None
    return read_back


def prompt(conversation: Conversation) -> str:
    """The read-back once a reason is recorded, else the task's question."""
    return _read_back(conversation) or first_question(conversation)


def _reason(said: str) -> str | None:
    reason = cancel_reason_in(said)
    return None if reason is None else reason.value


def respond(conversation: Conversation) -> Reply:
    if (handed_over := transfer(conversation)) is not None:
        return handed_over
    if (left := leave(conversation, own="cancel_order")) is not None:
        return left
    line = conversation.last_caller_line or ""
    said = normalise(line)
    recorded = conversation.last_arguments(_RECORD)
    if not conversation.agent_lines():
        # Opening on the words that asked for it: their reason, else the task's question.
        reason = _reason(said)
        return CallTool(_RECORD, {"reason": reason}) if reason else Say(prompt(conversation))
    if _KEEP_ORDER.found_in(said):
        return CallTool("give_up")
    if (reason := _reason(said)) is not None and (recorded or {}).get("reason") != reason:
        # The reason, or a corrected one: the tool reads the cancellation back.
        return CallTool(_RECORD, {"reason": reason})
    answer = polarity(line)
    if recorded is None:
        if answer is False:
            return CallTool("give_up")
        if conversation.agent_line_answered() == CLOSER_REASON_QUESTION:
            return CallTool("reason_fits_neither")
        return Say(CLOSER_REASON_QUESTION)
    if answer is True and not _names_another_order(conversation, line):
        return CallTool("confirm_cancellation")
    if answer is False:
        return CallTool("give_up")
    # Unclear ("hmm", "cancel it", a yes about another order): the read-back and its
    # question again, word for word. The task's own code checks any yes again.
    return Say(prompt(conversation))


def route(conversation: Conversation) -> Reply | None:
    if _CANCEL.found_in(normalise(conversation.last_caller_line or "")):
        return CallTool("cancel_order", order_arguments(conversation))
    return None


def asks_for(line: str) -> bool:
    return _CANCEL.found_in(normalise(line)) and names_an_order(line)


SPECIALIST = OfflineSpecialist(
    name="cancellation",
    # confirm_cancellation is offered only once a reason is recorded.
    markers=frozenset({_RECORD, "confirm_cancellation"}),
    respond=respond,
    prompt=prompt,
    route=route,
    route_rank=20,
    menu_rank=30,
    asks_for=asks_for,
)
