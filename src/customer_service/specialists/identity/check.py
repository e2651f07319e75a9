"""The identity check itself, whichever tool asks for it: the limits on what is given,
the lookup, and the counting of a failed check per call and per account."""

from __future__ import annotations

from functools import partial

from livekit.agents import ToolError

from customer_service.call import audit
from customer_service.call.identity_hold import Hold, hold_on
from customer_service.call.identity_policy import (
    DETAILS_TOO_LONG_EMAIL_OR_NAME_ZIP,
    MISSING_EMAIL_OR_NAME_ZIP,
    GivenDetails,
    count_failed_check,
    line_is_held,
    matching_account,
    verified_by,
)
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.domain import Customer
from customer_service.privacy import mask_name
from customer_service.settings import IdentityPolicy
from customer_service.specialists.identity.result import IdentityOutcome, IdentityResult
from customer_service.specialists.identity.wording import (
    CHECK_ALREADY_DONE,
    DETAILS_TOO_LONG,
    MISSING_DETAILS,
    mismatch_message,
)

MAX_DETAIL_LENGTH = 200
"""Longest name, postal code, phone or email accepted; longer is refused before it
reaches the store, the audit log or a log line."""


class IdentityCheck(Specialist[IdentityResult]):
    """The identity task's checking part; the task (`VerifyIdentityTask`) sets `_policy`."""

    _policy: IdentityPolicy

    async def _check(
        self, state: CallState, given: GivenDetails, *, calling_number: bool = False
    ) -> None:
        """Every identity check, whichever tool asked for it: the same limits, the same
        counting per call and per account, the same words for every mismatch."""
        by_email = self._policy is IdentityPolicy.EMAIL_OR_NAME_ZIP
        if any(len(detail) > MAX_DETAIL_LENGTH for detail in given.values()):
            raise ToolError(DETAILS_TOO_LONG_EMAIL_OR_NAME_ZIP if by_email else DETAILS_TOO_LONG)
        if not given.enough_for(self._policy):
            raise ToolError(MISSING_EMAIL_OR_NAME_ZIP if by_email else MISSING_DETAILS)
        async with state.identity.checking:
            # Decided under the lock: the outcome of every earlier check is known here.
            if self.done():
                raise ToolError(CHECK_ALREADY_DONE)
            if state.identity.locked:
                self.finish(IdentityResult(outcome=IdentityOutcome.LOCKED))
                return
            # Both read whatever was given: the same work for a right guess as a wrong one.
            line_held = await line_is_held(state)
            candidate = await matching_account(state, given)
            hold = None if candidate is None else hold_on(candidate, state.settings, state.line)
            if candidate is None or hold is Hold.HELD or line_held:
                # The right details on a held account or from a held line read, count and
                # are recorded like a wrong guess: nothing tells which guess was right.
                await self._failed(state, given)
                return
            customer = candidate.customer
            by = "calling_number" if calling_number else verified_by(given, customer, self._policy)
            await self._verified(
                state, candidate.customer, by=by, passed_hold=hold is Hold.PASSED_BY_LINE
            )

    async def _verified(
        self, state: CallState, customer: Customer, *, by: str, passed_hold: bool
    ) -> None:
        # Recorded first: a verification that cannot be recorded does not happen.
        # A hold passed is named, for the operator who later reads why it let them in.
        passed = {"passed_hold": "line_is_phone_on_file"} if passed_hold else {}
        await audit.record(
            state, "identity_verified", customer_id=customer.customer_id, by=by, **passed
        )
        state.mark_verified(customer)
        self.finish(
            IdentityResult(
                outcome=IdentityOutcome.VERIFIED,
                customer_id=customer.customer_id,
                full_name=customer.full_name,
            )
        )

    async def _failed(self, state: CallState, given: GivenDetails) -> None:
        state.record_failed_identity_check()
        failed = audit.note(
            state,
            "identity_failed",
            attempts_left=state.identity_attempts_left,
            name_given=mask_name(given.full_name),
        )

        # Against the accounts the policy says it came close to and the caller's line:
        # guesses at one account add up across calls whichever detail is wrong, while
        # one known detail counts against nobody (`customer_service.call.identity_policy`).
        await audit.store_with(state, [failed], partial(count_failed_check, state, given))
        if state.identity.locked:
            self.finish(IdentityResult(outcome=IdentityOutcome.LOCKED))
            return
        raise ToolError(mismatch_message(state.identity_attempts_left))
