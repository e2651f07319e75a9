"""The item change specialist: which items of a pending order become which versions,
through which method, recorded and confirmed on a clear yes
(`offline_llm/swap_replies.py`)."""

from __future__ import annotations

import re

from customer_service.call.answers import Phrases, normalise
from customer_service.offline_llm.conversation import Conversation, Reply
from customer_service.offline_llm.routing import names_an_order
from customer_service.offline_llm.specialist_replies import first_question
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.offline_llm.swap_replies import SwapTools, respond_for, route_for

__all__ = ["SPECIALIST"]

TOOLS = SwapTools(
    supervisor="change_items", record="record_item_change", confirm="confirm_item_change"
)
# What is changed is an item or one of its options, never the address or the payment.
_CHANGE_ITEMS = Phrases(
    [
        "change the item",
        "change the items",
        "change an item",
        "change items",
        "change my items",
        "change the size",
        "change the colour",
        "change the color",
        "different size",
        "different colour",
        "different color",
        "modify the item",
        "modify the items",
    ],
    plurals=True,
)


def respond(conversation: Conversation) -> Reply:
    return respond_for(conversation, TOOLS)


# Asked in the caller's own words: another version of something they ordered ("can I
# switch it to the 750 one", "I need them in a size ten instead"), which names neither
# the address nor the payment.
_ANOTHER_VERSION = re.compile(
    r"\b(?:switch|change|make|need|want|get)\b.*"
    r"\b(?:instead|size|colou?r|version|the [\w-]+ (?:one|ones))\b"
    # "change the water bottle in my order": an item of the order, changed.
    r"|\b(?:change|switch|swap)\s+the\s+[\w -]+?\s+(?:in|on|from)\s+my\s+order\b"
)
_THEIR_OWN = re.compile(r"\b(?:my|it|them|ordered)\b")
_NOT_AN_ITEM = Phrases(
    ["address", "pay", "paying", "payment", "card", "paypal", "deliver", "going", "email", "text"],
    plurals=True,
)


def _asks_for_another_version(line: str) -> bool:
    said = normalise(line)
    if _CHANGE_ITEMS.found_in(said):
        return True
    return (
        _ANOTHER_VERSION.search(said) is not None
        and _THEIR_OWN.search(said) is not None
        and not _NOT_AN_ITEM.found_in(said)
    )


def route(conversation: Conversation) -> Reply | None:
    if not _asks_for_another_version(conversation.last_caller_line or ""):
        return None
    return route_for(conversation, _CHANGE_ITEMS, TOOLS, asked_for=True)


def asks_for(line: str) -> bool:
    return _asks_for_another_version(line) and names_an_order(line)


SPECIALIST = OfflineSpecialist(
    name="item_change",
    # confirm_item_change is offered only once a change is recorded.
    markers=TOOLS.markers,
    respond=respond,
    prompt=first_question,
    route=route,
    # Before the address change (30): "change the items of order 200202", not where it goes.
    route_rank=23,
    menu_rank=35,
    asks_for=asks_for,
)
