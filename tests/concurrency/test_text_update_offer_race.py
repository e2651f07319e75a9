"""A race between two calls of one customer, made deterministic: the text-update offer
is found due, then another call of the same customer stores its answer, then this call
asks. The caller confirmed a new address and must still hear it said as changed."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from customer_service.addresses import read_back
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.specialists.consent import CONSENT_WORDING, ConsentTopic
from customer_service.store import ConsentRecord, Store
from customer_service.testing import call_session, open_demo_store, sqlite_url
from support.conversation import agent_lines
from support.demo_addresses import MARKET_STREET_SUITE_5

JORDAN = "Jordan Lee, 94107, jordan.lee@example.com"
SMS = ConsentTopic.ORDER_UPDATES_SMS
DONE = f"Done. Order 1 0 0, 1 0 2 will now be delivered to {read_back(MARKET_STREET_SUITE_5)}."


def answer_meanwhile(handle: Store, shared: Store) -> None:
    """Makes `handle` see another call's stored answer right after its first look."""
    look = handle.latest_consent
    looked = False

    @functools.wraps(look)
    async def latest_consent(**kwargs: Any) -> ConsentRecord | None:
        nonlocal looked
        found = await look(**kwargs)
        if not looked and kwargs.get("topic") == SMS.value:
            looked = True
            await shared.record_consent(
                ConsentRecord(
                    topic=SMS.value,
                    granted=False,
                    wording_version=CONSENT_WORDING[SMS].version,
                    asked_at=shared.clock.now(),
                    call_id="call-another-one",
                    customer_id="C-1001",
                )
            )
        return found

    handle.latest_consent = latest_consent  # type: ignore[method-assign]


async def test_the_change_is_said_when_another_call_answers_the_offer_meanwhile(
    settings: Settings, tmp_path: Path
) -> None:
    async with await open_demo_store(sqlite_url(tmp_path / "store.sqlite3")) as shared:
        handle = shared.for_call()
        answer_meanwhile(handle, shared)
        async with call_session(OfflineLLM(), settings=settings, store=handle) as session:
            await session.run(
                user_input=f"{JORDAN}. Please change the delivery address of order 100102 "
                "to 1 Market Street, Suite 5, San Francisco, CA 94105"
            )
            await session.run(user_input="yes")
            heard = agent_lines(session)
        order = await shared.get_order("100102")
        assert order is not None
        assert order.shipping_address == MARKET_STREET_SUITE_5
        assert any(line.startswith(DONE) for line in heard), heard
