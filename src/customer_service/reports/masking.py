"""The call report's personal data, masked by the rules the logs follow (`privacy`).

What the report keeps of the caller's words follows the recording consent: a call that
may not be recorded keeps who spoke and when, never what was said.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, JsonValue

from customer_service.privacy import KnownDetails, mask_address, mask_field, personal_field

WITHHELD = "[withheld: the caller did not allow recording]"

_SAFE_KEYS = frozenset(
    {
        "order_id",
        "customer_id",
        "status",
        "outcome",
        "topic",
        "answer",
        "granted",
        "wording_version",
        "country",
        "region",
        "city",
        "placed_on",
        "delivered_on",
        "asked_at",
        "carrier",
        "quantity",
        "sku",
    }
)
"""Fields that carry no personal data of their own: kept as they are."""


def masked_json(value: JsonValue, *, known: KnownDetails, key: str = "") -> JsonValue:
    """`value` (a typed result or tool arguments as JSON) with every personal detail
    masked: by the field's name where it says what it holds (`privacy.personal_field`),
    a postal address as a whole, and any other text as free text, the call's `known`
    details with it."""
    if isinstance(value, dict):
        if {"street", "postal_code"} <= value.keys():
            return mask_address(_one_line(value))
        return {k: masked_json(v, known=known, key=k) for k, v in value.items()}
    if isinstance(value, list):
        return [masked_json(item, known=known, key=key) for item in value]
    if not isinstance(value, str) or key in _SAFE_KEYS:
        return value
    field = personal_field(key)
    if field is not None:
        return mask_field(field, value)
    return known.mask(value)


def _one_line(address: dict[str, JsonValue]) -> str:
    parts = [address.get(part) for part in ("street", "unit", "city", "region", "postal_code")]
    return ", ".join(str(part) for part in parts if part)


def masked_result(result: object, *, known: KnownDetails) -> JsonValue:
    """A specialist's typed result as JSON, masked; only its type for anything else."""
    if isinstance(result, BaseModel):
        return masked_json(result.model_dump(mode="json"), known=known)
    if result is None:
        return None
    return {"type": type(result).__name__}


def masked_history(
    items: list[dict[str, Any]], *, transcript: bool, known: KnownDetails
) -> list[dict[str, Any]]:
    """The framework's chat history (`ChatContext.to_dict`) for the report: text masked
    as free text, tool arguments and outputs masked, or all of them withheld when the
    call may not keep its transcript. Timings, roles, tool names and metrics stay."""
    kept = []
    for item in items:
        item = dict(item)
        # Whatever a plugin or the framework attached, unread: it may quote the caller.
        item.pop("extra", None)
        kind = item.get("type")
        if kind == "message":
            item["content"] = [
                (known.mask(part) if transcript else WITHHELD)
                if isinstance(part, str)
                else {"type": part.get("type", "content") if isinstance(part, dict) else "?"}
                for part in item.get("content", [])
            ]
        elif kind == "function_call":
            item["arguments"] = _masked_arguments(item.get("arguments", ""), transcript, known)
        elif kind == "function_call_output":
            output = str(item.get("output", ""))
            item["output"] = known.mask(output) if transcript else WITHHELD
        elif kind == "agent_config_update":
            item.pop("instructions", None)  # ours, long, and no part of what happened
        kept.append(item)
    return kept


def _masked_arguments(arguments: str, transcript: bool, known: KnownDetails) -> str:
    if not transcript:
        return WITHHELD
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        return known.mask(arguments)
    return json.dumps(masked_json(parsed, known=known), ensure_ascii=False)
