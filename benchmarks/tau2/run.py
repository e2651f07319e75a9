"""A τ²-bench run: the split's tasks, each tried K times against the agent, graded, and
summed up as pass^1 … pass^k, cost and the caller's wait, with the models named.

Each task's gold records are computed once, its gold actions performed through the
store's own operations on a fresh copy of the database; each trial runs on another.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from livekit.agents import llm

from benchmarks.tau2.grading import pass_hat_k
from benchmarks.tau2.replay import replay_task
from benchmarks.tau2.stores import FreshStores
from benchmarks.tau2.trial import OpenAgent, Trial, run_trial
from benchmarks.tau2.users import Usage, User
from customer_service.reports.prices import ModelPrice
from customer_service.reports.summary import dollars, percentile, table
from customer_service.settings import Settings

__all__ = ["Run", "RunSetup", "run_tasks", "split_tasks"]

logger = logging.getLogger(__name__)


def split_tasks(
    tasks: list[dict[str, Any]],
    splits: dict[str, list[str]],
    split: str,
    only: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The split's tasks in the benchmark's order; with `only`, those of them."""
    if split not in splits:
        raise ValueError(f"no split {split!r}: the splits are {', '.join(sorted(splits))}")
    chosen = set(splits[split])
    unknown = [task_id for task_id in only if task_id not in chosen]
    if unknown:
        raise ValueError(f"not in the {split} split: {', '.join(unknown)}")
    wanted = set(only) or chosen
    return [task for task in tasks if task["id"] in wanted]


@dataclass(frozen=True)
class RunSetup:
    """What a run plays with: how each trial's agent model and user are made, how the
    agent answers (text or voice), and the names and prices that go in the summary."""

    agent_model: Callable[[dict[str, Any]], llm.LLM[Any]]
    """A trial's own agent model, for the task (a real model does not look at it)."""
    user: Callable[[dict[str, Any]], User]
    open_agent: OpenAgent
    settings: Settings
    agent_model_name: str
    user_model_name: str
    split: str
    line: str = "text"
    """How the agent answered: text, or voice and with which speech models."""
    max_turns: int = 30


@dataclass
class Run:
    setup: RunSetup
    trials: list[Trial] = field(default_factory=list)

    def passes(self, *, store_only: bool = False) -> dict[str, list[bool]]:
        found: dict[str, list[bool]] = {}
        for trial in self.trials:
            assert trial.grade is not None
            passed = trial.grade.store_passed if store_only else trial.grade.passed
            found.setdefault(trial.task_id, []).append(passed)
        return found

    def cost_usd(self, trial: Trial) -> float | None:
        """The agent's and the user's tokens at the price table's rates; None when a
        model is not in it."""
        prices = self.setup.settings.price_table
        total = 0.0
        for name, usage in (
            (self.setup.agent_model_name, trial.agent),
            (self.setup.user_model_name, trial.user),
        ):
            if usage.prompt_tokens + usage.completion_tokens == 0:
                continue  # nothing to pay for: a scripted or offline model
            price = prices.get(name)
            if price is None:
                return None
            total += _tokens_cost(usage, price)
        return total

    def as_dict(self) -> dict[str, Any]:
        return {
            "split": self.setup.split,
            "agent_model": self.setup.agent_model_name,
            "user_model": self.setup.user_model_name,
            "line": self.setup.line,
            "pass_hat_k": pass_hat_k(self.passes()),
            "store_pass_hat_k": pass_hat_k(self.passes(store_only=True)),
            "trials": [self._trial_dict(trial) for trial in self.trials],
        }

    def _trial_dict(self, trial: Trial) -> dict[str, Any]:
        assert trial.grade is not None
        return {
            "task_id": trial.task_id,
            "trial": trial.trial,
            "call_id": trial.call_id,
            "passed": trial.grade.passed,
            "store_passed": trial.grade.store_passed,
            "reasons": list(trial.grade.reasons),
            "ending": trial.ending.value,
            "error": trial.error,
            "turns": trial.turns,
            "agent": vars(trial.agent),
            "user": vars(trial.user),
            "cost_usd": self.cost_usd(trial),
            "waits_s": trial.waits_s,
        }

    def summary(self) -> str:
        setup = self.setup
        waits = [wait for trial in self.trials for wait in trial.waits_s]
        costs = [self.cost_usd(trial) for trial in self.trials]
        tasks = len(self.passes())
        per_task = None if None in costs else sum(cost or 0.0 for cost in costs) / max(1, tasks)
        strict, store = pass_hat_k(self.passes()), pass_hat_k(self.passes(store_only=True))
        rows = [[f"pass^{k}", f"{strict[k]:.1%}", f"{store[k]:.1%}"] for k in sorted(strict)]
        lines = [
            f"τ²-bench retail, {setup.split} split, {tasks} tasks, "
            f"{_trials(len(self.trials) // max(1, tasks))}, {setup.line}; agent model "
            f"{setup.agent_model_name}, user model {setup.user_model_name}",
            "",
            table(["", "store, facts and transfer", "store alone (τ²-bench's reward)"], rows),
            "",
            f"average cost per task: {dollars(per_task)} (agent and user models, estimated "
            "from tokens at the price table's rates)",
        ]
        if waits:
            lines.append(
                f"caller's wait per turn: median {statistics.median(waits):.2f} s, "
                f"p95 {percentile(waits, 0.95):.2f} s over {len(waits)} turns"
            )
        return "\n".join(lines)


def _trials(count: int) -> str:
    return f"{count} trial{'s' if count != 1 else ''}"


def _tokens_cost(usage: Usage, price: ModelPrice) -> float:
    return (
        usage.prompt_tokens * price.input_per_1m_tokens
        + usage.completion_tokens * price.output_per_1m_tokens
    ) / 1_000_000


async def run_tasks(
    db: dict[str, Any],
    tasks: list[dict[str, Any]],
    setup: RunSetup,
    *,
    trials: int = 1,
    concurrency: int = 1,
    database_url: str | None = None,
    on_trial: Callable[[Trial], None] = lambda trial: None,
) -> Run:
    """Every task `trials` times, at most `concurrency` trials at once."""
    run = Run(setup)
    limit = asyncio.Semaphore(concurrency)
    async with FreshStores(db, database_url) as stores:
        golds = {}
        for task in tasks:
            async with stores.fresh() as store:
                golds[task["id"]] = await replay_task(store, task)

        async def one(task: dict[str, Any], number: int) -> Trial:
            async with limit:
                trial = await run_trial(
                    task,
                    number,
                    stores=stores,
                    gold=golds[task["id"]],
                    agent_model=setup.agent_model(task),
                    user=setup.user(task),
                    open_agent=setup.open_agent,
                    settings=setup.settings,
                    max_turns=setup.max_turns,
                )
            on_trial(trial)
            return trial

        run.trials = list(
            await asyncio.gather(
                *(one(task, number) for task in tasks for number in range(1, trials + 1))
            )
        )
    return run
