"""What one call knows about its caller: the session's userdata.

Verification state changes only through the named transitions below, which only the
identity specialist's checks call. Nothing the caller says can set it.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from customer_service.call.duplicates import DuplicateCalls
from customer_service.call.latency import FirstWords, SlowStepNotice
from customer_service.call.phrase_cache import PhraseCache
from customer_service.clock import Clock
from customer_service.domain import Customer
from customer_service.settings import Settings
from customer_service.store import AuditEvent, Store

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CallerLine:
    """How the caller reached us, learned from the room once they join. The default, not
    a phone call, holds for text chat, tests and a call whose caller never joined."""

    is_phone: bool = False
    """The caller is a SIP participant: a phone line, with a keypad."""
    caller_number: str | None = None
    """The number the phone network presented (`sip.phoneNumber`). Personal data, and no
    proof of anything: never logged, never spoken, used only after the caller confirms it."""


@dataclass
class AuditBacklog:
    """One call's events kept for its next write or its turn's background write."""

    events: list[AuditEvent] = field(default_factory=list)
    closed: bool = False
    """The call has ended: events are written at once, there is no next write."""
    writing: asyncio.Task[None] | None = None
    """The background write of kept events (`call.audit.write_kept_soon`), the last one started."""


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
    LEFT = "left"
    """The caller asked for something else: they stopped it, it did not fail."""

    @property
    def is_failure(self) -> bool:
        return self in (DelegationOutcome.FAILED, DelegationOutcome.TIMED_OUT)


@dataclass(frozen=True)
class Delegation:
    specialist: str
    outcome: DelegationOutcome
    # What a run returned and how long it took are for the call report (which masks the
    # result), not part of what the bounds compare.
    result: object = field(default=None, compare=False)
    """As the specialist returned it; None when it ended without a result."""
    duration_ms: int | None = field(default=None, compare=False)


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
    products_answered: int = 0
    """Questions about the catalog answered (`answer_product_questions`): a call that only
    asked them was served, though it changed and disclosed nothing."""
    guardrails: Guardrails = field(default_factory=Guardrails)
    line: CallerLine = field(default_factory=CallerLine)
    current_order_id: str | None = None
    """The order whose details the caller heard last."""
    observers: list[Callable[[CallState], None]] = field(default_factory=list, repr=False)
    """Told after each transition a caller could see (`on_change`)."""
    escalated: bool = False
    recording: bool = True
    """Whether this call may be recorded; a caller's no to recording turns it off."""
    consent_topics_asked: set[str] = field(default_factory=set)
    """Consent questions asked on this call, answered clearly or not: an unclear answer
    is not stored, and an offer is still not repeated within the call."""
    ending: bool = False
    """The agent is saying goodbye, or has said it; no further caller turn belongs to
    this call unless the caller's words cut the goodbye short (`cancel_end`)."""
    first_words: FirstWords = field(default_factory=FirstWords)
    """Whether the caller waits in silence for a reply that owes an acknowledgement."""
    slow_steps: SlowStepNotice = field(init=False)
    """Tells a caller waiting in silence on a slow step that the agent is working."""
    audit_backlog: AuditBacklog = field(default_factory=AuditBacklog)
    """Audit events waiting for the call's next write, or the background write as the
    turn's reply starts (`call.audit.record_later`)."""
    one_request_at_a_time: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held by each supervisor tool that may start a specialist: several such tools in
    one model reply run one after another, each seeing what the one before it did."""
    duplicate_calls: DuplicateCalls = field(default_factory=DuplicateCalls)
    """Those tools' outcomes in the model's latest reply: the same call again in that
    reply gets the first one's outcome instead of running again."""
    phrases: PhraseCache = field(default_factory=PhraseCache)
    """The audio of the sentences the agent says word for word (`call.phrase_cache`): the
    job process's in a room (`server`), else one of the call's own."""

    def __post_init__(self) -> None:
        self.slow_steps = SlowStepNotice(self.settings.slow_step_notice_s)

    @property
    def clock(self) -> Clock:
        """The call's "now": the store's clock, so that what the call decides and what the
        store writes read the same time."""
        return self.store.clock

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
        self._changed()

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

    def allow_recording(self) -> None:
        """The caller said yes to recording, after a no or while the question waited."""
        self.recording = True

    def mark_escalated(self) -> None:
        self.escalated = True

    def end(self) -> None:
        self.ending = True

    def cancel_end(self) -> None:
        """The caller spoke over the goodbye: the call goes on."""
        self.ending = False

    def record_disclosure(self, order_id: str) -> None:
        if order_id not in self.disclosed_order_ids:
            self.disclosed_order_ids.append(order_id)
        self.current_order_id = order_id
        self._changed()

    def record_product_answer(self) -> None:
        self.products_answered += 1

    def learn_line(self, line: CallerLine) -> None:
        self.line = line

    def enter_specialist(self, specialist: str) -> None:
        self.guardrails.active_specialist = specialist
        self._changed()

    def leave_specialist(self) -> None:
        self.guardrails.active_specialist = None
        self._changed()

    def on_change(self, observer: Callable[[CallState], None]) -> None:
        """Calls `observer` after each change in the active specialist, verification or
        current order. Observers must not block; one that raises is logged, never raised
        into the call."""
        self.observers.append(observer)

    def _changed(self) -> None:
        for observer in list(self.observers):
            try:
                observer(self)
            except Exception:
                logger.exception("call state observer failed", extra={"call_id": self.call_id})
