"""Paying a pending order with another of the caller's methods, driven through real
sessions with a scripted model."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from livekit.agents import AgentSession, APIStatusError, ToolError, llm
from livekit.agents.llm import ChatContext

from customer_service.call.state import CallState
from customer_service.call.wording import NOTHING_TO_CONFIRM_YET, OFFER_HUMAN
from customer_service.domain import (
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    Transaction,
    TransactionKind,
)
from customer_service.pipeline.resilience import LLM_FAILURE_APOLOGY, speak_failures
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
    PRIYA_SAYS,
    agent_lines,
    audit_events,
    order_now,
    tool_outputs,
)
from support.order_request import OrderRequest
from support.own_tests import OfflineChat
from support.scripted_llm import Call, Parallel, ScriptedLLM, Step
from support.scripted_llm import relay_tool_output as relay
from support.stand_in_llm import StandInLLM, StandInStream
from support.store_records import save_orders, save_payment_methods, stored_order
from support.swaps import gift_card_balance

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
    "The 72 dollars for order 2 0 0, 2 0 2 will be charged to your PayPal account instead. "
    f"{GIFT_CARD_REFUND} Shall I make this change? Please say yes or no."
)
CHANGED = f"Done. Order 2 0 0, 2 0 2 is now paid with your PayPal account. {GIFT_CARD_REFUND}"
TO_PAYPAL = Call("record_payment_change", {"payment_method_id": PAYPAL})
AMEX = PaymentMethod(
    method_id="credit_card_9000203", kind=PaymentKind.CREDIT_CARD, brand="amex", last_four="1005"
)


REQUEST = OrderRequest(
    supervisor_tool="change_payment_method",
    asking="I'd like to change how order {order_id} is paid",
    order_id="200202",
    caller=PRIYA,
    says=PRIYA_SAYS,
    task_tools=TASK_TOOLS,
    confirm_tool="confirm_payment_change",
)
until_question = REQUEST.until_question
reach_question = REQUEST.reach_question
refusal_before_the_task = REQUEST.refused_before_the_task
CONFIRM = REQUEST.confirm


async def payments(session: AgentSession[CallState], order_id: str = "200202") -> list[Any]:
    order = await stored_order(session.userdata.store, order_id)
    return [(t.kind, t.amount, t.method_id) for t in order.payments]


async def assert_unchanged(session: AgentSession[CallState]) -> None:
    assert await payments(session) == [(TransactionKind.PAYMENT, Decimal("72.00"), GIFT_CARD)]
    assert await gift_card_balance(session) == Decimal("40.00")
    assert await audit_events(session, kind="order_payment_changed") == []


async def test_a_clear_yes_pays_the_order_with_the_new_method_and_refunds_the_old(
    settings: Settings,
) -> None:
    async with REQUEST.at_question(settings, TO_PAYPAL, *CONFIRM) as session:
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


async def test_a_yes_that_names_another_method_than_the_read_back_changes_nothing(
    settings: Settings,
) -> None:
    # The read-back pays with PayPal and names the gift card only as where the money goes
    # back: "yes, the gift card" corrects the choice, whatever the model makes of it.
    async with REQUEST.at_question(settings, TO_PAYPAL, *CONFIRM) as session:
        await session.run(user_input="Yes, PayPal")
        assert agent_lines(session)[-1] == READ_BACK
        await session.run(user_input="Yes, the gift card")
        [refused] = tool_outputs(session, "confirm_payment_change")
        assert (refused.output, refused.is_error) == (WORDING.not_a_clear_yes, True)
        assert isinstance(session.current_agent, PaymentChangeTask)
        await assert_unchanged(session)


class FailsToRelay(ScriptedLLM):
    """The scripted model, whose request to relay `tool`'s result fails (the provider is
    down for that one request); every other request follows the script."""

    def __init__(self, steps: list[Step], *, tool: str) -> None:
        super().__init__(steps)
        self.tool = tool
        self.failed = 0

    def chat(self, *, chat_ctx: ChatContext, **options: Any) -> llm.LLMStream:
        last = chat_ctx.items[-1] if chat_ctx.items else None
        if isinstance(last, llm.FunctionCallOutput) and last.name == self.tool:
            self.failed += 1
            down = APIStatusError("Service Unavailable", status_code=503, retryable=False)
            return StandInStream(StandInLLM(error=down), chat_ctx=chat_ctx, **options)
        return super().chat(chat_ctx=chat_ctx, **options)


async def test_a_change_made_is_said_when_the_model_fails_to_relay_it(
    settings: Settings,
) -> None:
    # The change is made; the model's reply that was to tell the caller fails. Code says
    # the outcome instead of asking the caller to say it again.
    model = FailsToRelay(
        [*until_question(), TO_PAYPAL, Call("confirm_payment_change")],
        tool="change_payment_method",
    )
    async with call_session(speak_failures(model), settings=settings) as session:
        await reach_question(session)
        await session.run(user_input="Yes, PayPal")
        await session.run(user_input="Yes please")
        assert model.failed == 1
        assert agent_lines(session)[-1] == CHANGED
        assert LLM_FAILURE_APOLOGY not in agent_lines(session)
        assert (await payments(session))[1] == (
            TransactionKind.PAYMENT,
            Decimal("72.00"),
            PAYPAL,
        )
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
    async with REQUEST.at_question_on(demo_database_url, settings, to_amex, *CONFIRM) as session:
        assert agent_lines(session)[-1] == (
            "Order 2 0 0, 2 0 2 is paid with your PayPal account. Which would you like to pay "
            "it with instead: your gift card, which has 40 dollars on it or your Amex card "
            "ending in 1 0 0 5?"
        )
        await session.run(user_input="the Amex")
        assert agent_lines(session)[-1] == (
            "The 72 dollars for order 2 0 0, 2 0 2 will be charged to your Amex card ending in "
            "1 0 0 5 instead. You get 72 dollars back. It reaches your PayPal account in five to "
            "seven business days. Shall I make this change? Please say yes or no."
        )
        await session.run(user_input="yes")
        assert [p[2] for p in await payments(session)] == [PAYPAL, AMEX.method_id, PAYPAL]
        assert await gift_card_balance(session) == Decimal("40.00")


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
    async with REQUEST.at_question(
        settings, wrong, relay, Call("confirm_payment_change"), relay
    ) as session:
        await session.run(user_input="the other one")
        (output,) = tool_outputs(session, "record_payment_change")
        assert output.is_error
        assert output.output.startswith(refusal)
        assert JORDANS_VISA not in output.output
        await session.run(user_input="yes")
        (early,) = tool_outputs(session, "confirm_payment_change")
        assert (early.output, early.is_error) == (NOTHING_TO_CONFIRM_YET, True)
        await assert_unchanged(session)


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
    async with REQUEST.at_question_on(demo_database_url, settings, to_gift_card, relay) as session:
        await session.run(user_input="the gift card")
        (output,) = tool_outputs(session, "record_payment_change")
        assert (output.output, output.is_error) == (
            "Your gift card doesn't have the order's 72 dollars on it, so it can't pay for it. "
            "Which payment method would you like to pay with instead?",
            True,
        )
        assert await payments(session) == [(TransactionKind.PAYMENT, Decimal("72.00"), PAYPAL)]
        assert await gift_card_balance(session) == Decimal("40.00")


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
        "The payment for order 2 0 0, 2 0 2 has already been changed or refunded, so I can't "
        f"change it again here. {OFFER_HUMAN}"
    )


async def test_a_no_changes_nothing_and_a_corrected_choice_is_the_one_made(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        await save_payment_methods(store, "C-1002", AMEX)
    to_amex = Call("record_payment_change", {"payment_method_id": AMEX.method_id})
    async with REQUEST.at_question_on(
        demo_database_url, settings, TO_PAYPAL, to_amex, *CONFIRM
    ) as session:
        await session.run(user_input="PayPal")
        await session.run(user_input="No wait, the Amex card")
        assert "charged to your Amex card ending in 1 0 0 5" in agent_lines(session)[-1]
        await assert_unchanged(session)
        await session.run(user_input="Yes")
        assert [p[2] for p in await payments(session)] == [GIFT_CARD, AMEX.method_id, GIFT_CARD]

    async with REQUEST.at_question(settings, TO_PAYPAL, Call("give_up"), relay) as session:
        await session.run(user_input="PayPal")
        await session.run(user_input="No, leave it as it is")
        (output,) = tool_outputs(session, "change_payment_method")
        assert (output.output, output.is_error) == (WORDING.nothing_done, True)
        await assert_unchanged(session)


async def test_unclear_answers_refuse_the_models_confirmations_up_to_the_cap(
    settings: Settings,
) -> None:
    async with REQUEST.at_question(settings, TO_PAYPAL, *CONFIRM, *CONFIRM) as session:
        await session.run(user_input="PayPal")
        await session.run(user_input="Hmm, is that safe?")
        assert isinstance(session.current_agent, PaymentChangeTask)
        await session.run(user_input="I'm not sure")
        refused = tool_outputs(session, "confirm_payment_change")
        assert len(refused) == payment_change.MAX_REFUSED_CONFIRMATIONS
        (output,) = tool_outputs(session, "change_payment_method")
        assert (output.output, output.is_error) == (WORDING.nothing_done, True)
        await assert_unchanged(session)


async def test_a_confirm_sent_with_the_record_waits_for_the_callers_yes(
    settings: Settings,
) -> None:
    both = Parallel((TO_PAYPAL, Call("confirm_payment_change")))
    async with REQUEST.at_question(settings, both, relay, *CONFIRM) as session:
        await session.run(user_input="Yes, PayPal, yes")
        (early,) = tool_outputs(session, "confirm_payment_change")
        assert early.is_error
        assert READ_BACK in agent_lines(session)
        await assert_unchanged(session)
        await session.run(user_input="Yes")
        assert len(await audit_events(session, kind="order_payment_changed")) == 1


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
            "The payment for order 2 0 0, 2 0 2 has already been changed or refunded, so I can't "
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


# --- what the suites every confirming specialist runs drive (support/confirming.py) ----


async def paid_with_paypal(session: AgentSession[CallState]) -> bool:
    payments = (await order_now(session, "200202")).payments
    return [payment.method_id for payment in payments][1:2] == [PAYPAL]


CONFIRMING = REQUEST.confirming(
    "With my PayPal account",
    TO_PAYPAL,
    changed=paid_with_paypal,
    nothing_changed=WORDING.nothing_done,
    # The caller keeps the gift card; the model confirms the change anyway.
    other_than_read_back=("No, keep the gift card", Call("confirm_payment_change")),
    # Another customer's card, the method that pays already.
    refused_records={
        "another-customers-method": Call(
            "record_payment_change", {"payment_method_id": JORDANS_VISA}
        ),
        "same-method": Call("record_payment_change", {"payment_method_id": GIFT_CARD}),
    },
)


OFFLINE_CHAT = OfflineChat(
    ("I'd like to pay for order 200202 with PayPal instead", PRIYA_SAYS, "yes", "yes", "bye")
)
"""A `make chat` that reaches it (tests/offline_llm/test_offline_model.py)."""
