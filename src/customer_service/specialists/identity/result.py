"""The identity check's result, and its check against call state, which only the check
itself sets."""

from __future__ import annotations

import enum

from pydantic import BaseModel, ConfigDict

from customer_service.call.delegation import ResultRejected
from customer_service.call.run_check_write import well_formed
from customer_service.call.state import CallState
from customer_service.domain import Customer


class IdentityOutcome(enum.StrEnum):
    VERIFIED = "verified"
    LOCKED = "locked"
    """Too many failed checks: verification is closed for the rest of the call."""
    GAVE_UP = "gave_up"


class IdentityResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    outcome: IdentityOutcome
    customer_id: str | None = None
    full_name: str | None = None


def validated_identity(result: object, state: CallState) -> Customer | IdentityOutcome:
    """The verified customer, or the non-verified outcome, after checking the result
    agrees with call state (which only `check_identity` itself can set)."""
    identity = well_formed(IdentityResult, result, what="identity")
    customer = state.verified_customer
    if identity.outcome is IdentityOutcome.VERIFIED:
        if customer is None or customer.customer_id != identity.customer_id:
            raise ResultRejected("identity result claims a verification call state lacks")
        return customer
    if identity.outcome is IdentityOutcome.LOCKED and not state.identity.locked:
        raise ResultRejected("identity result claims a lock call state lacks")
    return identity.outcome
