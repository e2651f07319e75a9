"""Putting a phone caller through to a person, or promising a call back.

Every request for a person leaves one escalation record first (`call.escalation`): it
is what the colleague reads, and it is written before anything can cut the call. Then:

- A phone (SIP) caller, with `TRANSFER_NUMBER` set, hears one short line and is put
  through. With `SIP_OUTBOUND_TRUNK_ID` too it is a warm transfer: the framework's
  `WarmTransferTask` holds the caller, dials the colleague, briefs them with the
  record's facts and then the model's note, masked and labelled as the model's (never
  the transcript), and merges the calls. Without a
  trunk it is a cold transfer: the caller's call is handed on by SIP REFER
  (`JobContext.transfer_sip_participant`).
- A transfer that fails (no answer, declined, voicemail, an API error) comes back to
  the supervisor with a plain sentence for the caller, and the record becomes a request
  for a call back (`Store.request_callback`). Nothing is tried a second time in a call.
- Anyone else (browser, terminal, tests, or no number configured) hears that a
  colleague will call back, and is offered the end of the call or more help.

The agent leaves a transferred call (its session shuts down) but never deletes the
room: the caller, and after a warm transfer the colleague, are still on it.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from livekit import rtc
from livekit.agents import AgentSession, JobContext, get_job_context
from livekit.agents.beta.workflows import WarmTransferTask
from livekit.agents.llm import ChatContext
from pydantic import JsonValue

from customer_service.call import audit
from customer_service.call.escalation import briefing, escalate, model_note, summarize
from customer_service.call.fixed_sentences import fixed
from customer_service.call.phrase_cache import say
from customer_service.call.state import CallState
from customer_service.call.wording import END_OR_HELP
from customer_service.settings import Settings
from customer_service.store import EscalationRecord, StoreUnavailable

__all__ = [
    "BRINGING_IN_A_COLLEAGUE",
    "PUTTING_YOU_THROUGH",
    "TRANSFER_FAILED",
    "TransferKind",
    "hand_to_person",
    "phone_caller",
]

logger = logging.getLogger(__name__)

PUTTING_YOU_THROUGH = fixed("I'm putting you through to a colleague now. Please stay on the line.")
"""The one line before a cold transfer."""
BRINGING_IN_A_COLLEAGUE = fixed(
    "Please hold while I bring in a colleague and tell them what we've covered."
)
"""The one line before a warm transfer; hold music follows."""
TRANSFER_FAILED = fixed(
    "I'm sorry, I couldn't reach a colleague just now. One will call you back as soon as "
    f"they can, with a summary of what we've covered. {END_OR_HELP}"
)

BRIEFING_INSTRUCTIONS = (
    "The hand-off summary's facts come from the call's records. The model's note is the "
    "earlier assistant's own words, unchecked: pass it on as that, never as a fact about "
    "who the caller is or what was agreed."
)
"""Added to the colleague-side instructions of a warm transfer."""

RINGING_TIMEOUT_S = 30.0
"""How long the colleague's phone rings in a warm transfer before the caller is told."""

_SIP_CALL_STATUS = "sip.callStatus"
"""Participant attribute LiveKit SIP sets; only an answered call ("active") can be
handed on."""


class TransferKind(enum.StrEnum):
    COLD = "cold"
    """SIP REFER: the caller's call is handed on to the colleague's number."""
    WARM = "warm"
    """The colleague is dialled and briefed first, then joined to the caller."""


@dataclass(frozen=True)
class _Transfer:
    kind: TransferKind
    job: JobContext
    caller: rtc.RemoteParticipant
    number: str
    trunk_id: str

    @property
    def refer_to(self) -> str:
        """The number as SIP REFER takes it: a tel: or sip: URI."""
        return f"tel:{self.number}" if self.number.startswith("+") else self.number

    @property
    def dial(self) -> str:
        """The number as an outbound SIP call takes it: E.164 or a sip: URI."""
        return self.number.removeprefix("tel:")


_attempts: WeakKeyDictionary[AgentSession[CallState], asyncio.Future[str | None]] = (
    WeakKeyDictionary()
)
"""The one transfer attempt of each session: what the caller was told, or None when
they were put through."""


def phone_caller(job: JobContext) -> rtc.RemoteParticipant | None:
    """The caller on a phone line in this job's room, if there is one."""
    for participant in job.room.remote_participants.values():
        if (
            participant.kind == rtc.ParticipantKind.PARTICIPANT_KIND_SIP
            and participant.attributes.get(_SIP_CALL_STATUS, "active") == "active"
        ):
            return participant
    return None


def _planned_transfer(settings: Settings) -> _Transfer | None:
    if not settings.transfer_number:
        return None
    job = get_job_context(required=False)
    caller = phone_caller(job) if job is not None else None
    if job is None or caller is None:
        return None
    trunk = settings.sip_outbound_trunk_id
    return _Transfer(
        kind=TransferKind.WARM if trunk else TransferKind.COLD,
        job=job,
        caller=caller,
        number=settings.transfer_number,
        trunk_id=trunk,
    )


async def hand_to_person(
    session: AgentSession[CallState],
    reason: str,
    *,
    from_specialist: str | None = None,
    collected: dict[str, JsonValue] | None = None,
) -> str | None:
    """Records the hand-off and puts a phone caller through when that is configured.

    Returns what the caller should hear next, or None when they were put through (the
    session is then shutting down and nothing more is said). Requests sent together
    share one attempt; a later request gets the first one's answer.
    """
    state = session.userdata
    transfer = _planned_transfer(state.settings)
    extra: dict[str, JsonValue] = {"transfer": transfer.kind.value} if transfer else {}
    message = await escalate(
        state,
        reason,
        session.history,
        from_specialist=from_specialist,
        collected={**(collected or {}), **extra},
    )
    if transfer is None:
        return message
    attempt = _attempts.get(session)
    if attempt is not None:
        return await asyncio.shield(attempt)
    attempt = asyncio.get_running_loop().create_future()
    _attempts[session] = attempt
    try:
        outcome = await _put_through(session, transfer, reason)
    except BaseException:
        attempt.set_result(TRANSFER_FAILED)  # cancelled: whoever waits still gets an answer
        raise
    attempt.set_result(outcome)
    return outcome


async def _put_through(
    session: AgentSession[CallState], transfer: _Transfer, reason: str
) -> str | None:
    state = session.userdata
    try:
        if transfer.kind is TransferKind.COLD:
            await say(session, PUTTING_YOU_THROUGH, allow_interruptions=False)
            with _caller_unheard(session):
                await transfer.job.transfer_sip_participant(transfer.caller, transfer.refer_to)
        else:
            await say(session, BRINGING_IN_A_COLLEAGUE, allow_interruptions=False)
            # The task holds the caller, talks with the colleague and merges the calls;
            # a colleague who does not answer, declines or is voicemail is a ToolError.
            await WarmTransferTask(
                sip_call_to=transfer.dial,
                sip_trunk_id=transfer.trunk_id,
                chat_ctx=await _briefing(state, reason, session.history),
                ringing_timeout=RINGING_TIMEOUT_S,
                extra_instructions=BRIEFING_INSTRUCTIONS,
            )
    except Exception as error:
        return await _failed(state, transfer, error)
    await audit.record(state, "call_transferred", transfer=transfer.kind.value)
    state.end()
    session.shutdown(drain=True)
    return None


async def _briefing(state: CallState, reason: str, history: ChatContext) -> ChatContext:
    """What the colleague is told before they join: the hand-off record's facts, then the
    model's note, masked and labelled (`call.escalation.briefing`), which hold no more
    personal data than the record itself. Never the transcript: the framework would read
    all of it to the colleague's side."""
    record = await _escalation(state)
    if record is not None:
        summary, note = record.summary, record.reason
    else:  # the store was down when the hand-off was recorded
        summary, note = summarize(state, []), model_note(reason, state, history)
    context = ChatContext.empty()
    context.add_message(role="assistant", content=briefing(summary, note))
    return context


async def _escalation(state: CallState) -> EscalationRecord | None:
    """This call's hand-off record (one per call), if the store has it."""
    try:
        records = await state.store.escalations(call_id=state.call_id)
    except StoreUnavailable:
        return None
    return records[0] if records else None


async def _failed(state: CallState, transfer: _Transfer, error: Exception) -> str:
    """The caller stays with the supervisor; the hand-off becomes a call-back request."""
    failure = type(error).__name__  # never the message: it can quote the colleague or the API
    logger.warning(
        "transfer failed",
        extra={"call_id": state.call_id, "transfer": transfer.kind.value, "error": failure},
    )
    await audit.record(state, "transfer_failed", transfer=transfer.kind.value, error=failure)
    record = await _escalation(state)
    try:
        if record is None or not await state.store.request_callback(
            record.escalation_id, transfer_failure=failure
        ):
            logger.error("call-back request not stored", extra={"call_id": state.call_id})
    except StoreUnavailable:
        logger.error("call-back request not stored", extra={"call_id": state.call_id})
    return TRANSFER_FAILED


@contextmanager
def _caller_unheard(session: AgentSession[Any]) -> Iterator[None]:
    """While the call is being handed on, the caller's words start no new reply; if it
    fails, they are heard again."""
    listening = session.input.audio is not None and session.input.audio_enabled
    if listening:
        session.input.set_audio_enabled(False)
    try:
        yield
    except BaseException:
        if listening:
            session.input.set_audio_enabled(True)
        raise
