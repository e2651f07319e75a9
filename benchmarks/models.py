"""The scripted models: one rule per agent, each the behaviour of a capable, obedient LLM.

Each rule reads only what that agent's model is shown (its tools and its chat context)
and does the next useful thing: it calls a tool as soon as the conversation holds what
the tool needs, asks for what is missing, and says what a tool answered. Neither rule
calls tools in parallel. The supervised agent's rule follows the supervisor's and the
specialists' instructions; the single agent's rule follows its one prompt
(`single_agent.SINGLE_AGENT_INSTRUCTIONS`). Both are zero-latency.
"""

from __future__ import annotations

from collections.abc import Sequence

from livekit.agents import llm

from benchmarks.callers import (
    CONSENT_QUESTION,
    NEW_ADDRESS,
    NEW_ADDRESS_WORDS,
    SMS,
    Caller,
    Intent,
)
from customer_service.call.answers import normalise
from customer_service.call.wording import ANYTHING_ELSE
from customer_service.order_numbers import spoken_order_id, written_order_ids
from support.scripted_llm import Call, Decision, Rule, Say, Turn

ASK_IDENTITY = (
    "To do that I need to verify your identity. Please tell me your full name, the postal "
    "code on your account, and the phone number or email address on the account."
)
ASK_ORDER = "What's the order number?"
VERIFIED = "Thank you, you're verified."


def ask_address(order_id: str) -> str:
    return f"What's the new delivery address for order {spoken_order_id(order_id)}?"


def ask_cancel_reason(order_id: str) -> str:
    return (
        f"Why would you like to cancel order {spoken_order_id(order_id)}: because you no "
        "longer need it, or because it was ordered by mistake?"
    )


def cancel_reason(heard: Sequence[str]) -> str | None:
    """The reason the caller gave for cancelling, in the words the tools take."""
    for words in reversed(heard):
        said = normalise(words)
        if "by mistake" in said:
            return "ordered by mistake"
        if "need it" in said:
            return "no longer needed"
    return None


def order_number(text: str) -> str | None:
    """The last order number written in the text, if any."""
    found = written_order_ids(text)
    return found[-1] if found else None


def said_yes(text: str) -> bool:
    return normalise(text).startswith("yes")


def caller_words(turn: Turn) -> list[str]:
    return [
        item.text_content or ""
        for item in turn.chat_ctx.items
        if isinstance(item, llm.ChatMessage) and item.role == "user"
    ]


# --- this agent: the supervisor and its specialists ------------------------------------

SUPERVISOR_TOOL = {
    Intent.LOOKUP: "lookup_order",
    Intent.ADDRESS: "update_address",
    Intent.CANCEL: "cancel_order",
    Intent.CONSENT: "request_consent",
}


def supervised_model(caller: Caller, intent: Intent) -> Rule:
    """The model behind `CustomerServiceAgent`; which agent asks is told by the tools."""
    route = SUPERVISOR_TOOL[intent]

    def decide(turn: Turn) -> Decision:
        output = turn.last_tool_output
        if output is not None:
            return Say(output.output)
        tools = turn.tool_names
        heard = caller_words(turn)
        last = heard[-1] if heard else ""
        if "check_identity" in tools:
            if any(caller.identity_words in words for words in heard):
                return Call("check_identity", caller.identity_args)
            return Say(ASK_IDENTITY)
        if "lookup" in tools:
            number = order_number(last)
            if number:
                return Call("lookup", {"order_id": number})
            if "choose_order" in tools and said_yes(last):  # the only order, offered
                return Call("choose_order", {"choice": "that one"})
            return Say(ASK_ORDER)
        if "record_address" in tools:
            if "confirm_address" in tools and said_yes(last):
                return Call("confirm_address")
            if any(NEW_ADDRESS_WORDS in words for words in heard):
                return Call("record_address", NEW_ADDRESS)
            return Say(ask_address(caller.order_id))
        if "confirm_cancellation" in tools:
            return Call("confirm_cancellation") if said_yes(last) else Call("give_up")
        if "record_cancellation_reason" in tools:
            return Call("record_cancellation_reason", {"reason": "no longer needed"})
        if "record_consent" in tools:
            return Call("record_consent", {"granted": said_yes(last)})
        if route in tools:
            if intent is Intent.CONSENT:
                return Call(route, {"topic": SMS.value})
            number = order_number(last)
            return Call(route, {"order_id": number} if number else {})
        return Say(f"(no rule for an agent offering {sorted(tools)})")

    return decide


# --- the single-agent baseline ---------------------------------------------------------


def _outputs(turn: Turn, name: str) -> list[llm.FunctionCallOutput]:
    return [
        item
        for item in turn.chat_ctx.items
        if isinstance(item, llm.FunctionCallOutput) and item.name == name
    ]


def _succeeded(turn: Turn, name: str) -> bool:
    return any(not output.is_error for output in _outputs(turn, name))


def _pending_order(turn: Turn, tool: str) -> str | None:
    """The latest order number the caller said that `tool` has not been called with since."""
    pending: str | None = None
    for item in turn.chat_ctx.items:
        if isinstance(item, llm.ChatMessage) and item.role == "user":
            pending = order_number(item.text_content or "") or pending
        elif isinstance(item, llm.FunctionCall) and item.name == tool:
            pending = None
    return pending


def single_agent_model(caller: Caller, intent: Intent) -> Rule:
    """The model behind `single_agent.SingleAgent`: one prompt, plain tools."""

    def decide(turn: Turn) -> Decision:
        output = turn.last_tool_output
        just_verified = output is not None and output.name == "verify_identity"
        if output is not None and (output.is_error or not just_verified):
            return Say(output.output)
        heard = caller_words(turn)
        last = heard[-1] if heard else ""
        lead = f"{VERIFIED} " if just_verified else ""
        if not _succeeded(turn, "verify_identity"):
            tried = bool(_outputs(turn, "verify_identity"))
            gave = any(caller.identity_words in words for words in heard)
            if caller.identity_words in last or (gave and not tried):
                return Call("verify_identity", caller.identity_args)
            return Say(ASK_IDENTITY)
        if intent is Intent.CONSENT:
            return _consent_step(turn, last, lead)
        if intent is Intent.LOOKUP:
            number = _pending_order(turn, "lookup_order")
            if number is None:
                return Say(f"{lead}{ASK_ORDER}")
            return Call("lookup_order", {"order_id": number})
        number = next((order_number(w) for w in reversed(heard) if order_number(w)), None)
        if number is None:
            return Say(f"{lead}{ASK_ORDER}")
        if intent is Intent.CANCEL:
            reason = cancel_reason(heard)
            if reason is None:
                return Say(f"{lead}{ask_cancel_reason(number)}")
            cancelling = {"order_id": number, "reason": reason}
            if not _succeeded(turn, "cancel_order"):
                return Call("cancel_order", cancelling)
            if not _outputs(turn, "confirm_cancellation"):
                return (
                    Call("confirm_cancellation", cancelling)
                    if said_yes(last)
                    else (Say(f"All right, I haven't cancelled order {spoken_order_id(number)}."))
                )
            return Say(ANYTHING_ELSE)
        if not _succeeded(turn, "change_address"):
            if any(NEW_ADDRESS_WORDS in words for words in heard):
                return Call("change_address", {"order_id": number, **NEW_ADDRESS})
            return Say(f"{lead}{ask_address(number)}")
        if not _succeeded(turn, "confirm_address_change"):
            if said_yes(last):
                return Call("confirm_address_change")
            return Say("I haven't changed anything. Is the address I read back right?")
        offered = any(
            CONSENT_QUESTION in o.output for o in _outputs(turn, "confirm_address_change")
        )
        if offered and not _outputs(turn, "record_consent"):
            return Call("record_consent", {"topic": SMS.value, "granted": said_yes(last)})
        return Say(ANYTHING_ELSE)

    return decide


def _consent_step(turn: Turn, last: str, lead: str) -> Decision:
    asked = any(
        isinstance(item, llm.ChatMessage)
        and item.role == "assistant"
        and CONSENT_QUESTION in (item.text_content or "")
        for item in turn.chat_ctx.items
    )
    if not asked:
        return Say(f"{lead}{CONSENT_QUESTION}")
    if not _outputs(turn, "record_consent"):
        return Call("record_consent", {"topic": SMS.value, "granted": said_yes(last)})
    return Say(ANYTHING_ELSE)


# --- the bare agent: the framework's own floor -----------------------------------------

BARE_REPLY = "Sure, I can help with that. What else would you like to know?"


def bare_model(turn: Turn) -> Decision:
    return Say(BARE_REPLY)
