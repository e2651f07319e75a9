"""Confirm before acting: read a proposal back, and take only the caller's own clear yes.

A specialist that changes something for the caller (an address, a cancellation, a return)
never acts on the model's say-so. It proposes what it will finish with and how to say
it; `ConfirmBeforeActing` speaks the read-back itself, offers the model a confirm tool,
and finishes the specialist with the proposal only when the read-back finished playing
(`SpokenQuestion.heard`) and the caller's own latest words after it are a clear yes
(`answers.confirms`), both checked here, in code.

Use it in three steps (a returns request, say)::

    RETURN_WORDING = ConfirmationWording(
        done="requested", thing="a return", question="Shall I request this return?"
    )

    class ReturnTask(Specialist[ReturnResult]):
        def __init__(self, ...) -> None:
            super().__init__(instructions=RETURN_INSTRUCTIONS)
            self._confirmation = ConfirmBeforeActing(
                self,
                tool_name="confirm_return",
                tool_description="Call only after the caller said the read-back is right.",
                wording=RETURN_WORDING,
                max_refusals=2,
            )

        @function_tool()
        @guarded()
        async def record_return(self, context: RunContext[CallState], ...) -> None:
            ...  # check the arguments, raise ToolError with a sentence when they are wrong
            read_back = RETURN_WORDING.read_back("You'd like to return ...")
            await self._confirmation.propose(ReturnResult(...), read_back=read_back)

        def nudge(self) -> None:
            if not self._confirmation.nudge():
                super().nudge()  # nothing proposed yet: the specialist's own question

A specialist says only what is its own (`ConfirmationWording`): what the change is, the
question about its read-back and the read-back itself; the sentences every confirming
specialist says alike (asking for the yes, asking again, "I haven't changed anything",
"nothing was changed") are made from those here, unless it gives its own.

What it guarantees, whatever the model calls, with whatever arguments, in one reply:

- A confirm confirms only the latest proposal, and only once its read-back finished
  playing in full; words said before or over it, or already said when it began (a yes
  to an earlier read-back), count for nothing. A new proposal replaces the old one, is
  read back, and its refusals start from zero.
- A confirm while the read-back has yet to finish (it was sent in the reply that made
  the proposal) changes nothing and is answered `unanswered`, or `replaced` when that
  read-back replaces an earlier one; a read-back the caller cut off is read again; a
  confirm with no word from the caller since the read-back is answered `unanswered`.
  None of these counts as a refusal: only the caller's own words do.
- A confirm after an answer that is not a clear yes is refused with `not_a_clear_yes`;
  the `max_refusals`-th ends the specialist with `ToolError(refused)`, changing nothing.
  (The sentences named here are the `ConfirmationWording`'s.)
- A confirm before anything was proposed is answered `NOTHING_TO_CONFIRM_YET`.
- Two confirms in one reply finish the specialist once (`Specialist.finish`).
- A caller who asks for something else (`caller_wants_something_else`, sent alone or
  with a confirm, in either order) after hearing the read-back in full and saying a
  clear yes to it gets the change made first: the specialist finishes with the
  proposal. Without that yes it finishes with `nothing_done`, the specialist's plain
  sentence that nothing was changed.

When the confirm tool is offered, and why it still works before: the tool is added with
`update_tools()` at the first proposal. The framework takes a reply's tools when the reply
starts, so `update_tools()` called by a tool takes effect only from the next reply; a
confirm sent in the same reply as the proposal would come back "Unknown function", a
sentence for nobody. The tool is therefore also in `Specialist.runs_when_called`, which
lets a reply run it whether or not it was offered (a specialist that overrides
`llm_node` must go through `Specialist.llm_node` with the framework's own tool list). A
specialist that proposes as it opens (a cancellation reads the order back at once)
builds its confirmation before `super().__init__` and passes `tools=[confirmation.tool]`,
so the tool is offered from the first reply.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import FunctionTool

from customer_service.call.answers import confirms
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.heard import SpokenQuestion
from customer_service.call.phrase_cache import say
from customer_service.call.specialist import LeftForNewRequest, Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import NOTHING_TO_CONFIRM_YET, STILL_THERE

__all__ = ["SAY_YES_OR_CORRECT", "SAY_YES_OR_NO", "ConfirmBeforeActing", "ConfirmationWording"]

ResultT = TypeVar("ResultT")

SAY_YES_OR_NO = fixed("Please say yes or no.")
SAY_YES_OR_CORRECT = fixed("Please say yes, or tell me what to correct.")


@dataclass(frozen=True)
class ConfirmationWording:
    """What a confirming specialist says about its change. It gives `done` (the change in
    the past tense: "cancelled"), `thing` (what is changed: "order 1 0 0, 1 0 2") and
    `question` (the yes-or-no question about its read-back); every other sentence is
    made from them in the shape all confirming specialists share, unless given:

    - `asking`, which ends the read-back (`read_back`): the question, then
      `SAY_YES_OR_NO`;
    - `re_ask`, for a caller who went quiet after hearing it: the question, then how to
      answer (`SAY_YES_OR_CORRECT` when the caller can correct what was read back,
      `correctable`; else `SAY_YES_OR_NO`);
    - `not_a_clear_yes`, to a confirm after any other answer: "I haven't <done>
      anything.", then `re_ask`;
    - `nothing_done`, when the specialist ends without the change (the caller gave up
      or asked for something else): "All right, I haven't <done> <thing>.";
    - `refused`, when the refusals reach the cap: `nothing_done`;
    - `unanswered`, to a confirm before the caller answered: `not_a_clear_yes`;
    - `replaced`, to a confirm sent while a newer read-back plays: `unanswered`.
    """

    done: str
    thing: str
    question: str
    correctable: bool = True
    asking: str = ""
    re_ask: str = ""
    not_a_clear_yes: str = ""
    nothing_done: str = ""
    refused: str = ""
    unanswered: str = ""
    replaced: str = ""

    def __post_init__(self) -> None:
        # In order: each default may be made from the ones before it.
        how_to_answer = SAY_YES_OR_CORRECT if self.correctable else SAY_YES_OR_NO
        defaults: dict[str, Callable[[], str]] = {
            "asking": lambda: f"{self.question} {SAY_YES_OR_NO}",
            "re_ask": lambda: f"{self.question} {how_to_answer}",
            "not_a_clear_yes": lambda: f"I haven't {self.done} anything. {self.re_ask}",
            "nothing_done": lambda: f"All right, I haven't {self.done} {self.thing}.",
            "refused": lambda: self.nothing_done,
            "unanswered": lambda: self.not_a_clear_yes,
            "replaced": lambda: self.unanswered,
        }
        for name, default in defaults.items():
            if not getattr(self, name):
                object.__setattr__(self, name, default())

    def read_back(self, statement: str) -> str:
        """The read-back as spoken: what will be done (`statement`), then `asking`."""
        return f"{statement} {self.asking}"


@dataclass(frozen=True, eq=False)
class _Proposal(Generic[ResultT]):
    result: ResultT
    read_back: str
    numbers: str
    names: str
    """What the change chooses (a payment method, items): an answer naming another
    method or item option than these is a correction (`answers.confirms`)."""
    replaces_one: bool
    """Whether an earlier proposal was read back before this one."""

    def confirmed_by(self, answer: str) -> bool:
        return confirms(answer, read_back=self.read_back, numbers=self.numbers, names=self.names)


class ConfirmBeforeActing(Generic[ResultT]):
    """The read-back of what `specialist` will finish with, and its confirm tool.

    `tool_name` and `tool_description` make the confirm tool the model sees (a prompt:
    short and exact). `wording` holds what the caller hears (`ConfirmationWording`);
    the `max_refusals`-th answer that is not a clear yes ends the specialist.
    """

    def __init__(
        self,
        specialist: Specialist[ResultT],
        *,
        tool_name: str,
        tool_description: str,
        wording: ConfirmationWording,
        max_refusals: int,
    ) -> None:
        self._specialist = specialist
        self._read_back = SpokenQuestion(specialist)
        self.wording = wording
        self._max_refusals = max_refusals
        self._proposal: _Proposal[ResultT] | None = None
        self._refusals = 0
        self.tool: FunctionTool[Any, Any] = function_tool(
            self._confirm_tool, name=tool_name, description=tool_description
        )
        """The confirm tool; list it in the specialist's tools to offer it from the start."""
        specialist.runs_when_called = (*specialist.runs_when_called, self.tool)
        specialist.settles_on_leaving = self

    @property
    def proposal(self) -> ResultT | None:
        """What the specialist will finish with once confirmed; None before a proposal."""
        return self._proposal.result if self._proposal else None

    async def propose(
        self,
        result: ResultT,
        *,
        read_back: str,
        numbers: str | None = None,
        names: str | None = None,
    ) -> None:
        """Makes `result` the one proposal a confirm can finish with, replacing any earlier
        one, and speaks `read_back`, the whole of it, ending in the question that asks
        for the yes (`ConfirmationWording.read_back` adds it). A yes may repeat numbers
        only whole and in order from `numbers` (default: the read-back), so "yes, 102"
        confirms nothing about order 100102; and it may name only the payment methods
        and item options `names` holds (default: the read-back), so "yes, the gift card"
        confirms no read-back that pays with PayPal and refunds the gift card."""
        replaces_one = self._proposal is not None
        self._proposal = _Proposal(
            result, read_back, numbers or read_back, names or read_back, replaces_one
        )
        self._refusals = 0
        self._read_back.ask(read_back)
        if self.tool not in self._specialist.tools:
            await self._specialist.update_tools([*self._specialist.tools, self.tool])

    def nudge(self) -> bool:
        """Asks about the proposal again for a caller who went quiet; False when there is
        none yet (the specialist asks its own question). A read-back heard in full is not
        read again: its answer may still come, and a new reading would start it over."""
        proposal = self._proposal
        if proposal is None:
            return False
        if self._read_back.heard:
            say(self._specialist.session, f"{STILL_THERE} {self.wording.re_ask}")
        else:
            self._read_back.ask(f"{STILL_THERE} {proposal.read_back}")
        return True

    async def confirm(self) -> None:
        """Finishes the specialist with the proposal if the caller heard its read-back
        and then clearly said yes; otherwise raises a `ToolError` to speak, or reads
        the read-back again when the caller cut it off. See the module's guarantees."""
        # A proposal sent in the same reply runs first, so a correction sent together
        # with a confirmation is never lost.
        await asyncio.sleep(0)
        proposal = self._proposal
        if proposal is None:
            raise ToolError(NOTHING_TO_CONFIRM_YET)
        if not self._read_back.heard:
            if self._read_back.playing:
                # Sent with the proposal, before the caller could hear it: it is playing.
                wording = self.wording
                raise ToolError(wording.replaced if proposal.replaces_one else wording.unanswered)
            # The caller cannot have agreed to words they did not hear: say them again.
            self._read_back.ask(proposal.read_back)
            return
        answer = self._read_back.answer()
        if answer is None:
            raise ToolError(self.wording.unanswered)
        if proposal.confirmed_by(answer):
            self._specialist.finish(proposal.result)
            return
        self._refusals += 1
        if self._refusals >= self._max_refusals:
            self._specialist.finish(ToolError(self.wording.refused))
            return
        raise ToolError(self.wording.not_a_clear_yes)

    def on_leaving(self) -> ResultT | LeftForNewRequest:
        """How the specialist ends when the caller asks for something else: with the
        proposal when they heard its read-back in full and then clearly said yes ("yes
        please, and I also need ..."), so the change is made before their next request;
        otherwise changing nothing, and saying so plainly."""
        proposal, answer = self._proposal, self._read_back.answer()
        if proposal and answer is not None and proposal.confirmed_by(answer):
            return proposal.result
        return LeftForNewRequest(self.wording.nothing_done)

    # Its own cap on refusals is the bound here, not the count of repeated calls.
    @guarded(count_repeats=False)
    async def _confirm_tool(self, context: RunContext[CallState]) -> None:
        await self.confirm()
