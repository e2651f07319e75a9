"""The one place where the supervisor hands work to a specialist and waits for it.

Every bound on delegation is applied here: delegations per call, attempts per
specialist, the same specialist failing twice in a row, and a time limit per run.
When one trips, the supervisor gets a speakable `ToolError` offering a colleague
instead of starting the same work again.

It is also the one retry-then-colleague loop: a specialist's result that fails its
check (`ResultRejected`) is asked for once more, then the caller is offered a person.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from livekit.agents import StopResponse, ToolError

from customer_service.call import audit
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState, Delegation, DelegationOutcome
from customer_service.call.wording import BOUND_APOLOGY, OFFER_HUMAN, RESULT_UNUSABLE
from customer_service.telemetry.spans import OUTCOME, specialist_run

logger = logging.getLogger(__name__)

ResultT = TypeVar("ResultT")

LOOPING_FAILURES = 2
"""Failed runs in a row after which a specialist is not started again."""


class ResultRejected(Exception):
    """A specialist's result failed its check; the reason is for logs, never for the caller."""


async def validated_with_retries(
    state: CallState, attempt: Callable[[], Awaitable[ResultT]], *, what: str
) -> ResultT:
    """Runs `attempt` (produce a result, then check it) until one passes, allowing the
    configured retries; then the caller is offered a colleague instead."""
    for _ in range(state.settings.result_validation_retries + 1):
        try:
            return await attempt()
        except ResultRejected as rejection:
            logger.error(
                "result rejected",
                extra={"call_id": state.call_id, "result": what, "reason": str(rejection)},
            )
    raise ToolError(RESULT_UNUSABLE)


def tripped_bound(state: CallState, specialist: str) -> str | None:
    """The name of the bound that forbids starting this specialist now, if any."""
    guardrails, settings = state.guardrails, state.settings
    if len(guardrails.delegations) >= settings.max_delegations_per_call:
        return "delegations_per_call"
    if guardrails.attempts(specialist) >= settings.specialist_max_attempts:
        return "attempts_per_specialist"
    if guardrails.consecutive_failures(specialist) >= LOOPING_FAILURES:
        return "repeated_failure"
    return None


def offer_human(state: CallState) -> ToolError:
    """The apology comes once per call; after that, just the offer."""
    if state.guardrails.bound_apology_given:
        return ToolError(OFFER_HUMAN)
    state.guardrails.bound_apology_given = True
    return ToolError(BOUND_APOLOGY)


NOT_RUN = "not_run"
"""A traced run's outcome when no run was recorded: refused by a bound, or never started."""


async def delegate(
    state: CallState,
    task: Specialist[ResultT],
    *,
    is_failure: Callable[[ResultT], bool] = lambda _: False,
) -> ResultT:
    """`run_within_bounds`, in a span of its own that ends with the run's outcome."""
    runs = state.guardrails.delegations
    recorded = len(runs)
    with specialist_run(task.id) as span:
        try:
            return await run_within_bounds(state, task, is_failure=is_failure)
        finally:
            span.set_attribute(OUTCOME, runs[-1].outcome.value if len(runs) > recorded else NOT_RUN)


async def run_within_bounds(
    state: CallState,
    task: Specialist[ResultT],
    *,
    is_failure: Callable[[ResultT], bool] = lambda _: False,
) -> ResultT:
    """Runs the specialist to completion within its bounds and records how it ended.

    `is_failure` marks typed results that still count as a failed run for loop
    detection (an identity check the caller abandoned, for example).

    A run cancelled because the call ended is logged but not stored: the call has no
    outcome to record, and nothing may be half-written after a hang-up.
    """
    specialist = task.id
    log_context = {"call_id": state.call_id, "specialist": specialist}
    if bound := tripped_bound(state, specialist):
        logger.warning("delegation refused", extra={**log_context, "bound": bound})
        await audit.record_later(state, "delegation_refused", specialist=specialist, bound=bound)
        raise offer_human(state)

    started = time.monotonic()
    # In a context of its own: in the asking reply's, the framework would take the task
    # ended by the time-out for that reply's outcome, and fail a run still waiting on it.
    timer = asyncio.get_running_loop().call_later(
        state.settings.specialist_time_limit_s, task.time_out, context=contextvars.Context()
    )
    state.enter_specialist(specialist)
    logger.info("delegation started", extra=log_context)
    try:
        with state.slow_steps.held_off():
            result = await task
    except (ToolError, RuntimeError) as error:
        if not task.entered:
            # The framework would not start it: the session is closing (the caller hung
            # up) or the reply that asked for it was cut off. Nothing ran, so there is no
            # run to record, and the caller's new words get their own reply.
            logger.info(
                "delegation never started", extra={**log_context, "error": type(error).__name__}
            )
            raise StopResponse() from None
        if isinstance(error, RuntimeError):
            raise
        if task.cancelled:
            outcome = DelegationOutcome.CANCELLED
        elif task.timed_out:
            outcome = DelegationOutcome.TIMED_OUT
        elif task.escalated:
            outcome = DelegationOutcome.ESCALATED
        elif task.left_for_new_request:
            outcome = DelegationOutcome.LEFT
        else:
            outcome = DelegationOutcome.FAILED
        state.guardrails.delegations.append(
            Delegation(specialist, outcome, duration_ms=_elapsed_ms(started))
        )
        if outcome is DelegationOutcome.CANCELLED:
            logger.info("delegation cancelled", extra=log_context)
            # Nobody is left to hear a reply.
            raise StopResponse() from None
        await _record(state, specialist, outcome, started)
        if outcome is DelegationOutcome.TIMED_OUT:
            raise offer_human(state) from None
        raise
    finally:
        timer.cancel()
        state.leave_specialist()
    outcome = DelegationOutcome.FAILED if is_failure(result) else DelegationOutcome.COMPLETED
    state.guardrails.delegations.append(
        Delegation(specialist, outcome, result=result, duration_ms=_elapsed_ms(started))
    )
    await _record(state, specialist, outcome, started)
    return result


async def _record(
    state: CallState, specialist: str, outcome: DelegationOutcome, started: float
) -> None:
    # Reports a run that is over: written with the call's next write, not waited for.
    await audit.record_later(
        state,
        "delegation",
        specialist=specialist,
        outcome=outcome.value,
        duration_ms=_elapsed_ms(started),
    )


def _elapsed_ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
