"""The supervisor's rules: route the caller's request to one of its tools, or answer."""

from __future__ import annotations

import json
import re

from livekit.agents import llm

from customer_service.call.answers import (
    Phrases,
    acknowledgement_only,
    declines_outright,
    explicit_answer,
    normalise,
    polarity,
)
from customer_service.call.wording import ANYTHING_ELSE, GREETING, HOW_CAN_I_HELP, offers_human
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.fields import find_order_number, find_order_number_read_out
from customer_service.offline_llm.speech import PERSON
from customer_service.order_choice import mentions_current_order
from customer_service.specialists.consent import ConsentTopic

__all__ = [
    "ACCEPTED_OFFER",
    "ANYTHING_ELSE",
    "ASKED_FOR_PERSON",
    "CONSENT_TOPICS_QUESTION",
    "DECLINED_OFFER",
    "GREETING",
    "HOW_CAN_I_HELP",
    "WHAT_ELSE",
    "YOU_ARE_WELCOME",
    "capabilities",
    "checks_in",
    "consent_topic",
    "new_request",
    "offered_colleague",
    "respond",
]

WHAT_ELSE = "What else can I help you with?"
YOU_ARE_WELCOME = "You're welcome."
DECLINED_OFFER = f"All right. {ANYTHING_ELSE}"
CONSENT_TOPICS_QUESTION = (
    "I can change two choices for you: whether you get text message updates about your "
    "orders, and whether this call is recorded. Which one would you like to change?"
)
ASKED_FOR_PERSON = "caller asked for a person"
ACCEPTED_OFFER = "caller accepted the offer of a colleague"

_GOODBYE = Phrases(
    [
        "bye",
        "goodbye",
        "good bye",
        "that's all",
        "that is all",
        "nothing else",
        "no thanks",
        "no thank you",
        "hang up",
        "that's it",
        "that is it",
        "i'm all set",
        "i'm done",
        "see you",
        "see ya",
        "talk later",
    ]
)
_ADDRESS_CHANGE = Phrases(
    [
        "address",
        "moved",
        "move",
        "ship it to",
        "deliver to",
        "deliver it to",
        "change where",
        "somewhere else",
        "elsewhere",
        "different place",
    ],
    plurals=True,
)
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
_EMAIL_ADDRESS = Phrases(["email address", "e-mail address"], plurals=True)
_TEXT_UPDATES = Phrases(
    [
        "text",
        "texts",
        "texting",
        "texted",
        "text message",
        "text messages",
        "sms",
        "notification",
        "notifications",
        "order updates",
    ]
)
_RECORDING = Phrases(
    [
        "recording",
        "recordings",
        "recorded",
        "record this",
        "record the call",
        "record this call",
        "record my call",
        "record our call",
        "record me",
        "record calls",
        "record it",
    ]
)
# Consent words that name no topic the agent can record ("unsubscribe me").
_OTHER_CONSENT = Phrases(
    [
        "marketing",
        "newsletter",
        "promotions",
        "promotional",
        "special offers",
        "opt in",
        "opt-in",
        "opt out",
        "opt-out",
        "opt me in",
        "opt me out",
        "subscribe",
        "unsubscribe",
        "consent",
        "preferences",
        "preference",
    ]
)
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
    ],
    plurals=True,
)
# "Will it still arrive this week?": a question about the order the call is about.
_ARRIVAL = Phrases(["arrive", "arrives", "arriving", "arrival", "get here", "on its way"])
_VERIFY = Phrases(["verify", "verification", "identity", "account", "who am i"], plurals=True)


# "Hello? Are you still there?" while a tool runs: no request, only a check on the line.
_CHECK_IN = Phrases(
    [
        "hello",
        "hi",
        "hey",
        "are you there",
        "are you still there",
        "still there",
        "anyone there",
        "anybody there",
        "you there",
    ]
)


def checks_in(line: str) -> bool:
    """Whether a line only checks the agent is still on the line: nothing else in it."""
    said = normalise(line)
    return _CHECK_IN.found_in(said) and re.search(r"\w", _CHECK_IN.removed_from(said)) is None


def new_request(line: str) -> str | None:
    """The supervisor tool a caller's line plainly asks for, if it asks for one: a
    goodbye that answers no question, or a request naming its order or topic. What a
    specialist hears as a change of topic when it is not its own work."""
    said = normalise(line)
    number = find_order_number(line)
    names_order = number is not None or mentions_current_order(line) or "order" in said.split()
    if _GOODBYE.found_in(said) and explicit_answer(line) is None:
        return "end_call"
    if _CANCEL.found_in(said) and names_order:
        return "cancel_order"
    if _ADDRESS_CHANGE.found_in(_EMAIL_ADDRESS.removed_from(said)) and names_order:
        return "update_address"
    if consent_topic(said) is not None:
        return "request_consent"
    if number is not None and _ORDER.found_in(said):
        return "lookup_order"
    return None


def capabilities(conversation: Conversation) -> str:
    offers = ["check the status of an order"]
    if conversation.offers("update_address"):
        offers.append("change a delivery address")
    if conversation.offers("cancel_order"):
        offers.append("cancel an order")
    return f"I can {', '.join(offers)}, or put you through to a person. What would you like to do?"


def consent_topic(said: str) -> ConsentTopic | None:
    """The consent topic a normalised line is about, if it names one."""
    if _RECORDING.found_in(said):
        return ConsentTopic.CALL_RECORDING
    if _TEXT_UPDATES.found_in(said):
        return ConsentTopic.ORDER_UPDATES_SMS
    return None


def order_in_discussion(conversation: Conversation) -> str | None:
    """The order the call is about: the last one a tool was called for, the caller named
    or a lookup read out."""
    for turn in reversed(conversation.turns):
        if isinstance(turn, llm.FunctionCall):
            said = str(_arguments(turn).get("order_id") or "")
        elif isinstance(turn, llm.ChatMessage) and turn.role == "user":
            said = turn.text_content or ""
        elif (
            isinstance(turn, llm.FunctionCallOutput)
            and not turn.is_error
            and conversation.tool_name(turn) == "lookup_order"
        ):
            read_out = find_order_number_read_out(turn.output)
            said = read_out.digits if read_out is not None else ""
        else:
            continue
        if (order := find_order_number(said)) is not None:
            return order.digits
    return None


def _arguments(call: llm.FunctionCall) -> dict[str, object]:
    try:
        arguments = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return {}
    return arguments if isinstance(arguments, dict) else {}


def offered_colleague(conversation: Conversation) -> bool:
    """Whether the agent's line the caller is answering offered to transfer them
    ("... I can transfer you to a colleague who can help.")."""
    return offers_human(conversation.agent_line_answered() or "")


def _asked_or_offered(conversation: Conversation) -> bool:
    """Whether the agent's line the caller is answering asked something or offered a
    colleague: "okay" then answers it."""
    asked = conversation.agent_line_answered() or ""
    return asked.endswith("?") or offered_colleague(conversation)


def _answer_to_agent(conversation: Conversation, answer: bool) -> Reply:
    """A bare yes or no, read as the answer to what the agent said last."""
    if offered_colleague(conversation):
        # "I can transfer you to a colleague ..." -> "yes please".
        if answer:
            return CallTool("transfer_to_human", {"reason": ACCEPTED_OFFER})
        return Say(DECLINED_OFFER)
    asked = conversation.agent_line_answered() or ""
    if asked.endswith(ANYTHING_ELSE):
        # "No" to "anything else?" ends the call; "yes" asks what.
        return Say(WHAT_ELSE) if answer else CallTool("end_call")
    return Say(HOW_CAN_I_HELP)


def respond(conversation: Conversation) -> Reply:
    """The supervisor's answer to the caller's latest line."""
    line = conversation.last_caller_line or ""
    said = normalise(line)
    order = find_order_number(line)
    order_arguments = {"order_id": order.digits} if order is not None else {}
    if order is None and mentions_current_order(line):
        # "Change the address for that order": the one just discussed.
        discussed = order_in_discussion(conversation)
        order_arguments = {"order_id": discussed} if discussed else {}
    if PERSON.found_in(said):
        return CallTool("transfer_to_human", {"reason": ASKED_FOR_PERSON})
    if _GOODBYE.found_in(said):
        return CallTool("end_call")
    if conversation.offers("request_consent"):
        # Before the address and order rules: "stop texting me about my order".
        topic = consent_topic(said)
        if topic is not None:
            said_no = {"caller_said_no": True} if declines_outright(line) else {}
            return CallTool("request_consent", {"topic": topic.value, **said_no})
        if _OTHER_CONSENT.found_in(said):
            return Say(CONSENT_TOPICS_QUESTION)
    if conversation.offers("cancel_order") and _CANCEL.found_in(said):
        return CallTool("cancel_order", order_arguments)
    if conversation.offers("update_address") and _ADDRESS_CHANGE.found_in(
        _EMAIL_ADDRESS.removed_from(said)
    ):
        return CallTool("update_address", order_arguments)
    if order is None and _ARRIVAL.found_in(said):
        discussed = order_in_discussion(conversation)
        return CallTool("lookup_order", {"order_id": discussed} if discussed else {})
    if order is not None or _ORDER.found_in(said):
        return CallTool("lookup_order", order_arguments)
    if _VERIFY.found_in(said):
        return CallTool("verify_identity")
    if acknowledgement_only(line) and not _asked_or_offered(conversation):
        # "Okay, thanks" to something the agent said, not asked: nothing to act on.
        return Say(YOU_ARE_WELCOME)
    answer = polarity(line)
    if answer is None:
        return Say(capabilities(conversation))
    return _answer_to_agent(conversation, answer)
