"""The order lookup specialist: finds one of the caller's orders by number or by what it is."""

from __future__ import annotations

import re

from livekit.agents import llm

from customer_service.call.answers import Phrases, acknowledgement_only, normalise, polarity
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.fields import find_number_runs
from customer_service.offline_llm.heard_order_numbers import (
    find_order_number,
    order_numbers_read_out,
)
from customer_service.offline_llm.routing import order_arguments, order_in_discussion
from customer_service.offline_llm.specialist_replies import leave, transfer
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.offline_llm.speech import REFUSALS
from customer_service.order_choice import means_current_order, read_choice

__all__ = ["NUMBER_QUESTION", "ORDER_QUESTION", "SPECIALIST"]

ORDER_QUESTION = "What's the order number? If you don't have it, I can list your recent orders."
NUMBER_QUESTION = "Then what's the order number?"
"""Asked of a caller who said the order offered to them is not the one."""

_ORDER = Phrases(
    [
        "order",
        "package",
        "parcel",
        "delivery",
        "deliveries",
        "shipment",
        "shipping",
        "track",
        "tracking",
        "where is",
        "where's",
        "where are",
        "where my",
        "where our",
        "status",
        # Openings that name no service, only something the caller bought: "I wanted
        # to check on something I ordered", "it's about my stuff".
        "ordered",
        "i bought",
        "i got from you",
        "bought from you",
        "purchase",
        "purchased",
        "my stuff",
        "my things",
    ],
    plurals=True,
)
# "Will it still arrive this week?": a question about the order the call is about.
_ARRIVAL = Phrases(
    [
        "arrive",
        "arrives",
        "arrived",
        "arriving",
        "arrival",
        "get here",
        "gets here",
        "on its way",
        "come yet",
        "came yet",
        "haven't come",
        "hasn't come",
        "shipped",
        "shipped yet",
        "ship yet",
        "happening with",
        "going on with",
        "news on",
        "news about",
        "update on",
        "check on",
        "checking on",
    ]
)
_LIST_ORDERS = Phrases(
    [
        "don't know",
        "do not know",
        "don't have",
        "do not have",
        "recent",
        "list",
        "which orders",
        "which order",
        "what orders",
        "what have i got",
        "what did i order",
        "what i ordered",
        "not sure",
        "don't remember",
        "can't remember",
        "forgot",
    ],
    plurals=True,
)


def respond(conversation: Conversation) -> Reply:
    if (handed_over := transfer(conversation)) is not None:
        return handed_over
    if (left := leave(conversation, own="lookup_order")) is not None:
        return left
    line = conversation.last_caller_line or ""
    order = find_order_number(line)
    if order is not None:
        return CallTool("lookup", {"order_id": order.span.text})
    said = normalise(line)
    if _LIST_ORDERS.found_in(said):
        return CallTool("list_recent_orders")
    offered = _order_offered(conversation)
    if offered is not None and (answer := polarity(line)) is not None:
        # "Is that the one?" about the one order read out: a yes looks it up.
        return CallTool("lookup", {"order_id": offered}) if answer else Say(NUMBER_QUESTION)
    if REFUSALS.found_in(said):
        return CallTool("give_up")
    if _picks_an_order(conversation, line):
        # "The headphones", "the first one", "that order": the tool checks the pick.
        return CallTool("choose_order", {"choice": line})
    if polarity(line) is False:
        # "No" to "what's the number? If you don't have it, I can list your orders."
        return CallTool("list_recent_orders")
    return Say(ORDER_QUESTION)


def _order_offered(conversation: Conversation) -> str | None:
    """The order the agent's line the caller answers asked about ("I see one order ...
    Is that the one?"): a question that reads out one order number, and only one."""
    asked = conversation.agent_line_answered() or ""
    numbers = order_numbers_read_out(asked)
    return numbers[0] if asked.endswith("?") and len(numbers) == 1 else None


def _picks_an_order(conversation: Conversation, line: str) -> bool:
    """Whether the caller's line points at an order by what it is: the order just
    discussed, a place in a list, a date or a status, or words for an item. Once they
    heard a list, only words it contains: what it does not hold is not their pick.
    Before, any words but a number or an acknowledgement: the tool knows their orders."""
    if means_current_order(line):
        return True
    choice = read_choice(line)
    if choice.position or choice.day or choice.status:
        return True
    listed = [
        turn.output.lower()
        for turn in conversation.turns
        if isinstance(turn, llm.FunctionCallOutput)
        and conversation.tool_name(turn) == "list_recent_orders"
    ]
    if not listed:
        # A number of three digits or more is a try at the order number; "the blue one"
        # holds only the word "one".
        numbered = any(len(run.digits) >= 3 for run in find_number_runs(line))
        return bool(choice.words) and not numbered and not acknowledgement_only(line)
    heard_words = set(re.findall(r"[a-z0-9]+", " ".join(listed)))
    return any(word in heard_words or word.rstrip("s") in heard_words for word in choice.words)


def route(conversation: Conversation) -> Reply | None:
    """An order's status, contents or delivery, or "will it arrive?" about the order the
    call is about."""
    line = conversation.last_caller_line or ""
    said = normalise(line)
    named = find_order_number(line) is not None
    if not named and _ARRIVAL.found_in(said):
        discussed = order_in_discussion(conversation)
        return CallTool("lookup_order", {"order_id": discussed} if discussed else {})
    if named or _ORDER.found_in(said):
        return CallTool("lookup_order", order_arguments(conversation))
    return None


def asks_for(line: str) -> bool:
    return find_order_number(line) is not None and _ORDER.found_in(normalise(line))


SPECIALIST = OfflineSpecialist(
    name="order_lookup",
    markers=frozenset({"lookup", "list_recent_orders"}),
    respond=respond,
    prompt=lambda _conversation: ORDER_QUESTION,
    route=route,
    route_rank=40,
    menu_rank=10,
    asks_for=asks_for,
)
