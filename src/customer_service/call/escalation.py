"""Handing the caller to a person, with a record a colleague can act on."""

from __future__ import annotations

import logging
import re
from collections import Counter

from livekit.agents.llm import ChatContext
from pydantic import JsonValue

from customer_service.call import audit
from customer_service.call.known_details import known_details
from customer_service.call.state import CallState
from customer_service.call.wording import HANDOFF
from customer_service.store import AuditEvent, EscalationRecord, StoreUnavailable

logger = logging.getLogger(__name__)

MODEL_NOTE_LIMIT = 200
"""Longest model's note kept in a hand-off record and read to a colleague."""

CLAIMS_LEFT_OUT = "(a claim of verification or approval, left out)"
"""Stands in a model's note where it claimed the caller verified or something approved:
the record's facts say whether the caller was verified, and nothing was approved that
the records do not show."""
_CLAIM = re.compile(r"verif|authenticat|approv|authori[sz]|vouch|identity", re.IGNORECASE)
"""Words of a claim about who the caller is or what they may have: any clause holding one
is the model's say-so about what only the code decides."""
_CLAUSE_END = re.compile(r"(?<=[.,;:!?])\s+|\n+")

_VERIFIED_BY = {
    "email": "name, postal code and email",
    "phone": "name, postal code and phone number",
    "calling_number": "name, postal code and the number they are calling from",
    "email_alone": "email address alone",
    "name_and_postal_code": "name and postal code alone",
}
"""How `identity_verified` events name the check that passed (their `by` detail)."""

_EVENT_SENTENCES = {
    "identity_failed": "Failed identity check",
    "identity_account_locked": "Check refused: account held after repeated failures",
    "order_disclosed": "Order details given",
    "order_not_found": "Order not found",
    "address_changed": "Shipping address changed",
    "order_cancelled": "Order cancelled",
    "consent_recorded": "Consent answer recorded",
    "delegation_refused": "Specialist refused by a guardrail",
}
"""What was done in the call, from its audit events, in the order a colleague reads it."""
_OWN_ORDER_EVENTS = frozenset({"order_disclosed", "address_changed", "order_cancelled"})
"""Events about one of the verified caller's own orders."""


def summarize(
    state: CallState,
    events: list[AuditEvent],
    *,
    order_id: str | None = None,
    from_specialist: str | None = None,
) -> str:
    """A few plain lines a colleague can read in seconds, built only from call state and
    the call's records (never from what the model says): whether and how the caller was
    verified, the order in question, what was done, and where the call stood."""
    lines = [_verification(state, events)]
    order_id = order_id or state.current_order_id or _last_own_order(events)
    if order_id:
        lines.append(f"Order in question: {order_id}.")
    counts = Counter(event.kind for event in events)
    for kind, sentence in _EVENT_SENTENCES.items():
        if counts[kind]:
            orders = sorted(
                {event.order_id for event in events if event.kind == kind and event.order_id}
            )
            suffix = f" ({', '.join(orders)})" if orders else ""
            lines.append(f"{sentence} x{counts[kind]}{suffix}.")
    if from_specialist:
        lines.append(f"Asked for a person during {from_specialist}.")
    failure = state.guardrails.last_failure
    if failure:
        lines.append(f"Last failure: {failure.specialist} {failure.outcome.value}.")
    return " ".join(lines)


def _last_own_order(events: list[AuditEvent]) -> str | None:
    """The verified caller's order the call last read or changed, from its records."""
    return next(
        (e.order_id for e in reversed(events) if e.kind in _OWN_ORDER_EVENTS and e.order_id),
        None,
    )


def _verification(state: CallState, events: list[AuditEvent]) -> str:
    customer = state.verified_customer
    if customer is not None:
        by = next(
            (
                _VERIFIED_BY.get(str(event.detail.get("by")))
                for event in reversed(events)
                if event.kind == "identity_verified" and event.customer_id == customer.customer_id
            ),
            None,
        )
        return f"Verified as customer {customer.customer_id}" + (f" by {by}." if by else ".")
    failed = state.identity.failed_checks
    checks = f"{failed} failed identity check" + ("" if failed == 1 else "s")
    locked = "; verification locked for this call" if state.identity.locked else ""
    return f"Not verified: {checks}{locked}."


def model_note(reason: str, state: CallState, history: ChatContext) -> str:
    """The model's account of why, as it may be stored and read to a colleague: on one
    line, masked like logs and with every name and detail the call heard
    (`known_details`), at most `MODEL_NOTE_LIMIT` characters. It is the model's word,
    never a fact: the record says so. A clause claiming the caller is verified or that
    something was approved is left out (`CLAIMS_LEFT_OUT` stands in its place)."""
    masked = known_details(state, history).mask(_without_claims(reason))
    text = " ".join(masked.split()).replace('"', "'")
    if len(text) > MODEL_NOTE_LIMIT:
        text = text[: MODEL_NOTE_LIMIT - 1].rstrip() + "…"
    return text or "not given"


def _without_claims(reason: str) -> str:
    kept: list[str] = []
    for clause in _CLAUSE_END.split(reason):
        if not _CLAIM.search(clause):
            kept.append(clause)
        elif not kept or kept[-1] != CLAIMS_LEFT_OUT:
            kept.append(CLAIMS_LEFT_OUT)
    return " ".join(kept)


def briefing(summary: str, note: str) -> str:
    """What a colleague is told first: the facts (`summarize`), then the model's note
    (`model_note`), labelled as such."""
    return f'{summary} Model\'s note: "{note}"'


async def escalate(
    state: CallState,
    reason: str,
    history: ChatContext,
    *,
    from_specialist: str | None = None,
    collected: dict[str, JsonValue] | None = None,
) -> str:
    """Records the hand-off, once per call, and returns what the caller should hear next.

    The reason is the model's account, stored as such (masked and shortened: it may
    quote anything, the caller's details included, which the call's `history` holds);
    the summary, whether the caller was
    verified among it, comes from call state and the call's records alone.
    """
    if state.escalated:
        # The same hand-off asked for again (or several times in one reply): one record.
        return HANDOFF
    # Claimed before the first await, so parallel calls find it taken.
    state.mark_escalated()
    failure = state.guardrails.last_failure
    try:
        await audit.flush(state)
        events = await state.store.audit_events(call_id=state.call_id)
    except StoreUnavailable:
        events = []
    customer = state.verified_customer
    collected = collected or {}
    order_id = collected.get("order_id")
    record = EscalationRecord(
        call_id=state.call_id,
        reason=model_note(reason, state, history),
        verified=customer is not None,
        customer_id=customer.customer_id if customer else None,
        collected={
            "reason_source": "model",
            "identity_failed_checks": state.identity.failed_checks,
            "verification_locked": state.identity.locked,
            "disclosed_order_ids": list(state.disclosed_order_ids),
            "active_specialist": from_specialist,
            "delegations": len(state.guardrails.delegations),
            **collected,
        },
        failed_specialist=failure.specialist if failure else None,
        failure=failure.outcome.value if failure else None,
        summary=summarize(
            state,
            events,
            order_id=order_id if isinstance(order_id, str) else None,
            from_specialist=from_specialist,
        )[:2000],
    )
    try:
        await state.store.add_escalation(record)
    except StoreUnavailable:
        # The hand-off still happens; the log keeps the record until the store is back,
        # all but the reason: free text, whose masking goes by shape alone.
        logger.error(
            "escalation not stored",
            extra=record.model_dump(mode="json", exclude={"reason"}),
        )
    else:
        logger.info(
            "escalated", extra={"call_id": state.call_id, "escalation_id": record.escalation_id}
        )
    return HANDOFF
