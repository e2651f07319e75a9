"""Payment changes with a real model, judged by another, with the store checked after
each. Marked `evals`."""

from __future__ import annotations

from decimal import Decimal

import pytest
from livekit.agents.evals import tool_use_judge

from customer_service.domain import TransactionKind
from customer_service.testing import call_session
from support.conversation import PRIYA_SAYS
from support.evals import EvalModels, judged

pytestmark = pytest.mark.evals


async def test_a_payment_change_confirmed_after_the_read_back_is_made(
    models: EvalModels,
) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="Can I pay for order 200202 with my PayPal instead?")
        await session.run(user_input=PRIYA_SAYS)
        read_back = await session.run(user_input="Yes, PayPal please.")
        await read_back.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Says the 72 dollars for order 200202 will be charged to the PayPal account, "
            "that 72 dollars go back onto the gift card straight away, and asks the caller "
            "to confirm.",
        )
        await session.run(user_input="Yes, go ahead.")
        order = await session.userdata.store.get_order("200202")
        assert order is not None
        assert [(t.kind, t.method_id) for t in order.payments] == [
            (TransactionKind.PAYMENT, "gift_card_9000202"),
            (TransactionKind.PAYMENT, "paypal_9000201"),
            (TransactionKind.REFUND, "gift_card_9000202"),
        ]
        balances = [m.balance for m in await session.userdata.store.payment_methods("C-1002")]
        assert balances == [None, Decimal("112.00")]
        await judged(session, models.judge, tool_use_judge())


async def test_a_payment_change_the_caller_declines_changes_nothing(models: EvalModels) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I want to change how order 200202 is paid.")
        await session.run(user_input=PRIYA_SAYS)
        await session.run(user_input="Use my PayPal account.")
        kept = await session.run(user_input="No, leave it on the gift card after all.")
        await kept.expect.contains_message(role="assistant").judge(
            models.judge, intent="Confirms that the payment was not changed."
        )
        order = await session.userdata.store.get_order("200202")
        assert order is not None
        assert len(order.payments) == 1
        await judged(session, models.judge)


async def test_a_caller_with_one_method_is_told_there_is_no_other(models: EvalModels) -> None:
    async with call_session(models.under_test, settings=models.settings) as session:
        await session.run(user_input="I'd like to pay order 100102 with a different card.")
        refused = await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        await refused.expect.contains_message(role="assistant").judge(
            models.judge,
            intent="Says the Visa card is the only payment method on the account, so the "
            "order cannot be paid with another.",
        )
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert len(order.payments) == 1
        await judged(session, models.judge)
