"""The supervisor's rules: route the caller's request to one of its tools, or answer.

What each specialist's request sounds like lives with that specialist, in
`offline_llm/specialists/` (`route`, `asks_for`, `menu_phrase`); here is what the
supervisor does whoever its specialists are: a person, goodbye, the menu, and a yes or
no to its own last line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from livekit.agents import llm

from customer_service.call.answers import (
    Phrases,
    acknowledgement_only,
    normalise,
    polarity,
)
from customer_service.call.wording import (
    ANYTHING_ELSE,
    GREETING,
    HOW_CAN_I_HELP,
    offers_human,
    unquoted,
)
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.heard_order_numbers import (
    find_order_number,
    find_order_number_read_out,
)
from customer_service.offline_llm.identity_details import gives_identity_details
from customer_service.offline_llm.language import not_english
from customer_service.offline_llm.small_talk import (
    GREETED_BACK,
    NOT_SOMETHING_I_DO,
    asks_something_of_us,
    greets_only,
)
from customer_service.offline_llm.specialists import registered
from customer_service.offline_llm.speech import PERSON
from customer_service.order_choice import mentions_current_order
from customer_service.order_numbers import normalize_order_id

__all__ = [
    "ACCEPTED_OFFER",
    "ANYTHING_ELSE",
    "ASKED_FOR_PERSON",
    "CORE_TOOLS",
    "DECLINED_OFFER",
    "ENGLISH_ONLY",
    "GREETING",
    "HOW_CAN_I_HELP",
    "WHAT_ELSE",
    "YOU_ARE_WELCOME",
    "Request",
    "capabilities",
    "checks_in",
    "menu",
    "names_an_order",
    "new_request",
    "offered_colleague",
    "order_arguments",
    "order_in_discussion",
    "request_left",
    "requests_in",
    "respond",
]

WHAT_ELSE = "What else can I help you with?"
YOU_ARE_WELCOME = "You're welcome."
DECLINED_OFFER = f"All right. {ANYTHING_ELSE}"
ASKED_FOR_PERSON = "caller asked for a person"
ACCEPTED_OFFER = "caller accepted the offer of a colleague"
ENGLISH_ONLY = "I'm sorry, I understand English only. Could you say that in English, please?"
"""The offline model's answer to a line it cannot read (`not_english`), instead of the
menu it would say again and again."""

_GOODBYE_PHRASES = (
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
    "end the call",
    "end this call",
)
_GOODBYE = Phrases(_GOODBYE_PHRASES)
_DONE_WITH_THE_CALL = Phrases(
    [phrase for phrase in _GOODBYE_PHRASES if phrase not in ("no thanks", "no thank you")]
)
"""A goodbye that is no answer to a question ("no thanks" may answer the one asked)."""


def done_with_the_call(line: str) -> bool:
    """Whether a caller's line says they need nothing more ("no, that is all, thanks")."""
    return _DONE_WITH_THE_CALL.found_in(normalise(line))


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


_VERIFY = "verify_identity"
CORE_TOOLS = frozenset({_VERIFY, "lookup_order", "transfer_to_human", "end_call"})
"""The tools every supervisor offers: their specialists are always on the menu."""


def new_request(line: str) -> str | None:
    """The supervisor tool a caller's line plainly asks for, if it asks for one: a
    goodbye that answers no question, or a request a specialist module recognises
    (`asks_for`). What a specialist hears as a change of topic when it is not its own
    work."""
    if _GOODBYE.found_in(normalise(line)) and polarity(line) is None:
        return "end_call"
    for specialist in sorted(registered(), key=lambda specialist: specialist.topic_rank):
        if specialist.asks_for is not None and specialist.asks_for(line):
            return specialist.supervisor_tool
    return None


def names_an_order(line: str) -> bool:
    """Whether a caller's line names an order: its number, "that order" or the word."""
    return (
        find_order_number(line) is not None
        or mentions_current_order(line)
        or "order" in normalise(line).split()
    )


def menu(tools: frozenset[str]) -> str:
    """What the supervisor offers to do, given the tools it is offered: the menu phrase
    of each specialist it can start, in `menu_rank` order."""
    on_menu = sorted(
        (
            specialist
            for specialist in registered()
            if specialist.menu_phrase is not None
            and (specialist.supervisor_tool in tools or specialist.supervisor_tool in CORE_TOOLS)
        ),
        key=lambda specialist: specialist.menu_rank,
    )
    offers = [f"{specialist.menu_phrase}, " for specialist in on_menu]
    return f"I can {''.join(offers)}or put you through to a person. What would you like to do?"


def capabilities(conversation: Conversation) -> str:
    return menu(conversation.tools)


def order_arguments(conversation: Conversation) -> dict[str, object]:
    """The order the caller's latest line is about, as a tool's arguments: the number
    they said, or the order just discussed when they say "that order"; else none."""
    line = conversation.last_caller_line or ""
    order = find_order_number(line)
    if order is not None:
        return {"order_id": order.order_id}
    if mentions_current_order(line):
        discussed = order_in_discussion(conversation)
        return {"order_id": discussed} if discussed else {}
    return {}


def order_in_discussion(conversation: Conversation) -> str | None:
    """The order the call is about: the last one a tool was called for, the caller named
    or a lookup read out."""
    for turn in reversed(conversation.turns):
        if isinstance(turn, llm.FunctionCall):
            order_id = normalize_order_id(str(_arguments(turn).get("order_id") or ""))
        elif isinstance(turn, llm.ChatMessage) and turn.role == "user":
            said = find_order_number(turn.text_content or "")
            order_id = said.order_id if said is not None else None
        elif (
            isinstance(turn, llm.FunctionCallOutput)
            and not turn.is_error
            and conversation.tool_name(turn) == "lookup_order"
        ):
            read_out = find_order_number_read_out(turn.output)
            order_id = read_out.order_id if read_out is not None else None
        else:
            continue
        if order_id is not None:
            return order_id
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
    if asked.endswith(WHAT_ELSE) and not answer:
        return CallTool("end_call")
    output = conversation.output_answered()
    if output is not None and answer and (offered := _offered_work(conversation, output)):
        return offered
    if output is not None:
        # A yes or no to a tool's plain statement ("Order ... is already cancelled."):
        # taken as heard, then the supervisor's own question.
        return Say(WHAT_ELSE) if answer else Say(DECLINED_OFFER)
    return Say(HOW_CAN_I_HELP)


def _offered_work(conversation: Conversation, output: llm.FunctionCallOutput) -> CallTool | None:
    """The work a tool's closing question offers instead of its own ("... Would you like
    me to change the items?"), as the call a yes to it asks for, about the order the
    tool's words name; None when it offers none."""
    said = unquoted(output.output).strip()
    question = re.split(r"(?<=[.!?])\s+", said)[-1]
    if not question.endswith("?"):
        return None
    offered = _routed(conversation.saying(question))
    if not isinstance(offered, CallTool) or offered.name == conversation.tool_name(output):
        return None
    order = find_order_number_read_out(said)
    if order is None or "order_id" in offered.arguments:
        return offered
    return CallTool(offered.name, {**offered.arguments, "order_id": order.order_id})


# Between two requests in one line: "check order 200202 and change its address too".
_BETWEEN_REQUESTS = re.compile(r"[,;]?\s+(?:and(?:\s+then|\s+also)?|then)\s+|[.;!?]+\s+", re.I)
# A later request's "it" is the order an earlier one named ("cancel it", "its address").
_REFERS_BACK = (
    (re.compile(r"\bits\b", re.I), "that order's"),
    (re.compile(r"\bit\b", re.I), "that order"),
)


@dataclass(frozen=True)
class Request:
    """One of the requests said in a caller's line, as the supervisor's call for it."""

    call: CallTool
    refers_back: bool
    """Whether it is about the order an earlier request in the line named ("its")."""


def requests_in(conversation: Conversation, line: str) -> list[Request]:
    """The requests the caller's line holds, in the order said, each part of it routed on
    its own: the first part a specialist's route takes, then each later part that plainly
    asks for work (`new_request`), its "it" read as the order named before it. The same
    work asked for twice is one request, about the order either part named ("I moved.
    Change the address of order 100102")."""
    found: list[Request] = []
    for piece in (piece.strip() for piece in _BETWEEN_REQUESTS.split(line)):
        said = piece
        if found:
            for pattern, meaning in _REFERS_BACK:
                said = pattern.sub(meaning, said)
            if new_request(said) in (None, "end_call"):
                continue
        reply = _routed(conversation.saying(said))
        if not isinstance(reply, CallTool):
            continue
        request = Request(reply, refers_back=said != piece)
        same = [index for index, earlier in enumerate(found) if _agree(earlier.call, reply)]
        if not same:
            found.append(request)
        elif "order_id" not in found[same[0]].call.arguments:
            found[same[0]] = request
    return found


def request_left(conversation: Conversation, output: llm.FunctionCallOutput) -> CallTool | None:
    """A request the caller's line held beside the one `output` answers, not served yet:
    its call, to make once the output is relayed. None when the output asks the caller
    something or offers a colleague (theirs to answer first), or failed and the request
    is about the same order."""
    asked = conversation.request_of(output)
    said = unquoted(output.output).strip()
    if asked is None or said.endswith("?") or offers_human(said):
        return None
    line, calls = asked
    for request in requests_in(conversation, line):
        if any(_agree(CallTool(call.name, _arguments(call)), request.call) for call in calls):
            continue
        if not conversation.offers(request.call.name):
            continue
        return None if output.is_error and request.refers_back else request.call
    return None


def _agree(one: CallTool, other: CallTool) -> bool:
    """Whether two calls are for the same work: the same tool, and no argument both give
    that differs (an order number counts the same in either of its forms)."""
    if one.name != other.name:
        return False
    for name in one.arguments.keys() & other.arguments.keys():
        given, asked = str(one.arguments[name]), str(other.arguments[name])
        order = normalize_order_id(given)
        if given != asked and (order is None or order != normalize_order_id(asked)):
            return False
    return True


def _routed(conversation: Conversation) -> Reply | None:
    """The reply of the first offered specialist whose route takes the latest line."""
    for specialist in registered():
        if conversation.offers(specialist.supervisor_tool):
            reply = specialist.route(conversation)
            if reply is not None:
                return reply
    return None


def respond(conversation: Conversation) -> Reply:
    """The supervisor's answer to the caller's latest line: a person, goodbye, the first
    of several requests said in it, the first offered specialist whose route takes the
    line, that it reads English only, or an answer to the agent's line."""
    line = conversation.last_caller_line or ""
    said = normalise(line)
    if PERSON.found_in(said):
        return CallTool("transfer_to_human", {"reason": ASKED_FOR_PERSON})
    if _GOODBYE.found_in(said):
        return CallTool("end_call")
    requests = requests_in(conversation, line)
    if len(requests) > 1:
        # The first said first; the others once it is done (`request_left`).
        return requests[0].call
    if (reply := _routed(conversation)) is not None:
        return reply
    if gives_identity_details(line) and conversation.offers(_VERIFY):
        # Identity details alone ("Jordan Lee, 94107, jordan.lee@..."): the check says
        # what is true, the lock of an earlier failed check included.
        return CallTool(_VERIFY)
    if not_english(line):
        # Before yes and no: the Spanish "no" in "No encuentro mi pedido" answers nothing.
        return Say(ENGLISH_ONLY)
    if greets_only(line):
        return Say(GREETED_BACK)
    if asks_something_of_us(line) and polarity(line) is None:
        return Say(NOT_SOMETHING_I_DO)
    if acknowledgement_only(line) and not _asked_or_offered(conversation):
        # "Okay, thanks" to something the agent said, not asked: nothing to act on.
        return Say(YOU_ARE_WELCOME)
    answer = polarity(line)
    if answer is None:
        return Say(capabilities(conversation))
    return _answer_to_agent(conversation, answer)
