"""Who is calling: the line facts the room tells us once the caller joins.

A SIP participant is a phone caller; its `sip.phoneNumber` attribute is the number the
phone network presented. That number is a hint, not an identity: the identity
specialist may use it only after the caller confirms it is the number on their account.
"""

from __future__ import annotations

import logging
from textwrap import dedent

from livekit import rtc
from livekit.agents import Agent, JobContext
from livekit.agents.llm import ChatMessage
from livekit.agents.voice import SpeechHandle

from customer_service.call.answers import polarity
from customer_service.call.fixed_sentences import fixed
from customer_service.call.heard import SpokenQuestion, caller_messages
from customer_service.call.state import CallerLine, CallState

__all__ = [
    "CALLING_NUMBER_ASKINGS",
    "CALLING_NUMBER_INSTRUCTIONS",
    "CALLING_NUMBER_NOT_CONFIRMED",
    "CALLING_NUMBER_QUESTION",
    "SIP_PHONE_NUMBER_ATTRIBUTE",
    "CallingNumberConfirmation",
    "learn_caller_line",
    "line_of",
]

logger = logging.getLogger(__name__)

SIP_PHONE_NUMBER_ATTRIBUTE = "sip.phoneNumber"


def line_of(participant: rtc.Participant) -> CallerLine:
    """The line facts one participant carries."""
    if participant.kind != rtc.ParticipantKind.PARTICIPANT_KIND_SIP:
        return CallerLine()
    number = participant.attributes.get(SIP_PHONE_NUMBER_ATTRIBUTE, "").strip()
    return CallerLine(is_phone=True, caller_number=number or None)


async def learn_caller_line(ctx: JobContext, state: CallState) -> None:
    """Waits for the caller to join (at once if they already have) and records their
    line on the call. A room that closes before anyone joins leaves the default."""
    try:
        participant = await ctx.wait_for_participant()
    except RuntimeError:
        # The framework raises when the room is not (or no longer) connected.
        logger.info("caller never joined", extra={"call_id": state.call_id})
        return
    line = line_of(participant)
    state.learn_line(line)
    # Facts about the line only; the number itself stays out of the logs.
    logger.info(
        "caller joined",
        extra={
            "call_id": state.call_id,
            "phone_line": line.is_phone,
            "caller_number_presented": line.caller_number is not None,
        },
    )


CALLING_NUMBER_QUESTION = fixed("Are you calling from the number on your account?")
"""Asked on its own, without saying the number or whose it is: the caller is not
verified yet."""

CALLING_NUMBER_INSTRUCTIONS = dedent(
    """
    The caller is on a phone line and was asked whether they are calling from the
    number on their account. Never ask that yourself. If they said yes, call
    use_calling_number with their name and postal code instead of asking for a phone
    number or email; it asks the question again itself when it needs to. If they said
    no, ask for the phone number or email address on the account as usual. You do not
    know the calling number: never say or guess it, or whose it is.
    """
)
CALLING_NUMBER_NOT_CONFIRMED = (
    "Then I'll need the phone number or email address on your account, please."
)

CALLING_NUMBER_ASKINGS = 2
"""Times the question is put to a caller whose answer is neither a clear yes nor a clear
no, before they are asked for a phone number or email instead."""


class CallingNumberConfirmation:
    """The question whether the caller is calling from the number on their account,
    spoken on its own, and their answer, read in code from their own words (never the
    model's account of them). Only a yes to this question counts: a yes the caller gave
    after the agent asked anything else ("your postal code is 94107?") answers that."""

    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        self._question = SpokenQuestion(agent)
        self._asking: SpeechHandle | None = None
        self._earlier_messages = 0
        self._askings = 0

    def ask(self) -> None:
        """Speaks the question; earlier answers no longer count."""
        self._earlier_messages = len(caller_messages(self._agent.chat_ctx))
        self._asking = self._question.ask(CALLING_NUMBER_QUESTION)
        self._askings += 1

    @property
    def heard(self) -> bool:
        return self._question.heard

    def outcome(self) -> bool | None:
        """True once `confirmed`; False when `refused`, or still unconfirmed after
        `CALLING_NUMBER_ASKINGS` askings the caller heard; None while the question is
        still to be asked (again): never asked, not heard, or not answered directly."""
        if self.confirmed():
            return True
        if self.refused() or (self.heard and self._askings >= CALLING_NUMBER_ASKINGS):
            return False
        return None

    def confirmed(self) -> bool:
        """A clear yes in the caller's latest words after hearing the question, with
        nothing said by the agent in between, and no clear no from them since it was
        asked."""
        answer = self._question.answer()
        if answer is None or polarity(answer) is not True:
            return False
        if not self._answered_directly():
            return False
        return not self.refused()

    def refused(self) -> bool:
        """A clear no in the caller's words since the question was last asked."""
        if self._asking is None:
            return False
        since = caller_messages(self._agent.chat_ctx)[self._earlier_messages :]
        return any(polarity(message.text_content or "") is False for message in since)

    def _answered_directly(self) -> bool:
        """Whether the last thing the agent said before the caller's latest words was
        this question."""
        if self._asking is None:
            return False
        question = {item.id for item in self._asking.chat_items}
        said = [item for item in self._agent.chat_ctx.items if isinstance(item, ChatMessage)]
        callers = [position for position, message in enumerate(said) if message.role == "user"]
        if not callers:
            return False
        agent_before = [message for message in said[: callers[-1]] if message.role == "assistant"]
        return bool(agent_before) and agent_before[-1].id in question
