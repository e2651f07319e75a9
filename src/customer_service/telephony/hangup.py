"""Hanging up: the call ends for everyone, once, after a farewell the caller let finish.

Closing the session alone leaves a phone caller on a silent line: the call ends only
when the room is deleted, which disconnects every participant, SIP callers included.

The farewell can be interrupted like any reply, so the framework's own rule tells words
from noise: a cough pauses it and it resumes (a false interruption), words cut it. A
caller who cuts it ("wait, one more thing") is still on the call: nothing is ended or
recorded as ended, and their words are a turn the agent answers; when that answer is to
end the call (the words were their own goodbye), it ends without a second farewell. The
hang-up waits for the farewell in a task of its own, not inside the tool that asked for
it: the framework holds a caller's turn until every running tool has finished, so the
tool returns at once and the farewell is an ordinary speech of the session.

Why not `livekit.agents.beta.tools.EndCallTool`: it lets the model word the goodbye, it
ends the session whether or not the caller let the goodbye finish, it reads the job
context when the session closes, which raises where there is no job (`chat`, tests), it
is a tool of its own, so the silent caller's hang-up (`call.idle`) could not share it,
and each call of the tool registers one more room deletion. This module wraps the same
primitives instead: `session.say` and its playout, `AgentSession.shutdown(drain=True)`
and `JobContext.delete_room()`.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from livekit.agents import AgentSession, get_job_context
from livekit.agents.llm import ChatMessage
from livekit.agents.voice import SpeechHandle

from customer_service.call import audit
from customer_service.call.phrase_cache import say
from customer_service.call.state import CallState
from customer_service.call.wording import GOODBYE
from customer_service.store import StoreUnavailable

__all__ = ["ENDED_BY_AGENT", "hang_up", "start_hang_up"]

logger = logging.getLogger(__name__)

ENDED_BY_AGENT = "call_ended_by_agent"
"""The audit event of a call the agent ended (`end_call`)."""


@dataclass(frozen=True)
class _HangUp:
    farewell: SpeechHandle | None
    """None when no farewell was said: the session was already closing (nobody was left
    to hear one), or the caller had just spoken over one (`said_last`)."""
    ended: asyncio.Task[bool]

    @property
    def cut_short(self) -> bool:
        return self.farewell is not None and self.farewell.interrupted

    def said_last(self, session: AgentSession[CallState]) -> bool:
        """Whether the caller heard this farewell begin, cut it, and has heard nothing
        from the agent since: the words they spoke over it are all that followed."""
        if self.farewell is None:
            return False
        spoken = [
            item
            for item in session.history.items
            if isinstance(item, ChatMessage) and item.role == "assistant"
        ]
        return bool(spoken) and spoken[-1] in self.farewell.chat_items


_hang_ups: WeakKeyDictionary[AgentSession[CallState], _HangUp] = WeakKeyDictionary()
"""Each session's hang-up under way or done, so a second request joins the first."""


def start_hang_up(
    session: AgentSession[CallState], farewell: str = GOODBYE, *, audit_event: str = ENDED_BY_AGENT
) -> asyncio.Task[bool]:
    """Says `farewell` now and ends the call once it has played to its end: `audit_event`
    is recorded, the session shut down everywhere, the room deleted in a job. The task's
    result is True when the call ended, False when the caller's words cut the farewell
    and the call goes on. While one hang-up is under way or done, another request gets
    that one's task. After a cut-short farewell, the next request says its own, unless
    that farewell is still the last the caller heard from the agent: then the words they
    spoke over it were a goodbye of theirs ("thanks, bye"), and the call ends without a
    second one."""
    current = _hang_ups.get(session)
    if current is not None and not current.cut_short:
        return current.ended
    state = session.userdata
    state.end()
    speech: SpeechHandle | None = None
    if current is None or not current.said_last(session):
        # RuntimeError: the session is already closing, and nobody is left to hear one.
        with suppress(RuntimeError):
            # Interruptible: the framework pauses it for noise and cuts it for words.
            speech = say(session, farewell, allow_interruptions=True)
    ended = asyncio.create_task(_end_the_call(session, speech, audit_event), name="hang up")
    _hang_ups[session] = _HangUp(speech, ended)
    return ended


async def hang_up(
    session: AgentSession[CallState], farewell: str = GOODBYE, *, audit_event: str = ENDED_BY_AGENT
) -> bool:
    """`start_hang_up`, waited for: True when the call ended, False when the caller
    spoke over the farewell. Cancelling the wait does not stop the hang-up."""
    return await asyncio.shield(start_hang_up(session, farewell, audit_event=audit_event))


async def _end_the_call(
    session: AgentSession[CallState], farewell: SpeechHandle | None, audit_event: str
) -> bool:
    state = session.userdata
    if farewell is not None:
        await farewell.wait_for_playout()
        if farewell.interrupted:
            # Cut by the caller's words, whose turn is on its way to the agent, or by the
            # caller hanging up, which ends the call like any other hang-up of theirs.
            current = _hang_ups.get(session)
            if current is None or current.farewell is farewell:
                state.cancel_end()  # unless a later request is already saying goodbye again
            logger.info("farewell cut short by the caller", extra={"call_id": state.call_id})
            return False
    # Only now is it true that the call ended: kept for the call's last write. A store
    # that fails it (logged by `audit`) does not keep a caller who heard the goodbye.
    with suppress(StoreUnavailable):
        await audit.record_later(state, audit_event)
    session.shutdown(drain=True)
    job = get_job_context(required=False)
    if job is None:
        return True  # chat, tests: no room and no phone line, the session was all there was
    logger.info("deleting the room to end the call", extra={"call_id": state.call_id})
    try:
        await job.delete_room()
    except Exception as error:
        # The framework logs its own API failures; anything else is logged here, by type
        # only, and the session is closing either way.
        logger.error(
            "room not deleted", extra={"call_id": state.call_id, "error": type(error).__name__}
        )
    return True
