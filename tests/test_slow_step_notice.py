"""The "one moment" notice: once per slow step, never while a specialist talks.

The notice's own timer against a stand-in session (the say is the edge): the timings
are orderings of event-loop timers, a short delay against a longer wait.
"""

from __future__ import annotations

import asyncio
from typing import Any

from customer_service.call.latency import ONE_MOMENT, FirstWords, SlowStepNotice
from customer_service.call.phrase_cache import PhraseCache

DELAY_S = 0.01
LONGER_S = 0.05


class StandInState:
    phrases = PhraseCache(enabled=False)
    """A call whose sentences are said as they are (`call.phrase_cache.say`)."""
    first_words = FirstWords()
    """Nobody has spoken by voice: no acknowledgement is owed."""


class StandInSession:
    def __init__(self) -> None:
        self.agent_state = "thinking"
        self.userdata = StandInState()
        self.said: list[str] = []

    def say(self, text: str, **_: Any) -> None:
        self.said.append(text)


async def test_a_step_that_outlasts_the_delay_is_noticed_once() -> None:
    notice, session = SlowStepNotice(DELAY_S), StandInSession()
    with notice.working(session):  # type: ignore[arg-type]
        await asyncio.sleep(LONGER_S)
        await asyncio.sleep(LONGER_S)
    assert session.said == [ONE_MOMENT]


async def test_a_quick_step_is_not_noticed() -> None:
    notice, session = SlowStepNotice(LONGER_S), StandInSession()
    with notice.working(session):  # type: ignore[arg-type]
        await asyncio.sleep(DELAY_S)
    await asyncio.sleep(LONGER_S)
    assert session.said == []


async def test_no_notice_while_a_specialist_talks_and_one_after_it() -> None:
    notice, session = SlowStepNotice(DELAY_S), StandInSession()
    with notice.working(session):  # type: ignore[arg-type]
        with notice.held_off():
            await asyncio.sleep(LONGER_S)
        assert session.said == []
        # The write after the specialist is a step of its own.
        await asyncio.sleep(LONGER_S)
    assert session.said == [ONE_MOMENT]


async def test_no_notice_over_the_agents_own_speech() -> None:
    notice, session = SlowStepNotice(DELAY_S), StandInSession()
    session.agent_state = "speaking"
    with notice.working(session):  # type: ignore[arg-type]
        await asyncio.sleep(LONGER_S)
    assert session.said == []


async def test_a_tool_that_speaks_for_itself_holds_the_notice_off() -> None:
    notice, session = SlowStepNotice(DELAY_S), StandInSession()
    with notice.working(session):  # type: ignore[arg-type]
        with notice.working(session, enabled=False):  # type: ignore[arg-type]
            await asyncio.sleep(LONGER_S)
        assert session.said == []
