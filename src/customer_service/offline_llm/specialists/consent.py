"""The consent specialist: records an explicit yes or no to one consent question."""

from __future__ import annotations

import re

from customer_service.call.answers import Phrases, declines_outright, normalise, polarity
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.specialist_replies import first_question, leave, transfer
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.specialists.consent import ConsentTopic

__all__ = ["CONSENT_TOPICS_QUESTION", "SPECIALIST", "consent_topic"]

CONSENT_TOPICS_QUESTION = (
    "I can change two choices for you: whether you get text message updates about your "
    "orders, and whether this call is recorded. Which one would you like to change?"
)

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
_MOVE_ON = Phrases(
    [
        "never mind",
        "nevermind",
        "forget it",
        "skip",
        "skip it",
        "skip that",
        "move on",
        "let's move on",
        "next question",
        "give up",
        "cancel",
    ]
)
_QUOTED_QUESTION = re.compile(r'exactly this: "([^"]+)"')


def consent_topic(said: str) -> ConsentTopic | None:
    """The consent topic a normalised line is about, if it names one."""
    if _RECORDING.found_in(said):
        return ConsentTopic.CALL_RECORDING
    if _TEXT_UPDATES.found_in(said):
        return ConsentTopic.ORDER_UPDATES_SMS
    return None


def respond(conversation: Conversation) -> Reply:
    if (handed_over := transfer(conversation)) is not None:
        return handed_over
    if (left := leave(conversation, own="request_consent")) is not None:
        return left
    line = conversation.last_caller_line or ""
    # Consent takes an explicit answer: "okay" or "thanks" alone agrees to nothing.
    answer = polarity(line)
    if answer is not None:
        return CallTool("record_consent", {"granted": answer})
    if _MOVE_ON.found_in(normalise(line)):
        return CallTool("give_up")
    # Unclear ("maybe", "what does that cost?"): the same question again. The task's
    # own code ends it, storing nothing, after a second unclear answer.
    return Say(question_in_instructions(conversation) or first_question(conversation))


def question_in_instructions(conversation: Conversation) -> str | None:
    """The question the instructions say was asked, word for word: the task's first
    line may have led in with other words."""
    quoted = _QUOTED_QUESTION.search(conversation.instructions)
    return quoted.group(1) if quoted else None


def route(conversation: Conversation) -> Reply | None:
    """Text updates or call recording; read before the order rules ("stop texting me
    about my order")."""
    line = conversation.last_caller_line or ""
    said = normalise(line)
    topic = consent_topic(said)
    if topic is not None:
        said_no = {"caller_said_no": True} if declines_outright(line) else {}
        return CallTool("request_consent", {"topic": topic.value, **said_no})
    if _OTHER_CONSENT.found_in(said):
        return Say(CONSENT_TOPICS_QUESTION)
    return None


def asks_for(line: str) -> bool:
    return consent_topic(normalise(line)) is not None


SPECIALIST = OfflineSpecialist(
    name="consent",
    markers=frozenset({"record_consent"}),
    respond=respond,
    prompt=first_question,
    route=route,
    route_rank=10,
    asks_for=asks_for,
    # A request that names its order reads before text updates: after cancellation (20)
    # and address change (30).
    asks_for_rank=35,
)
