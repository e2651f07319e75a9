"""Who is calling: the line facts the room tells us once the caller joins.

A SIP participant is a phone caller; its `sip.phoneNumber` attribute is the number the
phone network presented. That number is a hint, not an identity: the identity
specialist may use it only after the caller confirms it is the number on their account.
"""

from __future__ import annotations

import logging

from livekit import rtc
from livekit.agents import Agent, JobContext

from customer_service.call.answers import explicit_answer, polarity
from customer_service.call.heard import SpokenQuestion, caller_messages
from customer_service.call.state import CallerLine, CallState

__all__ = [
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


CALLING_NUMBER_QUESTION = "Are you calling from the number on your account?"
"""Asked without saying the number or whose it is: the caller is not verified yet."""


class CallingNumberConfirmation:
    """The question whether the caller is calling from the number on their account, and
    their answer, read in code from their own words (never the model's account of them)."""

    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        self._question = SpokenQuestion(agent)
        self._earlier_messages = 0

    def ask(self, text: str) -> None:
        """Speaks `text`, which ends with the question; earlier answers no longer count."""
        self._earlier_messages = len(caller_messages(self._agent.chat_ctx))
        self._question.ask(text)

    @property
    def heard(self) -> bool:
        return self._question.heard

    def confirmed(self) -> bool:
        """A clear yes in the caller's latest words after hearing the question, and no
        clear no from them since it was asked."""
        answer = self._question.answer()
        if answer is None or explicit_answer(answer) is not True:
            return False
        since = caller_messages(self._agent.chat_ctx)[self._earlier_messages :]
        return not any(polarity(message.text_content or "") is False for message in since)
