"""Return requests with a real model, judged by another, with the store checked after
each. Marked `evals`."""

from __future__ import annotations

import pytest
from livekit.agents.evals import tool_use_judge

from customer_service.call.wording import spaced_digits
from customer_service.store import ReturnReason
from customer_service.testing import call_session
from support.conversation import PRIYA_SAYS
from support.evals import EvalModels, judged

pytestmark = pytest.mark.evals


async def test_a_return_confirmed_after_the_read_back_is_requested(models: EvalModels) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I'd like to return something from order 200201.")
        await session.run(user_input=PRIYA_SAYS)
        read_back = await session.run(
            user_input="Just the two yoga blocks. One of them arrived cracked. Please put the "
            "refund on my gift card."
        )
        await read_back.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Reads back a return of the yoga blocks from order 200201 because they "
            "arrived damaged, with the refund going onto the gift card, and asks the caller "
            "to confirm it.",
        )
        done = await session.run(user_input="Yes, that's right.")
        [request] = await session.userdata.store.return_requests(order_id="200201")
        assert (request.item_indices, request.reason) == ((1,), ReturnReason.DAMAGED)
        order = await session.userdata.store.get_order("200201")
        assert order is not None
        assert order.returned is not None
        assert order.returned.method_id == "gift_card_9000202"
        await done.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Says the return is requested and gives the return number "
            f"{spaced_digits(request.return_number)}.",
        )
        await judged(session, models.judge, tool_use_judge())


async def test_a_return_the_caller_declines_at_the_read_back_requests_nothing(
    models: EvalModels,
) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I want to send back order 200201.")
        await session.run(user_input=PRIYA_SAYS)
        await session.run(user_input="All of it, I don't need it any more.")
        kept = await session.run(user_input="No, actually I'll keep everything.")
        await kept.expect.contains_message(role="assistant").judge(
            models.judge, intent="Confirms that no return was requested."
        )
        assert await session.userdata.store.return_requests() == []
        await judged(session, models.judge)


async def test_an_order_not_delivered_yet_is_not_returned(models: EvalModels) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I'd like to return order 200202.")
        refused = await session.run(user_input=PRIYA_SAYS)
        await refused.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Says the order has not been delivered yet so it cannot be returned, and "
            "that there are thirty days to return it once it arrives.",
        )
        assert await session.userdata.store.return_requests() == []
        await judged(session, models.judge)
