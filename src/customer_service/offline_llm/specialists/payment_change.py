"""The payment change specialist: records the other method the caller names and confirms
its read-back."""

from __future__ import annotations

import re

from customer_service.call.answers import Phrases, normalise, polarity
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.payment_words import listed_methods, method_named
from customer_service.offline_llm.routing import names_an_order, order_arguments
from customer_service.offline_llm.specialist_replies import (
    CLEAR_YES_NO,
    first_question,
    leave,
    transfer,
)
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.offline_llm.speech import REFUSALS

__all__ = ["SPECIALIST"]

_PAYMENT_CHANGE = Phrases(
    [
        "payment method",
        "change the payment",
        "change my payment",
        "change how i pay",
        "change how it's paid",
        "pay with",
        "pay it with",
        "pay for it with",
        "pay by",
        "charge it to",
        "charge my",
        "different card",
        "another card",
        "how i'm paying",
        "how i am paying",
        "how i paid",
        "how i'm paying for",
        "put it on my",
        "with my card instead",
        "card instead",
        "other card",
    ],
    plurals=True,
)
# The instructions name the method that pays now: "...; paypal_9000201 pays for it now:".
_PAYING_NOW = re.compile(r"; (\S+) pays for it now")
_PAYING_WORDS = frozenset({"pay", "paid", "charge", "charged"})
_RECORD = "record_payment_change"


def _only_other_method(conversation: Conversation) -> str | None:
    """The one listed method that does not pay for the order now, when there is one."""
    paying = _PAYING_NOW.search(conversation.instructions)
    others = [
        method_id
        for method_id in listed_methods(conversation.instructions)
        if paying is None or method_id != paying.group(1)
    ]
    return others[0] if len(others) == 1 else None


def respond(conversation: Conversation) -> Reply:
    if (handed_over := transfer(conversation)) is not None:
        return handed_over
    if (left := leave(conversation, own="change_payment_method")) is not None:
        return left
    line = conversation.last_caller_line or ""
    named = method_named(conversation.instructions, line)
    recorded = (conversation.last_arguments(_RECORD) or {}).get("payment_method_id")
    if named is not None and named != recorded:
        # A method named, first or instead of the one read back: the tool reads it back.
        return CallTool(_RECORD, {"payment_method_id": named})
    answer = polarity(line)
    answered = conversation.output_answered()
    if (
        answered is not None
        and not answered.is_error
        and conversation.tool_name(answered) == _RECORD
    ):
        # The caller answers the read-back: the task's own code checks any yes again.
        if answer is True:
            return CallTool("confirm_payment_change")
        if answer is False:
            return CallTool("give_up")
        if not REFUSALS.found_in(normalise(line)):
            return Say(CLEAR_YES_NO)
    elif answer is True and (only := _only_other_method(conversation)) is not None:
        # "Would you like to pay it with your PayPal account instead?" "Yes."
        return CallTool(_RECORD, {"payment_method_id": only})
    if answer is False or REFUSALS.found_in(normalise(line)):
        return CallTool("give_up")
    return Say(first_question(conversation))


def _asks_to_change(line: str) -> bool:
    said = normalise(line)
    words = set(re.findall(r"[a-z']+", said))
    # "I'd like to pay for order 200202 with PayPal instead".
    paying_instead = bool(_PAYING_WORDS & words) and "instead" in words
    return paying_instead or _PAYMENT_CHANGE.found_in(said)


def route(conversation: Conversation) -> Reply | None:
    if _asks_to_change(conversation.last_caller_line or ""):
        return CallTool("change_payment_method", order_arguments(conversation))
    return None


def asks_for(line: str) -> bool:
    return _asks_to_change(line) and names_an_order(line)


SPECIALIST = OfflineSpecialist(
    name="payment_change",
    # confirm_payment_change is offered only once a method is recorded.
    markers=frozenset({_RECORD, "confirm_payment_change"}),
    respond=respond,
    prompt=first_question,
    route=route,
    # Before returns (25) and order lookup (40): "pay for order 200202 with PayPal"
    # names an order; after cancellation (20).
    route_rank=22,
    menu_rank=35,
    asks_for=asks_for,
)
