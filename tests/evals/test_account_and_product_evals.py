"""The account's default address and product questions with a real model, judged by
another, with the store checked after each. Marked `evals`."""

from __future__ import annotations

import pytest
from livekit.agents.evals import tool_use_judge

from customer_service.testing import call_session
from support.demo_addresses import JORDAN_ADDRESS, MARKET_STREET_SUITE_5
from support.evals import EvalModels, judged

pytestmark = pytest.mark.evals

JORDAN_SAYS = "Jordan Lee, 94107, jordan.lee@example.com"


async def test_the_accounts_default_address_changes_after_the_read_back(
    models: EvalModels,
) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I moved. Can you update the address on my account?")
        await session.run(user_input=JORDAN_SAYS)
        read_back = await session.run(
            user_input="It's 1 Market Street, Suite 5, San Francisco, California 94105."
        )
        await read_back.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Reads back 1 Market Street, Suite 5, San Francisco, CA 94105 as the "
            "account's default address, says orders already placed keep their delivery "
            "addresses, and asks the caller to confirm.",
        )
        done = await session.run(user_input="Yes, that's right.")
        customer = await session.userdata.store.get_customer("C-1001")
        assert customer is not None
        assert customer.address == MARKET_STREET_SUITE_5
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.shipping_address == JORDAN_ADDRESS
        await done.expect.contains_message(role="assistant").judge(
            models.judge, intent="Says the default address on the account is changed."
        )
        await judged(session, models.judge, tool_use_judge())


async def test_a_product_question_is_answered_from_the_catalog_without_verifying(
    models: EvalModels,
) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        answered = await session.run(
            user_input="Does the stainless steel water bottle come in green, and how much is it?"
        )
        await answered.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Says the 500 ml green water bottle is available at 24 dollars and the 750 ml "
            "green one is not available, without asking who the caller is.",
        )
        assert session.userdata.verified_customer is None
        await judged(session, models.judge)
