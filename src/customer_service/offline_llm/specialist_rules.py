"""The specialists' rules: identity, order lookup, address update, cancellation and consent.

Every specialist also offers `transfer_to_human`: a caller who asks for a person is
handed over from wherever they are.
"""

from __future__ import annotations

import re

from livekit.agents import llm

from customer_service.call.answers import Phrases, explicit_answer, normalise, polarity
from customer_service.offline_llm.address_parsing import (
    address_in_request,
    field_in_problem,
    parse_address,
    parse_correction,
)
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.fields import find_order_number, find_order_number_read_out
from customer_service.offline_llm.identity_details import (
    IdentityDetails,
    details_to_check,
    missing_details_prompt,
)
from customer_service.offline_llm.routing import (
    ACCEPTED_OFFER,
    ASKED_FOR_PERSON,
    new_request,
    offered_colleague,
)
from customer_service.offline_llm.speech import PERSON, REFUSALS
from customer_service.order_choice import means_current_order, read_choice

__all__ = [
    "ADDRESS_AGAIN",
    "ADDRESS_QUESTION",
    "CLEAR_YES_NO",
    "ORDER_QUESTION",
    "address_update",
    "cancellation",
    "consent",
    "first_question",
    "identity",
    "identity_prompt",
    "order_lookup",
]

ORDER_QUESTION = (
    "What's the six-digit order number? If you don't have it, I can list your recent orders."
)
ADDRESS_QUESTION = (
    "Please tell me the full new address: the street, city, state or region, and postal code."
)
ADDRESS_AGAIN = "Please tell me the full new address again."
CLEAR_YES_NO = "Sorry, I need a clear yes or no."


def _transfer(conversation: Conversation) -> CallTool | None:
    """`transfer_to_human` when the caller asks for a person, or says yes to the offer
    of a colleague (a tool's words: "I can transfer you to a colleague ...")."""
    line = conversation.last_caller_line or ""
    if PERSON.found_in(normalise(line)):
        return CallTool("transfer_to_human", {"reason": ASKED_FOR_PERSON})
    if offered_colleague(conversation) and polarity(line) is True:
        return CallTool("transfer_to_human", {"reason": ACCEPTED_OFFER})
    return None


def _leave(conversation: Conversation, *, own: str, only_goodbye: bool = False) -> CallTool | None:
    """`caller_wants_something_else` when the caller's line asks the supervisor for other
    work than this specialist's (`own`), or says goodbye."""
    line = conversation.last_caller_line or ""
    request = new_request(line)
    if request is None or request == own or (only_goodbye and request != "end_call"):
        return None
    return CallTool("caller_wants_something_else", {"request": line})


# --- identity --------------------------------------------------------------------------


def identity_prompt(conversation: Conversation) -> str:
    details, said_new = details_to_check(conversation)
    return missing_details_prompt(details if said_new else IdentityDetails())


def identity(conversation: Conversation) -> Reply:
    if (transfer := _transfer(conversation)) is not None:
        return transfer
    details, said_new = details_to_check(conversation)
    if not said_new:
        details = IdentityDetails()
    if details.complete:
        return CallTool(
            "check_identity",
            {
                "full_name": details.full_name,
                "postal_code": details.postal_code,
                "phone_or_email": details.phone_or_email,
            },
        )
    # Whatever else the caller asks for needs them verified: only a goodbye leaves.
    if (leave := _leave(conversation, own="verify_identity", only_goodbye=True)) is not None:
        return leave
    if REFUSALS.found_in(normalise(conversation.last_caller_line or "")):
        return CallTool("give_up")
    return Say(missing_details_prompt(details))


# --- order lookup ----------------------------------------------------------------------

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
        "not sure",
        "don't remember",
        "can't remember",
        "forgot",
    ],
    plurals=True,
)


def order_lookup(conversation: Conversation) -> Reply:
    if (transfer := _transfer(conversation)) is not None:
        return transfer
    if (leave := _leave(conversation, own="lookup_order")) is not None:
        return leave
    line = conversation.last_caller_line or ""
    order = find_order_number(line)
    if order is not None:
        return CallTool("lookup", {"order_id": order.span.text})
    said = normalise(line)
    if _LIST_ORDERS.found_in(said):
        return CallTool("list_recent_orders")
    if REFUSALS.found_in(said):
        return CallTool("give_up")
    if _picks_an_order(conversation, line):
        # "The headphones", "the first one", "that order": the tool checks the pick.
        return CallTool("choose_order", {"choice": line})
    if polarity(line) is False:
        # "No" to "what's the number? If you don't have it, I can list your orders."
        return CallTool("list_recent_orders")
    return Say(ORDER_QUESTION)


def _picks_an_order(conversation: Conversation, line: str) -> bool:
    """Whether the caller's line points at an order by what it is: the order just
    discussed, a place in a list, a date or a status, or a word of an item's name that
    a list the caller heard contains."""
    if means_current_order(line):
        return True
    choice = read_choice(line)
    if choice.position or choice.day or choice.status:
        return True
    heard = " ".join(
        turn.output.lower()
        for turn in conversation.turns
        if isinstance(turn, llm.FunctionCallOutput)
        and conversation.tool_name(turn) == "list_recent_orders"
    )
    heard_words = set(re.findall(r"[a-z0-9]+", heard))
    return any(word in heard_words or word.rstrip("s") in heard_words for word in choice.words)


# --- address update --------------------------------------------------------------------


def _address_said_before(conversation: Conversation) -> dict[str, object] | None:
    """Before anything is recorded: the newest address the caller already said, in the
    history this specialist was given (up front, with the request)."""
    if conversation.last_arguments("record_address") is not None:
        return None
    for line in reversed(conversation.caller_lines()):
        if (address := address_in_request(line)) is not None:
            return address.arguments()
    return None


def address_update(conversation: Conversation) -> Reply:
    line = conversation.last_caller_line or ""
    address = address_in_request(line) or parse_address(line)
    if address is not None:
        # A whole address is never a request for a person, whatever its street is called.
        return CallTool("record_address", address.arguments())
    if (transfer := _transfer(conversation)) is not None:
        return transfer
    if (leave := _leave(conversation, own="update_address")) is not None:
        return leave
    if REFUSALS.found_in(normalise(line)):
        return CallTool("give_up")
    if (said_before := _address_said_before(conversation)) is not None:
        return CallTool("record_address", said_before)
    answered = conversation.output_answered()
    if answered is None or conversation.tool_name(answered) != "record_address":
        return Say(ADDRESS_QUESTION)
    # The caller is answering a read-back ("I have ... Is that right?") or a problem the
    # tool found with one part ("The ZIP code 9410 doesn't look right: ...").
    asked_for = field_in_problem(answered.output) if answered.is_error else None
    correction = parse_correction(line, asked_for, after_read_back=not answered.is_error)
    recorded = conversation.last_arguments("record_address")
    if correction is not None and recorded is not None:
        field, value = correction
        return CallTool("record_address", {**recorded, field: value})
    if not answered.is_error:
        answer = polarity(line)
        if answer is True:
            return CallTool("confirm_address")
        if answer is False:
            return Say(ADDRESS_AGAIN)
    return Say(ADDRESS_QUESTION)


# --- cancellation ----------------------------------------------------------------------


# Not `REFUSALS`: there "cancel" means stop, and here it is what the caller asked for.
_KEEP_ORDER = Phrases(
    ["keep", "leave it", "never mind", "nevermind", "forget it", "stop", "give up"]
)


def _names_another_order(conversation: Conversation, line: str) -> bool:
    """Whether the caller's line names an order other than the one read back."""
    said = find_order_number(line)
    read_back = find_order_number_read_out(first_question(conversation))
    return said is not None and (read_back is None or said.digits != read_back.digits)


def cancellation(conversation: Conversation) -> Reply:
    if (transfer := _transfer(conversation)) is not None:
        return transfer
    if (leave := _leave(conversation, own="cancel_order")) is not None:
        return leave
    line = conversation.last_caller_line or ""
    answer = polarity(line)
    if answer is True and not _names_another_order(conversation, line):
        return CallTool("confirm_cancellation")
    if answer is False or (answer is None and _KEEP_ORDER.found_in(normalise(line))):
        return CallTool("give_up")
    # Unclear ("hmm", "cancel it", a yes about another order): the read-back and its
    # question again, word for word. The task's own code checks any yes again.
    return Say(first_question(conversation))


# --- consent ---------------------------------------------------------------------------

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


def first_question(conversation: Conversation) -> str:
    """The question a task that starts without earlier history asked (its first line),
    word for word, to ask again unchanged (consent, cancellation)."""
    lines = conversation.agent_lines()
    return lines[0] if lines else CLEAR_YES_NO


def consent(conversation: Conversation) -> Reply:
    if (transfer := _transfer(conversation)) is not None:
        return transfer
    if (leave := _leave(conversation, own="request_consent")) is not None:
        return leave
    line = conversation.last_caller_line or ""
    # Consent takes an explicit answer: "okay" or "thanks" alone agrees to nothing.
    answer = explicit_answer(line)
    if answer is not None:
        return CallTool("record_consent", {"granted": answer})
    if _MOVE_ON.found_in(normalise(line)):
        return CallTool("give_up")
    # Unclear ("maybe", "what does that cost?"): the same question again. The task's
    # own code ends it, storing nothing, after a second unclear answer.
    return Say(question_in_instructions(conversation) or first_question(conversation))


_QUOTED_QUESTION = re.compile(r'exactly this: "([^"]+)"')


def question_in_instructions(conversation: Conversation) -> str | None:
    """The question the instructions say was asked, word for word: the task's first
    line may have led in with other words."""
    quoted = _QUOTED_QUESTION.search(conversation.instructions)
    return quoted.group(1) if quoted else None
