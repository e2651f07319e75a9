"""A caller who goes quiet: asked once more in short form, then the call ends.

The framework marks the caller away after `USER_AWAY_TIMEOUT_S` of silence while the
agent listens (`user_away_timeout`). The first time, whoever holds the conversation
(the supervisor or a specialist) asks its question again in short form and the
framework's away timer starts over; a second silence, measured once the question has
begun to play, ends the call through the same hang-up path as `end_call`, so words
over that farewell keep the call open too. Any word from the caller starts the count
again. Time that runs out before the greeting or the question asked again has begun to
play is not the caller's silence: the timer starts over, once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Protocol

from livekit.agents import AgentSession, AgentStateChangedEvent, AgentTask, UserStateChangedEvent

from customer_service.call.listeners import listen
from customer_service.call.phrase_cache import say
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import ENDING_FOR_SILENCE, HOW_CAN_I_HELP, STILL_THERE

__all__ = ["ENDED_FOR_SILENCE", "SILENCES_BEFORE_HANGING_UP", "HangUp", "IdleCaller"]

logger = logging.getLogger(__name__)

SILENCES_BEFORE_HANGING_UP = 2
ENDED_FOR_SILENCE = "call_ended_for_silence"
"""The audit event of a call ended after the caller went quiet."""


class HangUp(Protocol):
    """Says `farewell` and ends the call once it has played to its end, recording
    `audit_event`; False when the caller's words cut it and the call goes on."""

    def __call__(self, farewell: str, *, audit_event: str) -> Awaitable[bool]: ...


class IdleCaller:
    """Watches one session for a silent caller."""

    def __init__(self, session: AgentSession[CallState], hang_up: HangUp) -> None:
        self._session = session
        self._hang_up = hang_up
        self._silences = 0
        self._ending: asyncio.Task[None] | None = None
        self._asked_unplayed = True
        """Asked again, and the question has not started playing yet. True from the
        start: the greeting is the call's first question, and a greeting slow to start
        playing (a loaded machine, a slow synthesis) leaves the caller no silence of
        theirs to count."""
        listen(session, "user_state_changed", self._on_user_state_changed)
        listen(session, "agent_state_changed", self._on_agent_state_changed)

    def _on_agent_state_changed(self, event: AgentStateChangedEvent) -> None:
        if event.new_state == "speaking":
            self._asked_unplayed = False

    def _on_user_state_changed(self, event: UserStateChangedEvent) -> None:
        if event.new_state == "speaking":
            self._silences = 0
        elif event.new_state == "away" and self._asked_unplayed:
            # The away timer restarted before the question began to play (the event
            # loop was held up in between): the caller has not yet had the question,
            # so this is no second silence. Once only, so a question that never plays
            # cannot keep the call open for ever.
            self._asked_unplayed = False
            asyncio.get_running_loop().call_soon(self._session.reset_away_timer)
        elif event.new_state == "away" and self._ending is None:
            self._silences += 1
            if self._silences >= SILENCES_BEFORE_HANGING_UP:
                self._ending = asyncio.create_task(self._end_call())
            else:
                self._ask_again()

    def _ask_again(self) -> None:
        agent = self._session.current_agent
        if isinstance(agent, Specialist):
            agent.nudge()
        elif isinstance(agent, AgentTask):
            # One of the framework's own tasks (keypad entry, a warm transfer): it has no
            # short question of ours to ask.
            say(self._session, STILL_THERE)
        else:
            say(self._session, f"{STILL_THERE} {HOW_CAN_I_HELP}")
        self._asked_unplayed = True
        # The caller counts as listening again, so a second silence is measured afresh.
        # Not from inside this state change's own event: every other listener would hear
        # of "listening" before "away".
        asyncio.get_running_loop().call_soon(self._session.reset_away_timer)

    async def _end_call(self) -> None:
        state = self._session.userdata
        logger.info("ending the call after silence", extra={"call_id": state.call_id})
        if not await self._hang_up(ENDING_FOR_SILENCE, audit_event=ENDED_FOR_SILENCE):
            # The caller spoke over the farewell: they are back, and silence counts afresh.
            self._silences = 0
            self._ending = None
