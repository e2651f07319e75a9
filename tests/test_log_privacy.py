"""Logs never carry a caller's personal data in full, whatever happens in the call."""

from __future__ import annotations

import logging

import pytest

from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.testing import call_session
from support.faults import fail_writes

PERSONAL = (
    "Jordan Lee",
    "jordan.lee@example.com",
    "4155550134",
    "555-0134",
    "1 Market Street",
    "500 Howard St",
    "Suite 5",
)

CALLER_TURNS = (
    "I need to change the delivery address for order 100102",
    "Jordan Lee, 94107, jordan.lee@example.com",
    "1 Market Street, Suite 5, San Francisco, CA 94105",
    "yes",
    "yes",
    "Where is my order 100101?",
    "Can I talk to a person? My number is +1 415 555 0134",
)


def everything_logged(records: list[logging.LogRecord]) -> str:
    standard = set(vars(logging.makeLogRecord({})))
    lines = []
    for record in records:
        extras = {key: value for key, value in vars(record).items() if key not in standard}
        lines.append(f"{record.getMessage()} {extras}")
    return "\n".join(lines)


async def test_a_whole_call_logs_no_personal_data(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="customer_service"):
        async with call_session(OfflineLLM(), settings=settings) as session:
            for turn in CALLER_TURNS[:-1]:
                await session.run(user_input=turn)
            # And the unhappy path: the store refusing writes mid-call, so the hand-off
            # record is logged instead of stored.
            fail_writes(session.userdata.store)
            await session.run(user_input=CALLER_TURNS[-1])
            await session.run(user_input="Please transfer me to a human, I'm Jordan Lee")
    ours = [record for record in caplog.records if record.name.startswith("customer_service")]
    assert any(record.getMessage() == "escalation not stored" for record in ours)
    logged = everything_logged(ours)
    for value in PERSONAL:
        assert value not in logged
