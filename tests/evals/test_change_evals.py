"""Address changes and cancellations with a real model, judged by another, with the
store checked after each. Marked `evals`."""

from __future__ import annotations

import pytest
from livekit.agents.evals import tool_use_judge

from customer_service.domain import CancelReason, OrderStatus
from customer_service.testing import call_session
from support.conversation import JORDAN_SAYS
from support.evals import EvalModels, judged

pytestmark = pytest.mark.evals

NEW_ADDRESS = "1 Market Street, San Francisco, California 94105"


async def test_an_address_change_read_back_and_confirmed_is_saved(models: EvalModels) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I need to change the delivery address for order 100102.")
        await session.run(user_input=JORDAN_SAYS)
        read_back = await session.run(user_input=NEW_ADDRESS)
        await read_back.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Reads the new address (Market Street, San Francisco, 94105) back and "
            "asks the caller to confirm it.",
        )
        await session.run(user_input="Yes, that's right.")
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.shipping_address.postal_code == "94105"
        assert "Market" in order.shipping_address.street
        await judged(session, models.judge, tool_use_judge())


async def test_an_address_read_back_the_caller_rejects_changes_nothing(
    models: EvalModels,
) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="Please send order 100102 to a new address.")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input=NEW_ADDRESS)
        kept = await session.run(user_input="No, actually leave it where it is.")
        await kept.expect.contains_message(role="assistant").judge(
            models.judge, intent="Confirms the address was not changed."
        )
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.shipping_address.street == "500 Howard St"
        await judged(session, models.judge)


async def test_a_shipped_orders_address_change_is_refused(models: EvalModels) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="Please change the delivery address of order 100101.")
        refused = await session.run(user_input=JORDAN_SAYS)
        await refused.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Explains the order has already shipped so its address cannot be changed, "
            "and offers a colleague.",
        )
        order = await session.userdata.store.get_order("100101")
        assert order is not None
        assert order.shipping_address.street == "500 Howard St"
        await judged(session, models.judge)


async def test_a_cancellation_confirmed_after_the_read_back_is_made(models: EvalModels) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I'd like to cancel order 100102.")
        question = await session.run(user_input=JORDAN_SAYS)
        await question.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Names the order's coffee set and asks why the caller wants it cancelled.",
        )
        read_back = await session.run(user_input="I ordered it by mistake.")
        await read_back.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Reads back the cancellation of order 100102 because it was ordered by "
            "mistake, says the 48 dollars go back to the Visa card in five to seven business "
            "days, and asks whether to cancel it, yes or no.",
        )
        await session.run(user_input="Yes, cancel it.")
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.status is OrderStatus.CANCELLED
        assert order.cancel_reason is CancelReason.ORDERED_BY_MISTAKE
        await judged(session, models.judge, tool_use_judge())


async def test_a_shipped_order_is_not_cancelled(models: EvalModels) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="Cancel order 100101 please.")
        refused = await session.run(user_input=JORDAN_SAYS)
        await refused.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Says the order has already shipped so it cannot be cancelled any more.",
        )
        order = await session.userdata.store.get_order("100101")
        assert order is not None
        assert order.status is OrderStatus.PROCESSED
        await judged(session, models.judge)
