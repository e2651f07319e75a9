"""Paying a pending order with another of the caller's methods, driven through real
sessions with a scripted model."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from livekit.agents import AgentSession, ToolError

from customer_service.call.state import CallState
from customer_service.call.wording import NOTHING_TO_CONFIRM_YET, OFFER_HUMAN
from customer_service.domain import (
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    Transaction,
    TransactionKind,
)
from customer_service.settings import Settings
from customer_service.specialists import payment_change
from customer_service.specialists.order_lookup import OrderLookupResult
from customer_service.specialists.payment_change import WORDING, PaymentChangeTask
from customer_service.store import Store
from customer_service.store.order_changes import Changed, ChangeRefusal
from customer_service.supervisor import CustomerServiceAgent
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    PRIYA,
    agent_lines,
    ask_then_verify,
    audit_events,
    tool_outputs,
    verifying_for,
)
from support.scripted_llm import Call, Parallel, ScriptedLLM, Step
from support.scripted_llm import relay_tool_output as relay
from support.store_records import save_orders, save_payment_methods, stored_order

PRIYA_SAYS = "Priya Natarajan, 10001, priya.n@example.com"
PAYPAL = "paypal_9000201"
GIFT_CARD = "gift_card_9000202"
JORDANS_VISA = "credit_card_9000101"
TASK_TOOLS = frozenset({"record_payment_change", "give_up"})
QUESTION = (
    "Order 2 0 0, 2 0 2 is paid with your gift card, which has 40 dollars on it. Would you "
    "like to pay it with your PayPal account instead?"
)
GIFT_CARD_REFUND = "You get 72 dollars back. It goes back onto your gift card straight away."
READ_BACK = (
    "Order 2 0 0, 2 0 2's 72 dollars will be charged to your PayPal account instead. "
    f"{GIFT_CARD_REFUND} Shall I make this change? Please say yes or no."
)
CHANGED = f"Done. Order 2 0 0, 2 0 2 is now paid with your PayPal account. {GIFT_CARD_REFUND}"
TO_PAYPAL = Call("record_payment_change", {"payment_method_id": PAYPAL})
CONFIRM: list[Step] = [Call("confirm_payment_change"), relay]
AMEX = PaymentMethod(
    method_id="credit_card_9000203", kind=PaymentKind.CREDIT_CARD, brand="amex", last_four="1005"
)


def until_question(order_id: str = "200202", details: dict[str, Any] = PRIYA) -> list[Step]:
    return [*verifying_for("change_payment_method", order_id, details)]


async def reach_question(
    session: AgentSession[CallState], order_id: str = "200202", says: str = PRIYA_SAYS
) -> None:
    await ask_then_verify(session, f"I'd like to change how order {order_id} is paid", says)


async def payments(session: AgentSession[CallState], order_id: str = "200202") -> list[Any]:
    order = await stored_order(session.userdata.store, order_id)
    return [(t.kind, t.amount, t.method_id) for t in order.payments]


async def gift_card_balance(session: AgentSession[CallState]) -> Decimal | None:
    methods = await session.userdata.store.payment_methods("C-1002")
    return next(m.balance for m in methods if m.method_id == GIFT_CARD)


async def assert_unchanged(session: AgentSession[CallState]) -> None:
    assert await payments(session) == [(TransactionKind.PAYMENT, Decimal("72.00"), GIFT_CARD)]
    assert await gift_card_balance(session) == Decimal("40.00")
    assert await audit_events(session, kind="order_payment_changed") == []


async def test_a_clear_yes_pays_the_order_with_the_new_method_and_refunds_the_old(
    settings: Settings,
) -> None:
    model = ScriptedLLM([*until_question(), TO_PAYPAL, *CONFIRM])
    async with call_session(model, settings=settings) as session:
        await reach_question(session)
        assert agent_lines(session)[-1] == QUESTION
        assert session.userdata.disclosed_order_ids == ["200202"]
        await session.run(user_input="Yes, PayPal")
        assert agent_lines(session)[-1] == READ_BACK
        await assert_unchanged(session)

        done = await session.run(user_input="Yes please")
        done.expect.contains_agent_handoff(new_agent_type=CustomerServiceAgent)
        (output,) = tool_outputs(session, "change_payment_method")
        assert (output.output, output.is_error) == (CHANGED, False)
        assert await payments(session) == [
            (TransactionKind.PAYMENT, Decimal("72.00"), GIFT_CARD),
            (TransactionKind.PAYMENT, Decimal("72.00"), PAYPAL),
            (TransactionKind.REFUND, Decimal("72.00"), GIFT_CARD),
        ]
        assert await gift_card_balance(session) == Decimal("112.00")
        order = await stored_order(session.userdata.store, "200202")
        assert order.status is OrderStatus.PENDING
        [event] = await audit_events(session, kind="order_payment_changed")
        assert event.detail == {
            "amount": "72.00",
            "old_method_id": GIFT_CARD,
            "new_method_id": PAYPAL,
        }
    assert not model.overran


async def test_a_card_pays_in_full_and_its_refund_is_said_with_its_timing(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        await save_payment_methods(store, "C-1002", AMEX)
        order = await stored_order(store, "200202")
        by_paypal = Transaction(
            kind=TransactionKind.PAYMENT, amount=Decimal("72.00"), method_id=PAYPAL
        )
        await save_orders(store, order.model_copy(update={"payments": (by_paypal,)}))
    to_amex = Call("record_payment_change", {"payment_method_id": AMEX.method_id})
    model = ScriptedLLM([*until_question(), to_amex, *CONFIRM])
    async with call_session(model, settings=settings, database_url=demo_database_url) as session:
        await reach_question(session)
        assert agent_lines(session)[-1] == (
            "Order 2 0 0, 2 0 2 is paid with your PayPal account. Which would you like to pay "
            "it with instead: your gift card, which has 40 dollars on it or your Amex card "
            "ending in 1 0 0 5?"
        )
        await session.run(user_input="the Amex")
        assert agent_lines(session)[-1] == (
            "Order 2 0 0, 2 0 2's 72 dollars will be charged to your Amex card ending in 1 0 0 "
            "5 instead. You get 72 dollars back. It reaches your PayPal account in five to "
            "seven business days. Shall I make this change? Please say yes or no."
        )
        await session.run(user_input="yes")
        assert [p[2] for p in await payments(session)] == [PAYPAL, AMEX.method_id, PAYPAL]
        assert await gift_card_balance(session) == Decimal("40.00")
    assert not model.overran


@pytest.mark.parametrize(
    ("chosen", "refusal"),
    [
        (JORDANS_VISA, "I can use your PayPal account and your gift card, which has 40 dollars"),
        ("credit_card_9999999", "I can use your PayPal account and your gift card"),
        (GIFT_CARD, "Order 2 0 0, 2 0 2 is already paid with your gift card"),
    ],
    ids=["another-customers", "invented", "the-same"],
)
async def test_a_method_the_rules_refuse_is_refused_in_words_and_nothing_changes(
    settings: Settings, chosen: str, refusal: str
) -> None:
    wrong = Call("record_payment_change", {"payment_method_id": chosen})
    model = ScriptedLLM([*until_question(), wrong, relay, Call("confirm_payment_change"), relay])
    async with call_session(model, settings=settings) as session:
        await reach_question(session)
        await session.run(user_input="the other one")
        (output,) = tool_outputs(session, "record_payment_change")
        assert output.is_error
        assert output.output.startswith(refusal)
        assert JORDANS_VISA not in output.output
        await session.run(user_input="yes")
        (early,) = tool_outputs(session, "confirm_payment_change")
        assert (early.output, early.is_error) == (NOTHING_TO_CONFIRM_YET, True)
        await assert_unchanged(session)
    assert not model.overran


async def test_a_gift_card_that_does_not_cover_the_order_is_refused(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        order = await stored_order(store, "200202")
        by_paypal = Transaction(
            kind=TransactionKind.PAYMENT, amount=Decimal("72.00"), method_id=PAYPAL
        )
        await save_orders(store, order.model_copy(update={"payments": (by_paypal,)}))
    to_gift_card = Call("record_payment_change", {"payment_method_id": GIFT_CARD})
    model = ScriptedLLM([*until_question(), to_gift_card, relay])
    async with call_session(model, settings=settings, database_url=demo_database_url) as session:
        await reach_question(session)
        await session.run(user_input="the gift card")
        (output,) = tool_outputs(session, "record_payment_change")
        assert (output.output, output.is_error) == (
            "Your gift card doesn't have the order's 72 dollars on it, so it can't pay for it. "
            "Which payment method would you like to pay with instead?",
            True,
        )
        assert await payments(session) == [(TransactionKind.PAYMENT, Decimal("72.00"), PAYPAL)]
        assert await gift_card_balance(session) == Decimal("40.00")
    assert not model.overran


async def refusal_before_the_task(
    settings: Settings, database_url: str, order_id: str, details: dict[str, Any], says: str
) -> str:
    model = ScriptedLLM([*until_question(order_id, details), relay])
    async with call_session(model, settings=settings, database_url=database_url) as session:
        await reach_question(session, order_id, says)
        (output,) = tool_outputs(session, "change_payment_method")
        assert output.is_error
        assert agent_lines(session)[-1] == output.output
        assert await audit_events(session, kind="order_payment_changed") == []
    assert not any(turn.offers(TASK_TOOLS) for turn in model.turns)
    assert not model.overran
    return output.output


async def test_orders_and_callers_it_cannot_change_are_refused_before_the_task(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        order = await stored_order(store, "200202")
        twice = (*order.payments, *order.payments)
        await save_orders(store, order.model_copy(update={"payments": twice}))
    url = demo_database_url
    assert await refusal_before_the_task(settings, url, "100102", JORDAN, JORDAN_SAYS) == (
        "Order 1 0 0, 1 0 2 is paid with your Visa card ending in 4 2 4 2, the only payment "
        "method on your account, so there is no other to pay it with."
    )
    assert await refusal_before_the_task(settings, url, "100101", JORDAN, JORDAN_SAYS) == (
        f"Order 1 0 0, 1 0 1 has already shipped, so its payment can't be changed. {OFFER_HUMAN}"
    )
    assert await refusal_before_the_task(settings, url, "200202", PRIYA, PRIYA_SAYS) == (
        "Order 2 0 0, 2 0 2's payment has already been changed or refunded, so I can't change "
        f"it again here. {OFFER_HUMAN}"
    )


async def test_a_no_changes_nothing_and_a_corrected_choice_is_the_one_made(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        await save_payment_methods(store, "C-1002", AMEX)
    to_amex = Call("record_payment_change", {"payment_method_id": AMEX.method_id})
    model = ScriptedLLM([*until_question(), TO_PAYPAL, to_amex, *CONFIRM])
    async with call_session(model, settings=settings, database_url=demo_database_url) as session:
        await reach_question(session)
        await session.run(user_input="PayPal")
        await session.run(user_input="No wait, the Amex card")
        assert "charged to your Amex card ending in 1 0 0 5" in agent_lines(session)[-1]
        await assert_unchanged(session)
        await session.run(user_input="Yes")
        assert [p[2] for p in await payments(session)] == [GIFT_CARD, AMEX.method_id, GIFT_CARD]
    assert not model.overran

    model = ScriptedLLM([*until_question(), TO_PAYPAL, Call("give_up"), relay])
    async with call_session(model, settings=settings) as session:
        await reach_question(session)
        await session.run(user_input="PayPal")
        await session.run(user_input="No, leave it as it is")
        (output,) = tool_outputs(session, "change_payment_method")
        assert (output.output, output.is_error) == (WORDING.nothing_done, True)
        await assert_unchanged(session)
    assert not model.overran


async def test_unclear_answers_refuse_the_models_confirmations_up_to_the_cap(
    settings: Settings,
) -> None:
    model = ScriptedLLM([*until_question(), TO_PAYPAL, *CONFIRM, *CONFIRM])
    async with call_session(model, settings=settings) as session:
        await reach_question(session)
        await session.run(user_input="PayPal")
        await session.run(user_input="Hmm, is that safe?")
        assert isinstance(session.current_agent, PaymentChangeTask)
        await session.run(user_input="I'm not sure")
        refused = tool_outputs(session, "confirm_payment_change")
        assert len(refused) == payment_change.MAX_REFUSED_CONFIRMATIONS
        (output,) = tool_outputs(session, "change_payment_method")
        assert (output.output, output.is_error) == (WORDING.nothing_done, True)
        await assert_unchanged(session)
    assert not model.overran


async def test_a_confirm_sent_with_the_record_waits_for_the_callers_yes(
    settings: Settings,
) -> None:
    both = Parallel((TO_PAYPAL, Call("confirm_payment_change")))
    model = ScriptedLLM([*until_question(), both, relay, *CONFIRM])
    async with call_session(model, settings=settings) as session:
        await reach_question(session)
        await session.run(user_input="Yes, PayPal, yes")
        (early,) = tool_outputs(session, "confirm_payment_change")
        assert early.is_error
        assert READ_BACK in agent_lines(session)
        await assert_unchanged(session)
        await session.run(user_input="Yes")
        assert len(await audit_events(session, kind="order_payment_changed")) == 1
    assert not model.overran


async def test_a_change_made_elsewhere_while_the_caller_decides_is_told_and_not_made_twice(
    settings: Settings,
) -> None:
    model = ScriptedLLM([*until_question(), TO_PAYPAL, *CONFIRM])
    async with call_session(model, settings=settings) as session:
        store = session.userdata.store
        await reach_question(session)
        await session.run(user_input="PayPal")
        # Another call pays the order with PayPal while this caller hears the read-back.
        elsewhere = await store.change_order_payment(
            order_id="200202", customer_id="C-1002", payment_method_id=PAYPAL, call_id="other"
        )
        assert elsewhere.done
        await session.run(user_input="Yes")
        (output,) = tool_outputs(session, "change_payment_method")
        assert (output.output, output.is_error) == (
            "Order 2 0 0, 2 0 2's payment has already been changed or refunded, so I can't "
            f"change it again here. {OFFER_HUMAN}",
            True,
        )
        assert len(await payments(session)) == 3
        assert await gift_card_balance(session) == Decimal("112.00")
    assert not model.overran


READ_BACK_AGAIN = (ChangeRefusal.CHANGED_SINCE_READ_BACK, ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW)
"""What the store answers when the order or the card's free balance changed after the
read-back: the change is read back again on the new facts, not refused."""


@pytest.mark.parametrize("refusal", sorted(set(ChangeRefusal) - set(READ_BACK_AGAIN)))
def test_every_refusal_of_the_store_is_a_sentence_without_internal_words(
    refusal: ChangeRefusal,
) -> None:
    from support.clock import DEMO_ORDERS

    order = OrderLookupResult.from_order(
        next(order for order in DEMO_ORDERS if order.order_id == "200202")
    )
    paid = order.payments[0]
    paypal = PaymentMethod(method_id=PAYPAL, kind=PaymentKind.PAYPAL)
    with pytest.raises(ToolError) as raised:
        payment_change.payment_change_said(order, Changed.refused(refusal), paid, paypal, None)
    said = str(raised.value)
    assert said.endswith((".", "?"))
    assert "_" not in said
    assert refusal.value not in said
