"""The framework's own CPU for one hand-off to a task and back, with nothing of ours.

    .venv/bin/python -m benchmarks.handoff_floor [--turns 30] [--runs 3]

Two bare agents (no store, no policy, no call state) on the framework's text-only
session with a zero-latency scripted model. Each caller turn makes the same three model
requests and runs the same two tools; in one agent the second tool belongs to an
`AgentTask` the first tool awaits (the session changes agent twice: to the task and
back), in the other both tools are the agent's own. The difference in process CPU per
turn is what the framework charges for a task, whoever writes it: the floor under every
specialist this project runs.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from collections.abc import Sequence
from dataclasses import dataclass

from livekit.agents import Agent, AgentSession, AgentTask, RunContext, function_tool

from benchmarks.common import machine, median, quiet_logs
from support.scripted_llm import Call, Decision, Say, ScriptedLLM, Turn


class FinishingTask(AgentTask[str]):
    def __init__(self) -> None:
        super().__init__(instructions="Finish.")

    async def on_enter(self) -> None:
        self.session.generate_reply()

    @function_tool
    async def finish(self, context: RunContext) -> None:
        """Finishes the task."""
        self.complete("done")


class HostAgent(Agent):
    def __init__(self, *, hand_off: bool) -> None:
        super().__init__(instructions="Do the work.")
        self.hand_off = hand_off

    @function_tool
    async def work(self, context: RunContext) -> str:
        """Does the work."""
        if self.hand_off:
            return await FinishingTask()
        return "done"

    @function_tool
    async def finish(self, context: RunContext) -> str:
        """Finishes the work."""
        return "done"


def _model(*, hand_off: bool) -> ScriptedLLM:
    # Three requests per caller turn either way: the host's `work`, then `finish` (the
    # task's, or the host's own), then the host's words.
    def decide(turn: Turn) -> Decision:
        output = turn.last_tool_output
        if turn.tool_names == {"finish"}:  # the task's request
            return Call("finish")
        if output is None:
            return Call("work")
        if output.name == "work" and not hand_off:
            return Call("finish")
        return Say("Done.")

    return ScriptedLLM(then=decide)


async def _cpu_per_turn(hand_off: bool, turns: int) -> tuple[float, int]:
    model = _model(hand_off=hand_off)
    session: AgentSession[None] = AgentSession(llm=model)
    await session.start(HostAgent(hand_off=hand_off))
    gc.collect()
    before = time.process_time()
    for _ in range(turns):
        await session.run(user_input="Go ahead.")
    spent = time.process_time() - before
    await session.aclose()
    return spent / turns, len(model.turns)


@dataclass(frozen=True)
class Floor:
    plain_s: float
    hand_off_s: float
    requests_per_turn: tuple[float, float]

    @property
    def per_task_s(self) -> float:
        """CPU of one task run: two agent changes."""
        return self.hand_off_s - self.plain_s


async def measure(turns: int, runs: int) -> Floor:
    for hand_off in (False, True):  # untimed: first-use caches
        await _cpu_per_turn(hand_off, 3)
    plain: list[float] = []
    handed: list[float] = []
    requests = (0.0, 0.0)
    for _ in range(runs):
        plain_s, plain_requests = await _cpu_per_turn(False, turns)
        hand_off_s, hand_off_requests = await _cpu_per_turn(True, turns)
        plain.append(plain_s)
        handed.append(hand_off_s)
        requests = (plain_requests / turns, hand_off_requests / turns)
    if requests[0] != requests[1]:
        raise RuntimeError(f"the two agents made different requests per turn: {requests}")
    return Floor(median(plain), median(handed), requests)


def report(floor: Floor) -> None:
    print(
        f"\nThe framework's floor: a turn of {floor.requests_per_turn[0]:.0f} model requests "
        f"and two tools costs {floor.plain_s * 1000:.2f} ms of CPU; with the second tool in "
        f"a task, {floor.hand_off_s * 1000:.2f} ms: {floor.per_task_s * 1000:.2f} ms per "
        "task run (two agent changes)"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=30, help="caller turns per run (30)")
    parser.add_argument("--runs", type=int, default=3, help="runs per agent (3)")
    args = parser.parse_args(argv)
    quiet_logs(verbose=False)
    print(f"Machine: {machine()}")
    report(asyncio.run(measure(args.turns, args.runs)))


if __name__ == "__main__":
    main()
