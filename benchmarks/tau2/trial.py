"""One trial of one τ²-bench task: a fresh store, the agent answering, the benchmark's
user talking to it until the conversation ends as τ²-bench's does, then the grade.

The conversation ends when the user says a stop token, when the agent puts the caller
through to a person or ends the call, or at the turn limit (the user's lines).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from livekit.agents import llm

from benchmarks.tau2.agent_side import AgentSide
from benchmarks.tau2.grading import Ending, Grade, grade
from benchmarks.tau2.stores import FreshStores
from benchmarks.tau2.users import Usage, User, is_stop
from customer_service.settings import Settings
from customer_service.store import Store

__all__ = ["OpenAgent", "Trial", "run_trial"]

logger = logging.getLogger(__name__)

OpenAgent = Callable[[llm.LLM[Any], Store, Settings], AbstractAsyncContextManager[AgentSide]]
"""Answers a call on a store: `agent_side.text_agent`, or the voice side's."""


@dataclass
class Trial:
    task_id: str
    trial: int
    ending: Ending = Ending.ERROR
    grade: Grade | None = None
    turns: int = 0
    """The user's lines."""
    agent: Usage = field(default_factory=Usage)
    user: Usage = field(default_factory=Usage)
    waits_s: list[float] = field(default_factory=list)
    """Per turn the agent answered: seconds from the user's last word to its first."""
    said: list[str] = field(default_factory=list)
    """The agent's turns as the user received them (greeting first)."""
    call_id: str = ""
    """The call's id, as its report (REPORT_DIR) names it."""
    error: str = ""
    """What stopped the run, when it ended in an error (the exception's type)."""


async def run_trial(
    task: dict[str, Any],
    number: int,
    *,
    stores: FreshStores,
    gold: dict[str, Any],
    agent_model: llm.LLM[Any],
    user: User,
    open_agent: OpenAgent,
    settings: Settings,
    max_turns: int,
) -> Trial:
    """`gold`: the records the task's gold actions leave (`Store.export_tau2`).
    `agent_model` is this trial's own, so that its requests are counted alone."""
    trial = Trial(task["id"], number, user=user.usage)
    agent_model.on("metrics_collected", trial.agent.count)
    transferred = False
    async with stores.fresh() as store:
        try:
            async with open_agent(agent_model, store, settings) as agent:
                trial.call_id = agent.state.call_id
                trial.said.append(agent.greeting())
                trial.ending = await _converse(agent, user, trial, max_turns)
                transferred = agent.state.escalated
        except Exception as error:  # a broken trial is graded as failed, not the run
            logger.exception("task %s trial %s stopped on an error", task["id"], number)
            trial.ending = Ending.ERROR
            trial.error = type(error).__name__
        left = await store.export_tau2()
    trial.grade = grade(
        task,
        ending=trial.ending,
        left=left,
        gold=gold,
        said=trial.said,
        transferred=transferred,
    )
    return trial


async def _converse(agent: AgentSide, user: User, trial: Trial, max_turns: int) -> Ending:
    while trial.turns < max_turns:
        line = await user.reply(trial.said[-1])
        if is_stop(line):
            return Ending.USER_STOP
        trial.turns += 1
        turn = await agent.answer(line)
        trial.said.append(turn.said)
        if turn.wait_s is not None:
            trial.waits_s.append(turn.wait_s)
        if agent.state.escalated:
            return Ending.TRANSFER
        if agent.ended:
            return Ending.AGENT_STOP
    return Ending.TURN_LIMIT
