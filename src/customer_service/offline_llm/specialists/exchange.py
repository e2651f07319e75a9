"""The exchange specialist: which delivered items become which versions, through which
method, recorded and confirmed on a clear yes (`offline_llm/swap_replies.py`)."""

from __future__ import annotations

from customer_service.call.answers import Phrases, normalise
from customer_service.offline_llm.conversation import Conversation, Reply
from customer_service.offline_llm.routing import names_an_order
from customer_service.offline_llm.specialist_replies import first_question
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.offline_llm.swap_replies import SwapTools, respond_for, route_for

__all__ = ["SPECIALIST"]

TOOLS = SwapTools(supervisor="exchange_items", record="record_exchange", confirm="confirm_exchange")
# The caller's words choose the tool; whether the order is delivered is the agent's to
# check, and its refusal says what can be done instead.
_EXCHANGE = Phrases(["exchange", "swap", "replacement", "replace", "trade in"], plurals=True)


def respond(conversation: Conversation) -> Reply:
    return respond_for(conversation, TOOLS)


def route(conversation: Conversation) -> Reply | None:
    return route_for(conversation, _EXCHANGE, TOOLS)


def asks_for(line: str) -> bool:
    return _EXCHANGE.found_in(normalise(line)) and names_an_order(line)


SPECIALIST = OfflineSpecialist(
    name="exchange",
    # confirm_exchange is offered only once an exchange is recorded.
    markers=TOOLS.markers,
    respond=respond,
    prompt=first_question,
    route=route,
    # Before returns (25): "exchange it, I'd send it back" is an exchange.
    route_rank=22,
    menu_rank=45,
    asks_for=asks_for,
)
