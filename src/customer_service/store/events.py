"""The audit record: what was decided in a call, kept apart from the data it concerns."""

from __future__ import annotations

import datetime as dt

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue, field_validator

__all__ = ["AuditEvent"]


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class AuditEvent(BaseModel):
    """One decision or delegation in a call.

    `detail` never holds full personal data: callers pass values through
    `customer_service.privacy` first.
    """

    model_config = ConfigDict(frozen=True)

    call_id: str = Field(min_length=1, max_length=128)
    kind: str = Field(
        min_length=1,
        max_length=64,
        description='For example "identity_verified", "identity_failed", "order_disclosed".',
    )
    customer_id: str | None = Field(default=None, max_length=32)
    order_id: str | None = Field(default=None, max_length=32)
    detail: dict[str, JsonValue] = Field(default_factory=dict)
    created_at: AwareDatetime = Field(default_factory=_utc_now)

    @field_validator("created_at")
    @classmethod
    def _to_utc(cls, value: dt.datetime) -> dt.datetime:
        return value.astimezone(dt.UTC)
