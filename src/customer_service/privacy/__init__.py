"""Masking of personal data before it reaches logs, reports, notes and audit details."""

from customer_service.privacy.free_text import KnownDetails, mask_free_text
from customer_service.privacy.values import (
    PersonalField,
    mask_address,
    mask_email,
    mask_field,
    mask_name,
    mask_phone,
    mask_room_name,
    mask_tracking_number,
    mask_value,
    personal_field,
)

__all__ = [
    "KnownDetails",
    "PersonalField",
    "mask_address",
    "mask_email",
    "mask_field",
    "mask_free_text",
    "mask_name",
    "mask_phone",
    "mask_room_name",
    "mask_tracking_number",
    "mask_value",
    "personal_field",
]
