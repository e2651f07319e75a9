"""One profile per agent: how the offline model recognises it and answers for it.

The active agent is recognised by the tools offered with the request. The specialists'
profiles come from their modules in `offline_llm/specialists/` (`registered`): adding a
specialist is adding its module there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from livekit.agents import llm

from customer_service.call.wording import ONE_MOMENT, unquoted
from customer_service.offline_llm import routing
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.routing import ANYTHING_ELSE, CORE_TOOLS, GREETING
from customer_service.offline_llm.specialists import OfflineSpecialist, registered

__all__ = ["GREETING", "SUPERVISOR", "AgentProfile", "decide", "profile_for", "profiles"]


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


STILL_WORKING = f"Yes, I'm still here. {ONE_MOMENT}"
_VERIFY = "verify_identity"
"""Identity details said while a tool ran answered its identity check: no new request."""


SUPERVISOR = AgentProfile(
    name="supervisor",
    markers=CORE_TOOLS,
    respond=routing.respond,
    prompt=routing.capabilities,
    opening=GREETING,
    follow_up=ANYTHING_ELSE,
    final_tools=frozenset({"end_call", "transfer_to_human"}),
)


def _profile(specialist: OfflineSpecialist) -> AgentProfile:
    return AgentProfile(
        name=specialist.name,
        markers=specialist.markers,
        respond=specialist.respond,
        prompt=specialist.prompt,
    )


def profiles() -> tuple[AgentProfile, ...]:
    """Every specialist's profile, then the supervisor's."""
    return (*(_profile(specialist) for specialist in registered()), SUPERVISOR)


def profile_for(tools: frozenset[str]) -> AgentProfile:
    """The first profile whose marker tools are offered; the supervisor otherwise."""
    return next((profile for profile in profiles() if profile.markers & tools), SUPERVISOR)


def _relay(
    profile: AgentProfile, conversation: Conversation, output: llm.FunctionCallOutput
) -> Say:
    # Stored text arrives quoted, as data; a caller hears it without the marks.
    text = unquoted(output.output).strip()
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


def _asked_meanwhile(conversation: Conversation, output: llm.FunctionCallOutput) -> CallTool | None:
    """The call for what the caller asked for while the tool of `output` ran: work that
    stopped for it (an error), or a new request said with their answer ("yes, and I
    want to return an order too")."""
    if not conversation.caller_spoke_during(output):
        return None
    if not output.is_error and routing.new_request(conversation.last_caller_line or "") is None:
        return None
    reply = routing.respond(conversation)
    if (
        isinstance(reply, CallTool)
        and reply.name not in (conversation.tool_name(output), _VERIFY)
        and conversation.offers(reply.name)
    ):
        return reply
    return None


def decide(conversation: Conversation, *, tools_allowed: bool = True) -> Reply:
    """The offline model's whole answer to one request."""
    profile = profile_for(conversation.tools)
    last = conversation.last_turn
    if isinstance(last, llm.FunctionCallOutput):
        request = _asked_meanwhile(conversation, last) if profile is SUPERVISOR else None
        if request is not None and tools_allowed:
            if routing.new_request(conversation.last_caller_line or "") is None:
                # The work stopped for words that are no new request (a person, asked
                # for inside the specialist): the caller's words are acted on.
                return request
            # What became of the work (done, or nothing changed), then the new request.
            return Say(unquoted(last.output).strip(), then=request)
        if (
            profile is SUPERVISOR
            and tools_allowed
            and not last.is_error
            and conversation.offers("end_call")
            and conversation.caller_spoke_during(last)
            and routing.done_with_the_call(conversation.last_caller_line or "")
        ):
            # "No, that is all, thanks" ended the work: what it came to, then goodbye,
            # not "anything else?" again.
            return Say(unquoted(last.output).strip(), then=CallTool("end_call"))
        left = routing.request_left(conversation, last) if profile is SUPERVISOR else None
        if left is not None and tools_allowed:
            # "... and change its address too": what the first request came to, then the next.
            return Say(unquoted(last.output).strip(), then=left)
        return _relay(profile, conversation, last)
    if conversation.last_caller_line is None:
        return Say(profile.opening or profile.prompt(conversation))
    if isinstance(last, llm.ChatMessage) and last.role == "assistant":
        # Nothing new from the caller since the agent last spoke.
        return Say(profile.prompt(conversation))
    if routing.checks_in(conversation.last_caller_line):
        if conversation.running:
            # "Hello? Are you there?" while a tool still runs: its result comes next.
            return Say(STILL_WORKING)
        if (waiting := conversation.output_not_relayed()) is not None:
            # ... and once it has run: its result is the answer.
            return _relay(profile, conversation, waiting)
    reply = profile.respond(conversation)
    if isinstance(reply, CallTool) and not (tools_allowed and conversation.offers(reply.name)):
        # Whatever the caller said, only offered tools are ever called.
        return Say(profile.prompt(conversation))
    return reply
