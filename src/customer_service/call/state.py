"""What one call knows about its caller: the session's userdata.

Verification state changes only through the named transitions below, which only the
identity specialist's checks call. Nothing the caller says can set it.
"""

from __future__ import annotations

import asyncio
import enum
import uuid
from collections import Counter
from dataclasses import dataclass, field

from customer_service.domain import Customer
from customer_service.settings import Settings
from customer_service.store import Store


@dataclass
class IdentityState:
    customer: Customer | None = None
    failed_checks: int = 0
    locked: bool = False
    checking: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held for the whole of one identity check: checks in one call run one at a time,
    so a lock tripped by earlier guesses is seen by every later one, however many the
    model sends in one reply."""


class DelegationOutcome(enum.StrEnum):
    COMPLETED = "completed"
    FAILED = "failed"
    """The specialist ended with an error: the caller gave up, or its own cap tripped."""
    TIMED_OUT = "timed_out"
    ESCALATED = "escalated"
    """The caller asked for a person from inside the specialist."""
    CANCELLED = "cancelled"
    """The call ended while the specialist was running."""

    @property
    def is_failure(self) -> bool:
        return self in (DelegationOutcome.FAILED, DelegationOutcome.TIMED_OUT)


@dataclass(frozen=True)
class Delegation:
    specialist: str
    outcome: DelegationOutcome


@dataclass
class Guardrails:
    """What the bounds on delegation and tool use are measured against."""

    delegations: list[Delegation] = field(default_factory=list)
    tool_calls: Counter[str] = field(default_factory=Counter)
    bound_apology_given: bool = False
    active_specialist: str | None = None

    def note_tool_call(self, key: str) -> int:
        """Counts one more call with these exact arguments; returns the count so far."""
        self.tool_calls[key] += 1
        return self.tool_calls[key]

    def attempts(self, specialist: str) -> int:
        return sum(1 for record in self.delegations if record.specialist == specialist)

    def consecutive_failures(self, specialist: str) -> int:
        """How many of this specialist's most recent runs failed, counting back."""
        failures = 0
        for record in reversed(self.delegations):
            if record.specialist != specialist:
                continue
            if not record.outcome.is_failure:
                break
            failures += 1
        return failures

    @property
    def last_failure(self) -> Delegation | None:
        return next((r for r in reversed(self.delegations) if r.outcome.is_failure), None)


@dataclass
class CallState:
    store: Store
    settings: Settings
    call_id: str = field(default_factory=lambda: f"call-{uuid.uuid4().hex[:12]}")
    identity: IdentityState = field(default_factory=IdentityState)
    order_lookup_failures: int = 0
    disclosed_order_ids: list[str] = field(default_factory=list)
    guardrails: Guardrails = field(default_factory=Guardrails)
    escalated: bool = False
    recording: bool = True
    """Whether this call may be recorded; a caller's no to recording turns it off."""
    consent_topics_asked: set[str] = field(default_factory=set)
    """Consent questions asked on this call, answered clearly or not: an unclear answer
    is not stored, and an offer is still not repeated within the call."""
    ending: bool = False
    """The agent has said goodbye; no further caller turn belongs to this call."""
    one_request_at_a_time: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held by each supervisor tool that may start a specialist: several such tools in
    one model reply run one after another, each seeing what the one before it did."""

    @property
    def verified_customer(self) -> Customer | None:
        """The verified caller; never anyone once verification is locked."""
        if self.identity.locked:
            return None
        return self.identity.customer

    @property
    def identity_attempts_left(self) -> int:
        return max(0, self.settings.identity_max_attempts - self.identity.failed_checks)

    def mark_verified(self, customer: Customer) -> None:
        if self.identity.locked:
            raise RuntimeError("verification is locked for this call")
        self.identity.customer = customer

    def record_failed_identity_check(self) -> None:
        """Counts a failed check; the last allowed failure locks verification for the call."""
        self.identity.failed_checks += 1
        if self.identity_attempts_left == 0:
            self.identity.locked = True

    def record_order_lookup_failure(self) -> None:
        self.order_lookup_failures += 1

    @property
    def order_lookup_attempts_left(self) -> int:
        return max(0, self.settings.order_lookup_max_attempts - self.order_lookup_failures)

    def stop_recording(self) -> None:
        self.recording = False

    def mark_escalated(self) -> None:
        self.escalated = True

    def end(self) -> None:
        self.ending = True

    def record_disclosure(self, order_id: str) -> None:
        if order_id not in self.disclosed_order_ids:
            self.disclosed_order_ids.append(order_id)
