"""Item changes of pending orders with a real model, judged by another, with the store
checked after each. Marked `evals`."""

from __future__ import annotations

from decimal import Decimal

import pytest
from livekit.agents.evals import tool_use_judge

from customer_service.domain import OrderStatus
from customer_service.testing import call_session
from support.evals import EvalModels, judged
from support.swaps import BOTTLE_BLUE, BOTTLE_GREEN, GIFT_CARD, PRIYA_SAYS

pytestmark = pytest.mark.evals


async def test_an_item_change_to_green_is_made_after_the_yes(models: EvalModels) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="Can I change the water bottles in order 200202?")
        await session.run(user_input=PRIYA_SAYS)
        read_back = await session.run(
            user_input="All three, the same bottles but in green, on my gift card."
        )
        await read_back.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Reads back a change of the three water bottles to green ones in order "
            "200202, says the price is the same, and asks to confirm.",
        )
        await session.run(user_input="Yes.")
        order = await session.userdata.store.get_order("200202")
        assert order is not None
        assert order.status is OrderStatus.PENDING_ITEMS_MODIFIED
        assert order.unit_item_ids() == [BOTTLE_GREEN] * 3
        methods = await session.userdata.store.payment_methods("C-1002")
        assert {m.method_id: m.balance for m in methods}[GIFT_CARD] == Decimal("40.00")
        await judged(session, models.judge, tool_use_judge())


async def test_an_item_change_the_caller_declines_changes_nothing(models: EvalModels) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I'd like the bigger bottles in order 200202.")
        await session.run(user_input=PRIYA_SAYS)
        await session.run(user_input="All three of them, paid with my gift card.")
        kept = await session.run(user_input="No, on second thought leave them as they are.")
        await kept.expect.contains_message(role="assistant").judge(
            models.judge, intent="Confirms the items were not changed."
        )
        order = await session.userdata.store.get_order("200202")
        assert order is not None
        assert order.unit_item_ids() == [BOTTLE_BLUE] * 3
        await judged(session, models.judge)
