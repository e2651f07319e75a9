"""Silence on the line while the agent works: one short "One moment" after about a second.

A tool that waits on the store (or anything but the caller) past `SLOW_STEP_NOTICE_S`
has the caller hear `ONE_MOMENT`, once per step. While a specialist runs it speaks for
itself, so the clock stops; it starts again when the specialist is done and the tool
goes on to its write.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from livekit.agents import AgentSession

from customer_service.call.fixed_sentences import fixed
from customer_service.call.phrase_cache import say

__all__ = ["ONE_MOMENT", "SlowStepNotice"]

ONE_MOMENT = fixed("One moment, please.")


class SlowStepNotice:
    """Per call: the running tools, and the timer that fires the notice."""

    def __init__(self, delay_s: float) -> None:
        self._delay_s = delay_s
        self._running = 0
        self._paused = 0
        self._session: AgentSession[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None

    @contextmanager
    def working(self, session: AgentSession[Any], *, enabled: bool = True) -> Iterator[None]:
        """Around one tool's work: the notice comes if it outlasts the delay. A tool
        that speaks for itself while it waits (`enabled=False`) holds the notice off
        for as long as it runs, like a specialist."""
        if not enabled:
            with self.held_off():
                yield
            return
        self._session = session
        self._running += 1
        self._arm()
        try:
            yield
        finally:
            self._running -= 1
            if self._running == 0:
                self._disarm()

    @contextmanager
    def held_off(self) -> Iterator[None]:
        """Around a specialist's run, or a tool that speaks for itself: someone is
        talking with the caller, so no notice is due."""
        self._paused += 1
        self._disarm()
        try:
            yield
        finally:
            self._paused -= 1
            self._arm()

    def _arm(self) -> None:
        if self._timer is None and self._running and not self._paused:
            self._timer = asyncio.get_running_loop().call_later(self._delay_s, self._fire)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        session = self._session
        if session is None or not self._running or self._paused:
            return
        if session.agent_state == "speaking":
            return  # the caller is hearing something already
        try:
            say(session, ONE_MOMENT, add_to_chat_ctx=False)
        except RuntimeError:
            return  # the session is closing
