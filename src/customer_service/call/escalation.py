"""Handing the caller to a person, with a record a colleague can act on."""

from __future__ import annotations

import logging
from collections import Counter

from pydantic import JsonValue

from customer_service.call import audit
from customer_service.call.state import CallState
from customer_service.call.wording import HANDOFF
from customer_service.store import AuditEvent, EscalationRecord, StoreUnavailable

logger = logging.getLogger(__name__)

_EVENT_SENTENCES = {
    "identity_verified": "Caller verified",
    "identity_failed": "Failed identity check",
    "order_disclosed": "Order details given",
    "order_not_found": "Order not found",
    "address_changed": "Shipping address changed",
    "consent_recorded": "Consent answer recorded",
    "delegation_refused": "Specialist refused by a guardrail",
}


def summarize(state: CallState, events: list[AuditEvent]) -> str:
    """A few plain lines a colleague can read in seconds, built from the call's records."""
    lines = []
    customer = state.verified_customer
    lines.append(
        f"Verified as customer {customer.customer_id}."
        if customer
        else f"Not verified ({state.identity.failed_checks} failed identity checks"
        + (", verification locked)." if state.identity.locked else ").")
    )
    counts = Counter(event.kind for event in events)
    for kind, sentence in _EVENT_SENTENCES.items():
        if counts[kind]:
            orders = sorted(
                {event.order_id for event in events if event.kind == kind and event.order_id}
            )
            suffix = f" ({', '.join(orders)})" if orders else ""
            lines.append(f"{sentence} x{counts[kind]}{suffix}.")
    failure = state.guardrails.last_failure
    if failure:
        lines.append(f"Last failure: {failure.specialist} {failure.outcome.value}.")
    return " ".join(lines)


async def escalate(
    state: CallState,
    reason: str,
    *,
    from_specialist: str | None = None,
    collected: dict[str, JsonValue] | None = None,
) -> str:
    """Records the hand-off, once per call, and returns what the caller should hear next.

    The reason is the model's account, stored as such; whether the caller was verified
    comes from call state alone.
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
    record = EscalationRecord(
        call_id=state.call_id,
        reason=reason.strip()[:500] or "not given",
        verified=customer is not None,
        customer_id=customer.customer_id if customer else None,
        collected={
            "reason_source": "model",
            "identity_failed_checks": state.identity.failed_checks,
            "verification_locked": state.identity.locked,
            "disclosed_order_ids": list(state.disclosed_order_ids),
            "active_specialist": from_specialist,
            "delegations": len(state.guardrails.delegations),
            **(collected or {}),
        },
        failed_specialist=failure.specialist if failure else None,
        failure=failure.outcome.value if failure else None,
        summary=summarize(state, events)[:2000],
    )
    try:
        await state.store.add_escalation(record)
    except StoreUnavailable:
        # The hand-off still happens; the log keeps the record until the store is back,
        # all but the reason, which is the caller's own words.
        logger.error(
            "escalation not stored",
            extra=record.model_dump(mode="json", exclude={"reason"}),
        )
    else:
        logger.info(
            "escalated", extra={"call_id": state.call_id, "escalation_id": record.escalation_id}
        )
    return HANDOFF
