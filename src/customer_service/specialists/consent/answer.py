"""The caller's answer to a consent question: its shape, the answer on record for the
current wording, storing a clear one (an unclear one is only audited), and what it
changes in the call and what the caller hears of it."""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass

from pydantic import AwareDatetime, BaseModel, ConfigDict

from customer_service.call import audit
from customer_service.call.consent_wording import (
    CONSENT_CONFIRMATIONS,
    CONSENT_WORDING,
    UNCLEAR_CONFIRMATIONS,
    ConsentTopic,
)
from customer_service.call.delegation import ResultRejected
from customer_service.call.run_check_write import well_formed, write_once
from customer_service.call.state import CallState
from customer_service.domain import Customer
from customer_service.store import AuditEvent, ConsentRecord

# Under the specialist's name, as its task's records are.
logger = logging.getLogger("customer_service.specialists.consent")

__all__ = [
    "Consent",
    "ConsentAnswer",
    "ConsentResult",
    "applied",
    "checked_answer",
    "confirmation",
    "declined_unasked",
    "order_updates_offer_due",
    "store_answer",
    "stored_answer",
]


class ConsentAnswer(enum.StrEnum):
    GRANTED = "granted"
    DECLINED = "declined"
    UNCLEAR = "unclear"
    """No clear yes or no: nothing is stored, and nothing is granted."""
    SPOKEN_OVER = "spoken_over"
    """The caller spoke before the question was heard: not answered, nothing is stored,
    and their words still need a reply before the question is put again."""


class ConsentResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    topic: ConsentTopic
    answer: ConsentAnswer
    wording_version: str
    asked_at: AwareDatetime


@dataclass(frozen=True)
class Consent:
    """The answer in force after asking (or finding it on record)."""

    topic: ConsentTopic
    record: ConsentRecord | None
    """None when the caller gave no clear answer: nothing was stored or granted."""
    spoken_over: bool = False
    """The caller spoke before the question was heard: it is not answered yet, nothing
    was stored or applied, and their words still need a reply."""

    @property
    def granted(self) -> bool:
        return self.record is not None and self.record.granted


async def stored_answer(state: CallState, topic: ConsentTopic) -> ConsentRecord | None:
    """The answer on record to the current wording of the question: with the customer
    once verified, else with the call. An answer to older wording is not reused."""
    customer = state.verified_customer
    if customer is not None:
        record = await state.store.latest_consent(topic=topic, customer_id=customer.customer_id)
    else:
        record = await state.store.latest_consent(topic=topic, call_id=state.call_id)
    if record is None or record.wording_version != CONSENT_WORDING[topic].version:
        return None
    return record


async def store_answer(state: CallState, answer: ConsentResult) -> ConsentRecord | None:
    """Stores a clear answer; an unclear one is only audited, never stored as a no."""
    if answer.answer is ConsentAnswer.UNCLEAR:
        await audit.record(
            state,
            "consent_unclear",
            topic=answer.topic.value,
            wording_version=answer.wording_version,
        )
        return None
    customer = state.verified_customer
    record = ConsentRecord(
        topic=answer.topic,
        granted=answer.answer is ConsentAnswer.GRANTED,
        wording_version=answer.wording_version,
        asked_at=answer.asked_at,
        call_id=state.call_id,
        customer_id=customer.customer_id if customer else None,
    )

    async def store(kept: list[AuditEvent]) -> None:
        await state.store.record_consent(record, kept)

    await write_once(state, store)
    return record


def declined_unasked(state: CallState, topic: ConsentTopic) -> ConsentResult:
    """A no the caller said outright, before any question: taken as said."""
    version = CONSENT_WORDING[topic].version
    return ConsentResult(
        topic=topic,
        answer=ConsentAnswer.DECLINED,
        wording_version=version,
        asked_at=state.clock.now(),
    )


def checked_answer(state: CallState, result: object, topic: ConsentTopic) -> ConsentResult:
    """The task's answer, once well formed and to the question asked. Raises
    `ValueError` otherwise."""
    try:
        answer = well_formed(ConsentResult, result, what="consent")
        if answer.topic is not topic:
            raise ResultRejected("consent result is for another topic")
    except ResultRejected as rejection:
        # An answer that cannot be trusted is no answer: record nothing, grant nothing,
        # and the question is not put again.
        logger.error(
            "consent result rejected", extra={"call_id": state.call_id, "reason": str(rejection)}
        )
        raise ValueError("consent result does not answer the question asked") from None
    return answer


def applied(state: CallState, consent: Consent) -> Consent:
    """`consent`, once what it changes in the call is applied: recording follows it."""
    if consent.topic is ConsentTopic.CALL_RECORDING:
        if consent.granted:
            state.allow_recording()
        else:
            state.stop_recording()
    return consent


def confirmation(consent: Consent) -> str:
    if consent.record is None:
        return UNCLEAR_CONFIRMATIONS[consent.topic]
    return CONSENT_CONFIRMATIONS[(consent.topic, consent.record.granted)]


async def order_updates_offer_due(state: CallState, customer: Customer) -> bool:
    """Text updates are offered once per call and wording, to a customer with a phone
    on file."""
    if not customer.phone or ConsentTopic.ORDER_UPDATES_SMS.value in state.consent_topics_asked:
        return False
    return await stored_answer(state, ConsentTopic.ORDER_UPDATES_SMS) is None
