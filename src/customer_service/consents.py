"""Asking for consent once: a stored answer is reused, a new one is stored as given."""

from __future__ import annotations

import logging

from pydantic import ValidationError

from customer_service.call_state import CallState
from customer_service.delegation import delegate
from customer_service.store import ConsentRecord
from customer_service.tasks.consent import ConsentResult, ConsentTask, ConsentTopic

logger = logging.getLogger("customer_service.consents")

CONSENT_CONFIRMATIONS = {
    (ConsentTopic.CALL_RECORDING, True): "This call may be recorded.",
    (ConsentTopic.CALL_RECORDING, False): "This call will not be recorded.",
    (ConsentTopic.ORDER_UPDATES_SMS, True): "You'll get text updates about your orders.",
    (ConsentTopic.ORDER_UPDATES_SMS, False): "You won't get text updates about your orders.",
}


async def stored_answer(state: CallState, topic: ConsentTopic) -> ConsentRecord | None:
    """The answer already on record: with the customer once verified, else with the call."""
    customer = state.verified_customer
    if customer is not None:
        return await state.store.latest_consent(topic=topic, customer_id=customer.customer_id)
    return await state.store.latest_consent(topic=topic, call_id=state.call_id)


async def obtain_consent(
    state: CallState, topic: ConsentTopic, *, ask_again: bool = False
) -> ConsentRecord:
    """The caller's answer: from the record when they were asked before (unless they want
    to change it, `ask_again`), else asked now in the fixed wording and recorded.
    Raises StoreUnavailable if it cannot be stored."""
    if not ask_again and (existing := await stored_answer(state, topic)) is not None:
        apply_consent(state, existing)
        return existing
    result = await delegate(state, ConsentTask(topic))
    try:
        answer = ConsentResult.model_validate(result)
    except ValidationError:
        logger.error("consent result malformed", extra={"call_id": state.call_id})
        answer = None
    if answer is None or answer.topic is not topic:
        # An answer that cannot be trusted is no answer: record nothing, grant nothing.
        raise ValueError("consent result does not answer the question asked")
    customer = state.verified_customer
    record = ConsentRecord(
        topic=answer.topic,
        granted=answer.granted,
        wording_version=answer.wording_version,
        asked_at=answer.asked_at,
        call_id=state.call_id,
        customer_id=customer.customer_id if customer else None,
    )
    apply_consent(state, record)
    await state.store.record_consent(record)
    return record


def apply_consent(state: CallState, record: ConsentRecord) -> None:
    if record.topic == ConsentTopic.CALL_RECORDING and not record.granted:
        state.stop_recording()


def confirmation(record: ConsentRecord) -> str:
    return CONSENT_CONFIRMATIONS[(ConsentTopic(record.topic), record.granted)]
