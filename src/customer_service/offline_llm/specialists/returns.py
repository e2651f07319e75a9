"""The returns specialist: records which items go back and why, confirms its read-back."""

from __future__ import annotations

import re

from customer_service.call.answers import Phrases, normalise, polarity
from customer_service.call.wording import unquoted
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.item_choice import items_named
from customer_service.offline_llm.payment_words import listed_methods, method_named
from customer_service.offline_llm.routing import (
    names_an_order,
    order_arguments,
    order_in_discussion,
)
from customer_service.offline_llm.specialist_replies import first_question, leave, transfer
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.offline_llm.speech import REFUSALS
from customer_service.spoken.reasons import return_reason_in

__all__ = ["REASON_QUESTION", "SPECIALIST"]

REASON_QUESTION = "And why are you returning them?"

_RETURN = Phrases(
    [
        "return",
        "send back",
        "send it back",
        "send them back",
        "send something back",
        "send those back",
        "refund",
    ],
    plurals=True,
)
_RETURN_NUMBER = Phrases(["return number", "reference number", "confirmation number", "rma"])
_ALL = Phrases(["all", "everything", "both", "the whole order", "whole thing"])
# "Back where it came from": the first method listed, the one that paid.
_ORIGINAL = Phrases(["original", "same way", "way i paid", "where it came from", "same card"])
# An item line of the task's instructions: '2. "Yoga block", quantity 2' (name quoted).
_ITEM_LINE = re.compile(r"^\s*(\d+)\. (.+), quantity \d+\s*$", re.MULTILINE)


def _items(conversation: Conversation) -> dict[int, str]:
    """The order's items by number, as the task's instructions list them."""
    lines = _ITEM_LINE.findall(conversation.instructions)
    return {int(number): unquoted(name) for number, name in lines}


def _chosen_items(conversation: Conversation, said: str) -> list[int]:
    items = _items(conversation)
    if _ALL.found_in(said) or len(items) == 1:
        # An order of one item: "they don't fit" can only mean it.
        return sorted(items)
    return sorted(items_named(items, said))


def _reason(said: str) -> str | None:
    reason = return_reason_in(said)
    return None if reason is None else reason.value


def _refund_method(conversation: Conversation, said: str, heard: str) -> str | None:
    """The listed method the caller wants the refund sent to; None when none is listed
    (one choice: the task takes it) or the caller has not said."""
    listed = list(listed_methods(conversation.instructions))
    for words in (said, heard):
        if (named := method_named(conversation.instructions, words)) is not None:
            return named
        if listed and _ORIGINAL.found_in(words):
            return listed[0]
    return None


def respond(conversation: Conversation) -> Reply:
    if (handed_over := transfer(conversation)) is not None:
        return handed_over
    if (left := leave(conversation, own="request_return")) is not None:
        return left
    line = conversation.last_caller_line or ""
    said = normalise(line)
    answered = conversation.output_answered()
    read_back = answered is not None and not answered.is_error
    if read_back and answered and conversation.tool_name(answered) == "record_return":
        # The caller answers the read-back: the task's own code checks any yes again.
        answer = polarity(line)
        if answer is True:
            return CallTool("confirm_return")
        if answer is False and not _chosen_items(conversation, said):
            return CallTool("give_up")
    # The words that asked for it (no question asked yet) refuse nothing.
    if REFUSALS.found_in(said) and conversation.agent_lines():
        return CallTool("give_up")
    heard = normalise(" ".join(conversation.caller_lines()))
    items = _chosen_items(conversation, said) or _chosen_items(conversation, heard)
    if not items:
        return Say(first_question(conversation))
    reason = _reason(said) or _reason(heard)
    if reason is None:
        if REASON_QUESTION not in conversation.agent_lines():
            return Say(REASON_QUESTION)
        reason = "other"  # asked once: whatever it was, it is some other reason
    arguments: dict[str, object] = {"item_numbers": items, "reason": reason}
    if (method_id := _refund_method(conversation, said, heard)) is not None:
        arguments["refund_method_id"] = method_id
    return CallTool("record_return", arguments)


def route(conversation: Conversation) -> Reply | None:
    said = normalise(conversation.last_caller_line or "")
    if _RETURN_NUMBER.found_in(said) and not order_arguments(conversation):
        # "What was my return number again?": the return asked for in this call, whose
        # tool says the number again.
        asked = conversation.last_arguments("request_return")
        if asked is not None and (
            order_id := asked.get("order_id") or order_in_discussion(conversation)
        ):
            return CallTool("request_return", {"order_id": order_id})
    if _RETURN.found_in(said):
        return CallTool("request_return", order_arguments(conversation))
    return None


def asks_for(line: str) -> bool:
    return _RETURN.found_in(normalise(line)) and names_an_order(line)


SPECIALIST = OfflineSpecialist(
    name="returns",
    # confirm_return is offered only once a return is recorded.
    markers=frozenset({"record_return", "confirm_return"}),
    respond=respond,
    prompt=first_question,
    route=route,
    # Before order lookup (40): "return order 200201" names an order, asks no question.
    route_rank=25,
    menu_rank=40,
    asks_for=asks_for,
)
