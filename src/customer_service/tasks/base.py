"""What every specialist shares: a single way to finish, and knowing how it ended."""

from __future__ import annotations

from typing import Generic, TypeVar

from livekit.agents import AgentTask

ResultT = TypeVar("ResultT")


class Specialist(AgentTask[ResultT], Generic[ResultT]):
    """An `AgentTask` that records whether it was cancelled rather than completed.

    The framework cancels a running task when the session closes (the caller hung up),
    and cancellation reaches the awaiting tool as an ordinary `ToolError`; this flag is
    how the delegation tells the two apart.
    """

    cancelled = False

    def cancel(self) -> None:
        if not self.done():
            self.cancelled = True
        super().cancel()

    def finish(self, result: ResultT | Exception) -> None:
        """Completes the task once; a second outcome after the first is ignored."""
        if not self.done():
            self.complete(result)
