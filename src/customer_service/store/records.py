"""The business records the store keeps besides customers and orders.

Unlike audit events, these are the data itself: the address change is the record of
what was shipped where, the consent is the answer the caller gave, the escalation is
what the human who takes over reads.
"""

from __future__ import annotations

import datetime as dt
import enum
import uuid

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue, field_validator

from customer_service.domain import PostalAddress

__all__ = ["AddressChange", "AddressChangeOutcome", "ConsentRecord", "EscalationRecord"]


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _new_escalation_id() -> str:
    return uuid.uuid4().hex


class AddressChangeOutcome(enum.StrEnum):
    CHANGED = "changed"
    # The change was made before (same change key), or the order already ships there.
    ALREADY_APPLIED = "already_applied"
    # Shipped or delivered: the parcel's address can no longer be changed here.
    ORDER_SHIPPED = "order_shipped"
    # Missing or someone else's: one outcome, so the caller cannot tell which.
    ORDER_NOT_FOUND = "order_not_found"


class AddressChange(BaseModel):
    """One change of an order's shipping address, with the full old and new address."""

    model_config = ConfigDict(frozen=True)

    change_key: str = Field(
        min_length=1,
        max_length=128,
        description="Chosen by the caller; a change with a key already used is not made again.",
    )
    order_id: str = Field(min_length=1, max_length=32)
    customer_id: str = Field(min_length=1, max_length=32)
    call_id: str = Field(min_length=1, max_length=128)
    old_address: PostalAddress
    new_address: PostalAddress
    changed_at: AwareDatetime

    @field_validator("changed_at")
    @classmethod
    def _to_utc(cls, value: dt.datetime) -> dt.datetime:
        return value.astimezone(dt.UTC)


class ConsentRecord(BaseModel):
    """A caller's answer to a consent question asked in fixed, versioned wording."""

    model_config = ConfigDict(frozen=True)

    topic: str = Field(min_length=1, max_length=64)
    granted: bool
    wording_version: str = Field(min_length=1, max_length=32)
    asked_at: AwareDatetime
    call_id: str = Field(min_length=1, max_length=128)
    customer_id: str | None = Field(
        default=None,
        max_length=32,
        description="None when the caller was not verified; the consent then binds the call.",
    )

    @field_validator("asked_at")
    @classmethod
    def _to_utc(cls, value: dt.datetime) -> dt.datetime:
        return value.astimezone(dt.UTC)


class EscalationRecord(BaseModel):
    """A hand-off to a human: why, what is known, and what was already tried.

    `collected` is stored as given, so the caller masks personal data in it first.
    """

    model_config = ConfigDict(frozen=True)

    escalation_id: str = Field(default_factory=_new_escalation_id, min_length=1, max_length=64)
    call_id: str = Field(min_length=1, max_length=128)
    reason: str = Field(max_length=500)
    verified: bool
    customer_id: str | None = Field(max_length=32)
    collected: dict[str, JsonValue]
    failed_specialist: str | None = Field(max_length=64)
    failure: str | None
    summary: str = Field(max_length=2000)
    created_at: AwareDatetime = Field(default_factory=_utc_now)

    @field_validator("created_at")
    @classmethod
    def _to_utc(cls, value: dt.datetime) -> dt.datetime:
        return value.astimezone(dt.UTC)
