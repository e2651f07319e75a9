"""The names and details a call has heard, for masking its records: the call report, the
hand-off note and the colleague's brief mask them in free text wherever they are said.

Read from the call's history, where every tool call's arguments stay: each identity
attempt's name, postal code and phone or email (the failed ones too, and a name a caller
claimed), an address given to a specialist, and any other argument named as personal
(`privacy.personal_field`); then the verified customer's own details and the number the
line presented.
"""

from __future__ import annotations

import json

from livekit.agents.llm import ChatContext

from customer_service.call.state import CallState
from customer_service.privacy import KnownDetails, PersonalField, personal_field

_NOT_THE_CALLERS = frozenset({PersonalField.TRACKING_NUMBER})
"""Masked where a field holds it, but not a detail the caller gave."""


def known_details(state: CallState, history: ChatContext) -> KnownDetails:
    names: dict[str, None] = {}
    details: dict[str, None] = {}
    for item in history.items:
        if item.type != "function_call":
            continue
        try:
            arguments = json.loads(item.arguments or "{}")
        except ValueError:
            continue
        if not isinstance(arguments, dict):
            continue
        for key, value in arguments.items():
            field = personal_field(key)
            if not isinstance(value, str) or not value.strip() or field is None:
                continue
            if field is PersonalField.NAME:
                names[value] = None
            elif field not in _NOT_THE_CALLERS:
                details[value] = None
    # Whoever the checks found, even if verification locked since.
    customer = state.identity.customer
    if customer is not None:
        names[customer.full_name] = None
        details.update(
            dict.fromkeys(d for d in (customer.email, customer.phone, customer.postal_code) if d)
        )
    if state.line.caller_number:
        details[state.line.caller_number] = None
    return KnownDetails(names=tuple(names), details=tuple(details))
