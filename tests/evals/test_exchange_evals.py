"""Exchanges of delivered items with a real model, judged by another, with the store
checked after each. Marked `evals`."""

from __future__ import annotations

import pytest
from livekit.agents.evals import tool_use_judge

from customer_service.domain import OrderStatus
from customer_service.testing import call_session
from support.evals import EvalModels, judged
from support.swaps import MAT_6MM, PAYPAL, PRIYA_SAYS

pytestmark = pytest.mark.evals


async def test_an_exchange_read_back_with_its_difference_is_requested(
    models: EvalModels,
) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I'd like to exchange something from order 200201.")
        await session.run(user_input=PRIYA_SAYS)
        read_back = await session.run(
            user_input="The cork yoga mat, I'd like the 6 mm one instead. Use my PayPal."
        )
        await read_back.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Reads back an exchange of the yoga mat for the 6 mm one in order 200201 "
            "with a price difference of 10 dollars paid with PayPal, and asks to confirm.",
        )
        done = await session.run(user_input="Yes, please.")
        order = await session.userdata.store.get_order("200201")
        assert order is not None
        assert order.status is OrderStatus.EXCHANGE_REQUESTED
        assert order.exchange is not None
        assert (order.exchange.new_item_ids, order.exchange.method_id) == ((MAT_6MM,), PAYPAL)
        await done.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Says the exchange is requested and that the caller will get instructions "
            "to send the mat back, the new one following once it arrives.",
        )
        await judged(session, models.judge, tool_use_judge())


async def test_an_exchange_of_a_pending_order_is_refused_with_what_can_be_done(
    models: EvalModels,
) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I want to exchange the water bottles in order 200202.")
        refused = await session.run(user_input=PRIYA_SAYS)
        await refused.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Says order 200202 has not been delivered yet so it cannot be exchanged, "
            "and offers to change its items instead.",
        )
        order = await session.userdata.store.get_order("200202")
        assert order is not None
        assert order.status is OrderStatus.PENDING
        await judged(session, models.judge)
