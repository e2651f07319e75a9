"""What every specialist shares: one way to finish, knowing how it ended, and a way out.

Parallel tool calls stay on, for specialists and the supervisor alike. Turning them off
(`parallel_tool_calls=False`) is a request a model or provider may ignore, so every rule
must hold in code when several calls arrive in one reply anyway: identity checks are
serialised and counted under a lock, a confirmation yields to a correction sent with
it, `finish` takes the first outcome only, and supervisor tools that start specialists
run one at a time. With that in place, turning them off would only cost round trips.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any, Generic, Protocol, TypeVar

from livekit import rtc
from livekit.agents import (
    AgentTask,
    ModelSettings,
    RunContext,
    StopResponse,
    ToolError,
    function_tool,
    llm,
)
from livekit.agents.llm import ToolFlag
from pydantic import JsonValue

from customer_service.call.empty_replies import Reply, never_empty, relays_a_tool_result
from customer_service.call.guard import guarded
from customer_service.call.latency import FirstWords
from customer_service.call.phrase_cache import say
from customer_service.call.state import CallState
from customer_service.call.wording import (
    LEFT_FOR_SOMETHING_ELSE,
    SPECIALIST_WAY_OUT,
    STILL_THERE,
)
from customer_service.pipeline.resilience import model_reply
from customer_service.telephony.transfer import hand_to_person

ResultT = TypeVar("ResultT")
OutcomeT_co = TypeVar("OutcomeT_co", covariant=True)


class LeftForNewRequest(ToolError):
    """A specialist the caller left by asking for something else: nothing was saved, and
    their request, in the history, is answered next."""


class SettlesOnLeaving(Protocol[OutcomeT_co]):
    """What decides how a specialist ends when the caller asks for something else: a
    change they already confirmed (`call.confirmation`) is made before they move on."""

    def on_leaving(self) -> OutcomeT_co | LeftForNewRequest: ...


class Specialist(AgentTask[ResultT], Generic[ResultT]):
    """An `AgentTask` that records whether it was cancelled or timed out, not completed.

    The framework cancels a running task when the session closes (the caller hung up),
    and cancellation reaches the awaiting tool as an ordinary `ToolError`; these flags
    are how the delegation tells the cases apart.
    """

    cancelled = False
    timed_out = False
    escalated = False
    handing_over = False
    entered = False
    """Whether the framework started this specialist: one created as the caller hung up
    never runs, and a run that never happened cannot have failed."""
    left_for_new_request = False
    """The caller asked for something else: stopped by the caller, not a failure."""
    settles_on_leaving: SettlesOnLeaving[ResultT] | None = None
    """How the specialist ends when the caller asks for something else; without one, it
    saves nothing and says so (`LEFT_FOR_SOMETHING_ELSE`)."""
    runs_when_called: tuple[llm.FunctionTool[Any, Any], ...] = ()
    """Tools that run whenever the model calls them, offered or not. `update_tools()`
    takes effect only from the next reply: a tool it adds, called in the reply whose tool
    added it, would otherwise come back "Unknown function" (`call.confirmation`)."""

    def __init__(self, *, instructions: str, **kwargs: Any) -> None:
        # Said once for all specialists: any of them can be left for a new request.
        super().__init__(instructions=instructions + SPECIALIST_WAY_OUT, **kwargs)

    async def on_enter(self) -> None:
        self.entered = True
        await self.opening()

    async def opening(self) -> None:
        """What the specialist says or does first; it speaks before the caller does."""

    def filler_at_once(self, chat_ctx: llm.ChatContext) -> bool:
        """Whether a filler is owed at the start of the reply asked for with `chat_ctx`
        before any tool call, because code can tell from the caller's words that it
        starts work on them (`call.latency.FirstWords`); not by default."""
        return False

    still_there_question = ""
    """The specialist's question in short form, for a caller who has gone quiet."""

    def nudge(self) -> None:
        """Asks the question again, once and briefly, after the caller went quiet."""
        say(self.session, f"{STILL_THERE} {self.still_there_question}".strip())

    def cancel(self) -> None:
        if not self.done() and not self.timed_out:
            self.cancelled = True
        super().cancel()

    def time_out(self) -> None:
        """Ends a specialist that ran past its time limit, interrupting what it was saying;
        not while it hands the caller to a person (the transfer has its own time limit)."""
        if self.done() or self.handing_over:
            return
        self.timed_out = True
        super().cancel()

    def collected(self) -> dict[str, JsonValue]:
        """What this specialist has gathered so far, for a colleague who takes over; only
        values safe to store (identifiers, masked text)."""
        return {}

    def finish(self, result: ResultT | Exception) -> None:
        """Completes the task once; a second outcome after the first is ignored."""
        if not self.done():
            self.complete(result)

    async def llm_node(
        self, chat_ctx: llm.ChatContext, tools: list[llm.Tool], model_settings: ModelSettings
    ) -> Reply:
        if self.done():
            # Finished by one of several tool calls in a reply: the others' outputs would
            # otherwise cost one more round trip, and the caller would hear stale words.
            return
        # The model is offered what it is offered; the reply may also run these. The
        # framework runs a reply's calls from this list, and reads it again when a call
        # names a tool it does not have.
        offered = list(tools)
        tools.extend(tool for tool in self.runs_when_called if tool not in offered)

        def reply() -> Reply:
            return model_reply(self, chat_ctx, offered, model_settings)

        again = reply if relays_a_tool_result(chat_ctx) else None
        first_words = self.session.userdata.first_words  # the call's `CallState`
        answer = never_empty(reply(), ask_again=again)
        at_once = self.filler_at_once(chat_ctx)
        async for chunk in first_words.reply(answer, chat_ctx=chat_ctx, at_once=at_once):
            yield chunk

    def tts_node(
        self, text: AsyncIterable[str], model_settings: ModelSettings
    ) -> AsyncIterator[rtc.AudioFrame]:
        first_words: FirstWords = self.session.userdata.first_words  # the call's `CallState`
        return first_words.audio(self, text, model_settings)

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False, notice_if_slow=False)
    async def caller_wants_something_else(
        self, context: RunContext[CallState], request: str
    ) -> None:
        """Stop this task because the caller asks for something else or says goodbye;
        their request is handled next. A change they already clearly confirmed is made
        first; nothing else is saved.

        Args:
            request: The caller's new request, in a few words.
        """
        # Nothing here acts on the model's words: a change is made only on the caller's
        # own yes, read in code, and the supervisor reads their request from the history.
        settles = self.settles_on_leaving
        outcome = settles.on_leaving() if settles else LeftForNewRequest(LEFT_FOR_SOMETHING_ELSE)
        self.left_for_new_request = isinstance(outcome, LeftForNewRequest)
        self.finish(outcome)

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False, notice_if_slow=False)
    async def transfer_to_human(self, context: RunContext[CallState], reason: str) -> None:
        """Hand the caller to a person. Use as soon as the caller asks for one.

        Args:
            reason: A few words on why, for the colleague who takes over.
        """
        self.handing_over = True
        try:
            message = await hand_to_person(
                context.session, reason, from_specialist=self.id, collected=self.collected()
            )
        finally:
            self.handing_over = False
        self.escalated = True
        # Put through to a person: the call is over for us, and the supervisor says nothing.
        self.finish(StopResponse() if message is None else ToolError(message))
