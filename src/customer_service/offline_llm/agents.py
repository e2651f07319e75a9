"""One profile per agent: how the offline model recognises it and answers for it.

The active agent is recognised by the tools offered with the request. Adding a
specialist is one `AgentProfile` entry in `PROFILES` (plus its `respond` function).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from livekit.agents import llm

from customer_service.offline_llm.address import parse_address
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.fields import find_order_number
from customer_service.offline_llm.identity import identity_details, missing_details_prompt
from customer_service.offline_llm.speech import REFUSALS, Phrases, normalise, polarity

__all__ = ["GREETING", "PROFILES", "SUPERVISOR", "AgentProfile", "decide", "profile_for"]

GREETING = "Hello, thanks for calling. How can I help you today?"
ANYTHING_ELSE = "Is there anything else I can help you with?"
HOW_CAN_I_HELP = "How can I help you today?"
WHAT_ELSE = "What else can I help you with?"
ORDER_QUESTION = (
    "What's the six-digit order number? If you don't have it, I can list your recent orders."
)
ADDRESS_QUESTION = (
    "Please tell me the full new address: the street, city, state or region, and postal code."
)
ADDRESS_AGAIN = "Please tell me the full new address again."
CLEAR_YES_NO = "Sorry, I need a clear yes or no."
ASKED_FOR_PERSON = "caller asked for a person"
CONSENT_TOPIC = "marketing"


@dataclass(frozen=True)
class AgentProfile:
    """How the offline model plays one agent.

    `markers`: offering any of these tools means this agent is active.
    `respond`: the answer to the caller's latest line.
    `prompt`: what to say when nothing better fits (the agent's question).
    `opening`: what to say before the caller has spoken (default: `prompt`).
    `follow_up`: added after relaying a successful tool output (none for specialists).
    `final_tools`: tools whose output is relayed without `follow_up`.
    """

    name: str
    markers: frozenset[str]
    respond: Callable[[Conversation], Reply]
    prompt: Callable[[Conversation], str]
    opening: str | None = None
    follow_up: str | None = None
    final_tools: frozenset[str] = frozenset()


# --- supervisor ----------------------------------------------------------------------

_PERSON = Phrases(
    ["human", "person", "agent", "representative", "operator", "someone real", "somebody real"],
    plurals=True,
)
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
    ]
)
_ADDRESS_CHANGE = Phrases(
    ["address", "moved", "move", "ship it to", "deliver to", "deliver it to", "change where"],
    plurals=True,
)
_EMAIL_ADDRESS = Phrases(["email address", "e-mail address"], plurals=True)
_CONSENT = Phrases(
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
        "subscribe",
        "unsubscribe",
        "consent",
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
        "status",
    ],
    plurals=True,
)
_VERIFY = Phrases(["verify", "verification", "identity", "account", "who am i"], plurals=True)


def _capabilities(conversation: Conversation) -> str:
    if conversation.offers("update_address"):
        offer = "check the status of an order, change a delivery address, or put you through"
    else:
        offer = "check the status of an order, or put you through"
    return f"I can {offer} to a person. What would you like to do?"


def _supervisor(conversation: Conversation) -> Reply:
    line = conversation.last_caller_line or ""
    said = normalise(line)
    order = find_order_number(line)
    order_arguments = {"order_id": order.digits} if order is not None else {}
    if _PERSON.found_in(said):
        return CallTool("transfer_to_human", {"reason": ASKED_FOR_PERSON})
    if _GOODBYE.found_in(said):
        return CallTool("end_call")
    if conversation.offers("update_address") and _ADDRESS_CHANGE.found_in(
        _EMAIL_ADDRESS.removed_from(said)
    ):
        return CallTool("update_address", order_arguments)
    if conversation.offers("request_consent") and _CONSENT.found_in(said):
        return CallTool("request_consent", {"topic": CONSENT_TOPIC})
    if order is not None or _ORDER.found_in(said):
        return CallTool("lookup_order", order_arguments)
    if _VERIFY.found_in(said):
        return CallTool("verify_identity")
    answer = polarity(line)
    if answer is None:
        return Say(_capabilities(conversation))
    if (conversation.agent_line_answered() or "").endswith(ANYTHING_ELSE):
        # "No" to "anything else?" ends the call; "yes" asks what.
        return Say(WHAT_ELSE) if answer else CallTool("end_call")
    return Say(HOW_CAN_I_HELP)


# --- specialists ---------------------------------------------------------------------


def _identity_prompt(conversation: Conversation) -> str:
    return missing_details_prompt(
        identity_details(conversation.caller_lines(after_call_to="check_identity"))
    )


def _identity(conversation: Conversation) -> Reply:
    details = identity_details(conversation.caller_lines(after_call_to="check_identity"))
    if details.complete:
        return CallTool(
            "check_identity",
            {
                "full_name": details.full_name,
                "postal_code": details.postal_code,
                "phone_or_email": details.phone_or_email,
            },
        )
    if REFUSALS.found_in(normalise(conversation.last_caller_line or "")):
        return CallTool("give_up")
    return Say(missing_details_prompt(details))


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


def _order_lookup(conversation: Conversation) -> Reply:
    line = conversation.last_caller_line or ""
    order = find_order_number(line)
    if order is not None:
        return CallTool("lookup", {"order_id": order.span.text})
    said = normalise(line)
    if _LIST_ORDERS.found_in(said):
        return CallTool("list_recent_orders")
    if REFUSALS.found_in(said):
        return CallTool("give_up")
    if polarity(line) is False:
        # "No" to "what's the number? If you don't have it, I can list your orders."
        return CallTool("list_recent_orders")
    return Say(ORDER_QUESTION)


def _address_update(conversation: Conversation) -> Reply:
    line = conversation.last_caller_line or ""
    address = parse_address(line)
    if address is not None:
        return CallTool("record_address", address.arguments())
    if REFUSALS.found_in(normalise(line)):
        return CallTool("give_up")
    read_back = conversation.output_answered()
    if (
        read_back is not None
        and not read_back.is_error
        and conversation.tool_name(read_back) == "record_address"
    ):
        answer = polarity(line)
        if answer is True:
            return CallTool("confirm_address")
        if answer is False:
            return Say(ADDRESS_AGAIN)
    return Say(ADDRESS_QUESTION)


def _consent(conversation: Conversation) -> Reply:
    answer = polarity(conversation.last_caller_line or "")
    if answer is None:
        return Say(CLEAR_YES_NO)
    return CallTool("record_consent", {"granted": answer})


def _fixed(text: str) -> Callable[[Conversation], str]:
    return lambda _conversation: text


SUPERVISOR = AgentProfile(
    name="supervisor",
    markers=frozenset({"verify_identity", "lookup_order", "transfer_to_human", "end_call"}),
    respond=_supervisor,
    prompt=_capabilities,
    opening=GREETING,
    follow_up=ANYTHING_ELSE,
    final_tools=frozenset({"end_call", "transfer_to_human"}),
)

PROFILES: tuple[AgentProfile, ...] = (
    AgentProfile(
        name="identity",
        markers=frozenset({"check_identity"}),
        respond=_identity,
        prompt=_identity_prompt,
    ),
    AgentProfile(
        name="order_lookup",
        markers=frozenset({"lookup", "list_recent_orders"}),
        respond=_order_lookup,
        prompt=_fixed(ORDER_QUESTION),
    ),
    AgentProfile(
        name="address_update",
        markers=frozenset({"record_address", "confirm_address"}),
        respond=_address_update,
        prompt=_fixed(ADDRESS_QUESTION),
    ),
    AgentProfile(
        name="consent",
        markers=frozenset({"record_consent"}),
        respond=_consent,
        prompt=_fixed(CLEAR_YES_NO),
    ),
    SUPERVISOR,
)


def profile_for(tools: frozenset[str]) -> AgentProfile:
    """The first profile whose marker tools are offered; the supervisor otherwise."""
    return next((profile for profile in PROFILES if profile.markers & tools), SUPERVISOR)


def _relay(
    profile: AgentProfile, conversation: Conversation, output: llm.FunctionCallOutput
) -> Say:
    text = output.output.strip()
    if not text:
        return Say(profile.follow_up or profile.prompt(conversation))
    if (
        output.is_error
        or profile.follow_up is None
        or conversation.tool_name(output) in profile.final_tools
        or text.endswith("?")
    ):
        return Say(text)
    return Say(f"{text} {profile.follow_up}")


def decide(conversation: Conversation, *, tools_allowed: bool = True) -> Reply:
    """The offline model's whole answer to one request."""
    profile = profile_for(conversation.tools)
    last = conversation.last_turn
    if isinstance(last, llm.FunctionCallOutput):
        return _relay(profile, conversation, last)
    if conversation.last_caller_line is None:
        return Say(profile.opening or profile.prompt(conversation))
    if isinstance(last, llm.ChatMessage) and last.role == "assistant":
        # Nothing new from the caller since the agent last spoke.
        return Say(profile.prompt(conversation))
    reply = profile.respond(conversation)
    if isinstance(reply, CallTool) and not (tools_allowed and conversation.offers(reply.name)):
        # Whatever the caller said, only offered tools are ever called.
        return Say(profile.prompt(conversation))
    return reply
