"""The one place where the supervisor hands work to a specialist and waits for it."""

from __future__ import annotations

import logging
import time
from typing import TypeVar

from livekit.agents import StopResponse, ToolError

from customer_service import audit
from customer_service.call_state import CallState
from customer_service.tasks.base import Specialist

logger = logging.getLogger("customer_service.delegation")

ResultT = TypeVar("ResultT")


async def delegate(state: CallState, task: Specialist[ResultT]) -> ResultT:
    """Runs the specialist to completion and records how it ended.

    A task cancelled because the call ended is logged but not stored: the call has no
    outcome to record, and nothing may be half-written after a hang-up.
    """
    specialist = task.id
    started = time.monotonic()
    log_context = {"call_id": state.call_id, "specialist": specialist}
    logger.info("delegation started", extra=log_context)
    try:
        result = await task
    except ToolError:
        if task.cancelled:
            logger.info("delegation cancelled", extra=log_context)
            # Nobody is left to hear a reply.
            raise StopResponse() from None
        await _record(state, specialist, "ended_with_error", started)
        raise
    await _record(state, specialist, "completed", started)
    return result


async def _record(state: CallState, specialist: str, outcome: str, started: float) -> None:
    await audit.record(
        state,
        "delegation",
        specialist=specialist,
        outcome=outcome,
        duration_ms=round((time.monotonic() - started) * 1000),
    )
