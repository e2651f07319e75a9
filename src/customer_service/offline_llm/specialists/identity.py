"""The identity specialist: checks the caller's name, postal code and phone or email, or,
when its `check_identity` takes an `email` (IDENTITY_POLICY=email-or-name-zip), the
email alone or the name and postal code."""

from __future__ import annotations

from livekit.agents import llm

from customer_service.call.answers import Phrases, normalise
from customer_service.call.identity_policy import (
    NO_DETAILS_WAY_OUT,
    OPENING_QUESTION_EMAIL_OR_NAME_ZIP,
)
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.identity_details import (
    IdentityDetails,
    details_to_check,
    email_or_name_zip_arguments,
    email_or_name_zip_prompt,
    identity_details,
    missing_details_prompt,
)
from customer_service.offline_llm.specialist_replies import declined_colleague, leave, transfer
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.offline_llm.speech import REFUSALS
from customer_service.specialists.identity import OPENING_QUESTION, OPENING_QUESTION_ON_A_PHONE

__all__ = ["SPECIALIST"]

_VERIFY = Phrases(["verify", "verification", "identity", "account", "who am i"], plurals=True)


def _by_email_or_name_zip(conversation: Conversation) -> bool:
    return conversation.takes("check_identity", "email")


def _asking(conversation: Conversation, details: IdentityDetails) -> str:
    if _by_email_or_name_zip(conversation):
        return email_or_name_zip_prompt(details)
    return missing_details_prompt(details)


def _check(conversation: Conversation, details: IdentityDetails) -> CallTool | None:
    """The check of `details`, once they are what the offered check takes."""
    if _by_email_or_name_zip(conversation):
        arguments = email_or_name_zip_arguments(details)
        return None if arguments is None else CallTool("check_identity", arguments)
    if not details.complete:
        return None
    return CallTool(
        "check_identity",
        {
            "full_name": details.full_name,
            "postal_code": details.postal_code,
            "phone_or_email": details.phone_or_email,
        },
    )


def prompt(conversation: Conversation) -> str:
    details, said_new = details_to_check(conversation)
    return _asking(conversation, details if said_new else IdentityDetails())


def respond(conversation: Conversation) -> Reply:
    if (handed_over := transfer(conversation)) is not None:
        return handed_over
    if declined_colleague(conversation):
        # The check could not run (the store is down) and no colleague is wanted: asking
        # for the details again goes nowhere, so the supervisor says what else it can do.
        return CallTool("give_up")
    details, said_new = details_to_check(conversation)
    if not said_new:
        details = IdentityDetails()
    if (check := _check(conversation, details)) is not None:
        return check
    # Whatever else the caller asks for needs them verified: only a goodbye leaves.
    if (left := leave(conversation, own="verify_identity", only_goodbye=True)) is not None:
        return left
    if REFUSALS.found_in(normalise(conversation.last_caller_line or "")):
        return CallTool("give_up")
    refused = _answers_without_details(conversation)
    if refused > _DEMANDS:
        # Offered the way out and still no details: nothing more to ask.
        return CallTool("give_up")
    if refused == _DEMANDS:
        return Say(NO_DETAILS_WAY_OUT)
    return Say(_asking(conversation, details))


_DEMANDS = 2
"""Times a caller hears the demand for their details before the way out is offered."""
_OPENINGS = frozenset(
    {OPENING_QUESTION, OPENING_QUESTION_ON_A_PHONE, OPENING_QUESTION_EMAIL_OR_NAME_ZIP}
)


def _answers_without_details(conversation: Conversation) -> int:
    """How many of the caller's lines since the task asked for the details (its opening
    question, or the last check) gave none of them."""
    start = 0
    for index, turn in enumerate(conversation.turns):
        if isinstance(turn, llm.ChatMessage):
            asked = turn.role == "assistant" and (turn.text_content or "").strip() in _OPENINGS
        else:
            asked = isinstance(turn, llm.FunctionCall) and turn.name == "check_identity"
        if asked:
            start = index + 1
    count = 0
    for turn in conversation.turns[start:]:
        if isinstance(turn, llm.ChatMessage) and turn.role == "user":
            gave = not identity_details([turn.text_content or ""]).empty
            count = 0 if gave else count + 1
    return count


def route(conversation: Conversation) -> Reply | None:
    """The caller asks to be verified, and for nothing any other specialist does."""
    if _VERIFY.found_in(normalise(conversation.last_caller_line or "")):
        return CallTool("verify_identity")
    return None


SPECIALIST = OfflineSpecialist(
    name="identity",
    markers=frozenset({"check_identity"}),
    respond=respond,
    prompt=prompt,
    route=route,
    route_rank=50,
)
