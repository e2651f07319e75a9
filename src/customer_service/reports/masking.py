"""The call report's personal data, masked by the rules the logs follow (`privacy`).

What the report keeps of the caller's words follows the recording consent: a call that
may not be recorded keeps who spoke and when, never what was said.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, JsonValue

from customer_service.privacy import (
    mask_address,
    mask_email,
    mask_free_text,
    mask_name,
    mask_phone,
    mask_value,
)

WITHHELD = "[withheld: the caller did not allow recording]"

_NAME_KEYS = frozenset({"full_name", "name", "first_name", "last_name", "name_given"})
_VALUE_KEYS = frozenset({"phone_or_email", "caller_number", "contact"})
_ADDRESS_KEYS = frozenset({"street", "unit", "address", "line1", "line2"})
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
        "tracking_number",
        "quantity",
        "sku",
    }
)
"""Fields that carry no personal data of their own: kept as they are."""


def masked_json(value: JsonValue, *, names: Iterable[str] = (), key: str = "") -> JsonValue:
    """`value` (a typed result or tool arguments as JSON) with every personal detail
    masked: by the field's name where it says what it holds, a postal address as a
    whole, and any other text as free text (`mask_free_text`)."""
    names = tuple(names)
    if isinstance(value, dict):
        if {"street", "postal_code"} <= value.keys():
            return mask_address(_one_line(value))
        return {k: masked_json(v, names=names, key=k) for k, v in value.items()}
    if isinstance(value, list):
        return [masked_json(item, names=names, key=key) for item in value]
    if not isinstance(value, str) or key in _SAFE_KEYS:
        return value
    if key in _NAME_KEYS:
        return mask_name(value)
    if key in _VALUE_KEYS:
        return mask_value(value)
    if "phone" in key:
        return mask_phone(value)
    if "email" in key:
        return mask_email(value)
    if key in _ADDRESS_KEYS or key == "postal_code":
        return mask_address(value)
    return mask_free_text(value, names=names)


def _one_line(address: dict[str, JsonValue]) -> str:
    parts = [address.get(part) for part in ("street", "unit", "city", "region", "postal_code")]
    return ", ".join(str(part) for part in parts if part)


def masked_result(result: object, *, names: Iterable[str] = ()) -> JsonValue:
    """A specialist's typed result as JSON, masked; only its type for anything else."""
    if isinstance(result, BaseModel):
        return masked_json(result.model_dump(mode="json"), names=names)
    if result is None:
        return None
    return {"type": type(result).__name__}


def masked_history(
    items: list[dict[str, Any]], *, transcript: bool, names: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """The framework's chat history (`ChatContext.to_dict`) for the report: text masked
    as free text, tool arguments and outputs masked, or all of them withheld when the
    call may not keep its transcript. Timings, roles, tool names and metrics stay."""
    names = tuple(names)
    kept = []
    for item in items:
        item = dict(item)
        # Whatever a plugin or the framework attached, unread: it may quote the caller.
        item.pop("extra", None)
        kind = item.get("type")
        if kind == "message":
            item["content"] = [
                (mask_free_text(part, names=names) if transcript else WITHHELD)
                if isinstance(part, str)
                else {"type": part.get("type", "content") if isinstance(part, dict) else "?"}
                for part in item.get("content", [])
            ]
        elif kind == "function_call":
            item["arguments"] = _masked_arguments(item.get("arguments", ""), transcript, names)
        elif kind == "function_call_output":
            output = str(item.get("output", ""))
            item["output"] = mask_free_text(output, names=names) if transcript else WITHHELD
        elif kind == "agent_config_update":
            item.pop("instructions", None)  # ours, long, and no part of what happened
        kept.append(item)
    return kept


def _masked_arguments(arguments: str, transcript: bool, names: tuple[str, ...]) -> str:
    if not transcript:
        return WITHHELD
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        return mask_free_text(arguments, names=names)
    return json.dumps(masked_json(parsed, names=names), ensure_ascii=False)
