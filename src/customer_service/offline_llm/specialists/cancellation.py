"""The cancellation specialist: cancels the order it read back, on a clear yes only."""

from __future__ import annotations

from customer_service.call.answers import Phrases, normalise, polarity
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.heard_order_numbers import (
    find_order_number,
    find_order_number_read_out,
)
from customer_service.offline_llm.routing import names_an_order, order_arguments
from customer_service.offline_llm.specialist_replies import first_question, leave, transfer
from customer_service.offline_llm.specialists import OfflineSpecialist

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


def _names_another_order(conversation: Conversation, line: str) -> bool:
    """Whether the caller's line names an order other than the one read back."""
    said = find_order_number(line)
    read_back = find_order_number_read_out(first_question(conversation))
    return said is not None and (read_back is None or said.order_id != read_back.order_id)


def respond(conversation: Conversation) -> Reply:
    if (handed_over := transfer(conversation)) is not None:
        return handed_over
    if (left := leave(conversation, own="cancel_order")) is not None:
        return left
    line = conversation.last_caller_line or ""
    answer = polarity(line)
    if answer is True and not _names_another_order(conversation, line):
        return CallTool("confirm_cancellation")
    if answer is False or (answer is None and _KEEP_ORDER.found_in(normalise(line))):
        return CallTool("give_up")
    # Unclear ("hmm", "cancel it", a yes about another order): the read-back and its
    # question again, word for word. The task's own code checks any yes again.
    return Say(first_question(conversation))


def route(conversation: Conversation) -> Reply | None:
    if _CANCEL.found_in(normalise(conversation.last_caller_line or "")):
        return CallTool("cancel_order", order_arguments(conversation))
    return None


def asks_for(line: str) -> bool:
    return _CANCEL.found_in(normalise(line)) and names_an_order(line)


SPECIALIST = OfflineSpecialist(
    name="cancellation",
    markers=frozenset({"confirm_cancellation"}),
    respond=respond,
    prompt=first_question,
    route=route,
    route_rank=20,
    menu_rank=30,
    asks_for=asks_for,
)
