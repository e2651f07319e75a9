"""Consent questions in their fixed, versioned wording, and the sentences that say what was
decided: spoken by the consent specialist and by the supervisor, which may open a call
with the recording question and owes the text-update one after a saved change."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Annotated

from livekit.agents import ToolError
from pydantic import WithJsonSchema

from customer_service.call.fixed_sentences import fixed


class ConsentTopic(enum.StrEnum):
    CALL_RECORDING = "call_recording"
    ORDER_UPDATES_SMS = "order_updates_sms"


ConsentTopicChoice = Annotated[
    str, WithJsonSchema({"type": "string", "enum": [topic.value for topic in ConsentTopic]})
]
"""A consent topic as a tool argument. The schema the model sees lists the topics;
anything else still reaches `consent_topic`, which refuses it in words a caller can
hear (the framework's own validation error would quote the model's input back)."""

UNKNOWN_CONSENT_TOPIC = "I can only record choices about call recording or text updates."


def consent_topic(choice: str) -> ConsentTopic:
    try:
        return ConsentTopic(choice)
    except ValueError:
        raise ToolError(UNKNOWN_CONSENT_TOPIC) from None


@dataclass(frozen=True)
class ConsentWording:
    version: str
    question: str
    is_that_a_yes: str
    """Put after a caller only acknowledged the question ("okay, thanks"), which they heard
    in full: short, and answered as the question itself."""


# The only place consent questions are worded. Changing a question means a new version,
# so every recorded answer can be traced to the exact words the caller heard.
CONSENT_WORDING: dict[ConsentTopic, ConsentWording] = {
    ConsentTopic.CALL_RECORDING: ConsentWording(
        version="call_recording/2026-11-26",
        question=fixed(
            "May we record this call to check and improve our service? Please say yes or no."
        ),
        is_that_a_yes=fixed("Is that a yes to recording this call?"),
    ),
    ConsentTopic.ORDER_UPDATES_SMS: ConsentWording(
        version="order_updates_sms/2026-11-01",
        question=fixed(
            "Would you like text message updates about your orders sent to the phone "
            "number on your account? Message and data rates may apply. Please say yes or no."
        ),
        is_that_a_yes=fixed("Is that a yes to text updates?"),
    ),
}


CONSENT_CONFIRMATIONS = {
    (ConsentTopic.CALL_RECORDING, True): fixed("This call may be recorded."),
    (ConsentTopic.CALL_RECORDING, False): fixed("This call will not be recorded."),
    (ConsentTopic.ORDER_UPDATES_SMS, True): fixed("You'll get text updates about your orders."),
    (ConsentTopic.ORDER_UPDATES_SMS, False): fixed("You won't get text updates about your orders."),
}
UNCLEAR_CONFIRMATIONS = {
    ConsentTopic.CALL_RECORDING: fixed(
        "I didn't get a clear yes or no, so this call will not be recorded."
    ),
    ConsentTopic.ORDER_UPDATES_SMS: fixed(
        "I didn't get a clear yes or no, so I haven't set up text updates."
    ),
}
