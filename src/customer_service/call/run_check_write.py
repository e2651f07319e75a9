"""Run, check, retry, write: the one way a specialist's result becomes a change.

A specialist that changes something returns a typed result and changes nothing itself.
Its supervisor tool makes the change from that result with `run_check_write`, in this
order, so no specialist keeps a copy of it:

1. run a fresh task (`delegation.delegate`, within the call's bounds on delegation);
2. check its result in code: the specialist's own check (starting with `well_formed`)
   raises `ResultRejected` for a result it cannot trust;
3. a rejected result is asked for again, a fresh task each time, up to the configured
   retries; then the caller is offered a colleague (`delegation.validated_with_retries`);
4. write the checked result once (`write_once`): one transaction, which stores the
   call's kept audit events with it, and never retried, so a change is never made twice;
5. say the outcome: the specialist's sentence for what the store answered, or a
   speakable `ToolError` for a refusal. A write that fails may still have been made
   (the connection lost after the commit): the outcome is then read back from the store
   (`found`) and said, so the caller never hears that nothing changed when it did.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from livekit.agents import ToolError
from pydantic import BaseModel, ValidationError

from customer_service.call import audit
from customer_service.call.delegation import ResultRejected, delegate, validated_with_retries
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.call.wording import STORE_APOLOGY_UNSURE
from customer_service.store import AuditEvent, StoreUnavailable

__all__ = ["run_check_write", "well_formed", "write_once"]

ModelT = TypeVar("ModelT", bound=BaseModel)
CheckedT = TypeVar("CheckedT")
OutcomeT = TypeVar("OutcomeT")
SaidT = TypeVar("SaidT")
T = TypeVar("T")


def well_formed(kind: type[ModelT], result: object, *, what: str) -> ModelT:
    """`result` read as `kind`, or `ResultRejected` saying how many fields fail (never
    their values: a result may hold what the caller said)."""
    try:
        return kind.model_validate(result)
    except ValidationError as error:
        raise ResultRejected(f"{what} result malformed: {error.error_count()} errors") from None


async def write_once(state: CallState, write: Callable[[list[AuditEvent]], Awaitable[T]]) -> T:
    """`write` (one transaction), given the call's kept audit events to store with it.
    Tried once: a change that fails is heard as the store apology, never made twice."""
    return await audit.store_with(state, [], write, attempts=1)


async def run_check_write(
    state: CallState,
    task: Callable[[], Specialist[Any]],
    *,
    check: Callable[[object], CheckedT],
    write: Callable[[CheckedT, list[AuditEvent]], Awaitable[OutcomeT]],
    said: Callable[[CheckedT, OutcomeT], SaidT],
    what: str,
    found: Callable[[CheckedT], Awaitable[OutcomeT | None]] | None = None,
) -> SaidT:
    """Runs `task()` (a fresh task each attempt), checks its result with `check`, asks
    again on a rejection within the call's limits, writes the checked result once with
    `write` and returns `said` of it and the write's outcome. `what` names the result
    in logs. When the write fails, `found` reads from the store whether the change was
    made after all, as the outcome `write` would have answered (None: it was not).
    Raises a speakable `ToolError` whenever the change is not made."""

    async def attempt() -> CheckedT:
        return check(await delegate(state, task()))

    checked = await validated_with_retries(state, attempt, what=what)

    async def write_checked(kept: list[AuditEvent]) -> OutcomeT:
        return await write(checked, kept)

    try:
        outcome = await write_once(state, write_checked)
    except Exception:
        made = None if found is None else await _found_after_fault(found, checked)
        if made is None:
            # Not made: the write's own failure and its apology (nothing changed) hold.
            raise
        outcome = made
    return said(checked, outcome)


async def _found_after_fault(
    found: Callable[[CheckedT], Awaitable[OutcomeT | None]], checked: CheckedT
) -> OutcomeT | None:
    """The outcome of a write that failed, read back from the store; None when it was
    not made."""
    try:
        return await found(checked)
    except StoreUnavailable:
        # It may or may not have been made: the caller must not hear that it was not.
        raise ToolError(STORE_APOLOGY_UNSURE) from None
