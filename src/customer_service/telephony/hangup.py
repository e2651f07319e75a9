"""Hanging up: the farewell plays to the end, then the call ends for everyone, once.

Closing the session alone leaves a phone caller on a silent line: the call ends only
when the room is deleted, which disconnects every participant, SIP callers included.

Why not `livekit.agents.beta.tools.EndCallTool`: it lets the model word the goodbye
(interruptible, like any reply), it reads the job context when the session closes, which
raises where there is no job (`chat`, tests), it is a tool of its own, so the silent
caller's hang-up (`call.idle`) could not share it, and each call of the tool registers
one more room deletion. This module wraps the same primitives instead: `session.say`
with interruptions off and its playout awaited, `AgentSession.shutdown(drain=True)` and
`JobContext.delete_room()`.
"""

from __future__ import annotations

import asyncio
import logging
from weakref import WeakKeyDictionary

from livekit.agents import AgentSession, get_job_context

from customer_service.call.state import CallState
from customer_service.call.wording import GOODBYE

__all__ = ["hang_up"]

logger = logging.getLogger(__name__)

_hang_ups: WeakKeyDictionary[AgentSession[CallState], asyncio.Task[None]] = WeakKeyDictionary()
"""The one hang-up of each session, so a second request waits for the first."""


async def hang_up(session: AgentSession[CallState], farewell: str = GOODBYE) -> None:
    """Says `farewell` (a caller talking over it does not cut it), waits until it has
    played, and ends the call: the room is deleted in a job, the session shut down
    everywhere. Called again, or several times at once, it waits for the first call's
    hang-up and does nothing more.

    The hang-up runs as a task of its own: a tool cancelled midway (the session
    closing around it) still leaves a call that ends for everyone.
    """
    task = _hang_ups.get(session)
    if task is None:
        session.userdata.end()
        task = asyncio.create_task(_end_the_call(session, farewell), name="hang up")
        _hang_ups[session] = task
    await asyncio.shield(task)


async def _end_the_call(session: AgentSession[CallState], farewell: str) -> None:
    call_id = session.userdata.call_id
    try:
        speech = session.say(farewell, allow_interruptions=False)
    except RuntimeError:
        speech = None  # the session is already closing: nobody is left to hear it
    if speech is not None:
        await speech.wait_for_playout()
    session.shutdown(drain=True)
    job = get_job_context(required=False)
    if job is None:
        return  # chat, tests: no room and no phone line, the session was all there was
    logger.info("deleting the room to end the call", extra={"call_id": call_id})
    try:
        await job.delete_room()
    except Exception as error:
        # The framework logs its own API failures; anything else is logged here, by type
        # only, and the session is closing either way.
        logger.error("room not deleted", extra={"call_id": call_id, "error": type(error).__name__})
