"""Money moves as the caller heard it: to the method that holds the order's money, on the
facts the read-back said, from what a gift card has free, and said as it happened, even
after a fault. Real sessions with a scripted model, on every backend."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from customer_service.call.heard_facts import CHANGED_SINCE_READ_BACK
from customer_service.call.refunds import refund_said, refunds_said
from customer_service.call.wording import STORE_APOLOGY_UNSURE, spaced_digits
from customer_service.domain import (
    ExchangeRequest,
    Order,
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    Transaction,
    TransactionKind,
)
from customer_service.settings import Settings
from customer_service.store import Store, StoreUnavailable
from customer_service.store.catalog import VariantRow
from customer_service.store.payments import PaymentMethodRow
from customer_service.testing import call_session
from support.clock import TEST_DAY
from support.conversation import PRIYA, agent_lines, audit_events, tool_outputs, verifying_for
from support.faults import lose_after_commit
from support.scripted_llm import Call, ScriptedLLM, Step
from support.scripted_llm import relay_tool_output as relay
from support.store_records import save_orders, stored_order
from support.swaps import (
    BOTTLE_BLUE,
    BOTTLE_BLUE_750,
    DELIVERED,
    GIFT_CARD,
    MAT_4MM,
    MAT_6MM,
    PAYPAL,
    PENDING,
    PRIYA_SAYS,
    gift_card_balance,
    order_now,
    record,
)

PRIYA_ID = "C-1002"


def _paid(kind: TransactionKind, amount: str, method_id: str) -> Transaction:
    return Transaction(kind=kind, amount=Decimal(amount), method_id=method_id)


def _moved(order: Order, to: str, amount: str) -> Order:
    """`order` as a payment change to `to` leaves it: paid again by `to`, the first
    method paid back in full."""
    [paid] = order.payments
    return order.model_copy(
        update={
            "payments": (
                paid,
                _paid(TransactionKind.PAYMENT, amount, to),
                _paid(TransactionKind.REFUND, amount, paid.method_id),
            )
        }
    )


async def _set_gift_card_balance(store: Store, amount: str) -> None:
    async with AsyncSession(store.engine) as session, session.begin():
        await session.execute(
            update(PaymentMethodRow)
            .where(PaymentMethodRow.method_id == GIFT_CARD)
            .values(balance_cents=int(Decimal(amount) * 100))
        )


async def _set_price(store: Store, item_id: str, amount: str) -> None:
    async with AsyncSession(store.engine) as session, session.begin():
        await session.execute(
            update(VariantRow)
            .where(VariantRow.item_id == item_id)
            .values(price_cents=int(Decimal(amount) * 100))
        )


CANCELLING: list[Step] = [
    Call("record_cancellation_reason", {"reason": "no longer needed"}),
    Call("confirm_cancellation"),
    relay,
]


def _until(tool: str, order_id: str) -> list[Step]:
    return [*verifying_for(tool, order_id, PRIYA)]


async def _ask(session: Any, request: str) -> None:
    await session.run(user_input=request)
    await session.run(user_input=PRIYA_SAYS)


async def test_a_return_after_a_payment_change_is_refunded_to_the_method_that_paid(
    settings: Settings, demo_database_url: str
) -> None:
    # Order 200201 (97.00) was moved from PayPal to the gift card before it was delivered:
    # PayPal was paid back in full, the gift card holds the order's money.
    async with await Store.open(demo_database_url) as store:
        await save_orders(store, _moved(await stored_order(store, DELIVERED), GIFT_CARD, "97.00"))
    returning = Call("record_return", {"item_numbers": [1, 2], "reason": "no_longer_needed"})
    model = ScriptedLLM(
        [*_until("request_return", DELIVERED), returning, Call("confirm_return"), relay]
    )
    async with call_session(model, settings=settings, database_url=demo_database_url) as session:
        await _ask(session, f"I'd like to return order {DELIVERED}")
        # One place the refund may go, so it is said, not asked.
        assert "PayPal" not in agent_lines(session)[-1]
        await session.run(user_input="I don't need them any more")
        assert agent_lines(session)[-1].endswith(
            "Once the items are back with us, you get 97 dollars back. It goes back onto your "
            "gift card straight away. Shall I request this return? Please say yes or no."
        )
        await session.run(user_input="yes")
        returned = await order_now(session, DELIVERED)
        assert returned.returned is not None
        assert returned.returned.method_id == GIFT_CARD
        [event] = await audit_events(session, kind="return_requested")
        assert (event.detail["refund_method_id"], event.detail["refund"]) == (GIFT_CARD, "97.00")
    assert not model.overran


async def test_a_cancellation_paid_otherwise_before_the_yes_is_read_back_again(
    settings: Settings,
) -> None:
    reason = Call("record_cancellation_reason", {"reason": "no longer needed"})
    confirm = Call("confirm_cancellation")
    model = ScriptedLLM([*_until("cancel_order", PENDING), reason, confirm, confirm, relay])
    async with call_session(model, settings=settings) as session:
        store = session.userdata.store
        await _ask(session, f"I'd like to cancel order {PENDING}")
        await session.run(user_input="I don't need it")
        to_gift_card = "You get 72 dollars back. It goes back onto your gift card straight away."
        assert to_gift_card in agent_lines(session)[-1]
        # Another call pays the order with PayPal before this caller's yes.
        moved = await store.change_order_payment(
            order_id=PENDING, customer_id=PRIYA_ID, payment_method_id=PAYPAL, call_id="other"
        )
        assert moved.done

        await session.run(user_input="yes")

        to_paypal = (
            "You get 72 dollars back. It reaches your PayPal account in five to seven business "
            "days."
        )
        read_again = agent_lines(session)[-1]
        assert read_again.startswith(f"{CHANGED_SINCE_READ_BACK} I'll cancel order 2 0 0, 2 0 2")
        assert to_paypal in read_again
        assert (await order_now(session, PENDING)).status is OrderStatus.PENDING
        assert await audit_events(session, kind="order_cancelled") == []

        await session.run(user_input="yes, cancel it")

        [output] = tool_outputs(session, "cancel_order")
        assert output.output == f"Done. Order 2 0 0, 2 0 2 is cancelled. {to_paypal}"
        cancelled = await order_now(session, PENDING)
        assert cancelled.status is OrderStatus.CANCELLED
        # PayPal paid back what it holds, once; the gift card was credited by the move only.
        assert cancelled.payments[3:] == (_paid(TransactionKind.REFUND, "72.00", PAYPAL),)
        assert await gift_card_balance(session) == Decimal("112.00")
    assert not model.overran


async def test_an_exchange_whose_price_changed_before_the_yes_is_read_back_again(
    settings: Settings,
) -> None:
    mat = record("record_exchange", [MAT_4MM], [MAT_6MM], PAYPAL)
    confirm = Call("confirm_exchange")
    model = ScriptedLLM([*_until("exchange_items", DELIVERED), mat, confirm, confirm, relay])
    async with call_session(model, settings=settings) as session:
        await _ask(session, f"I'd like to exchange something from order {DELIVERED}")
        await session.run(user_input="the mat, in 6 mm, with PayPal")
        assert "The new items cost 10 dollars more" in agent_lines(session)[-1]
        # The catalog's price of the 6 mm mat goes up before the caller's yes.
        await _set_price(session.userdata.store, MAT_6MM, "88.00")

        await session.run(user_input="yes")

        read_again = agent_lines(session)[-1]
        assert read_again.startswith(CHANGED_SINCE_READ_BACK)
        assert "The new items cost 20 dollars more, paid with your PayPal account." in read_again
        assert (await order_now(session, DELIVERED)).exchange is None

        await session.run(user_input="yes")

        exchanged = await order_now(session, DELIVERED)
        assert exchanged.exchange == ExchangeRequest(
            item_ids=(MAT_4MM,),
            new_item_ids=(MAT_6MM,),
            method_id=PAYPAL,
            price_difference=Decimal("20.00"),
        )
    assert not model.overran


@pytest.mark.parametrize("second", ["change_items", "exchange_items"])
async def test_a_second_change_on_one_card_hears_what_an_exchange_left_free(
    settings: Settings, demo_database_url: str, second: str
) -> None:
    # The mat's exchange (10.00 more) holds 10.00 of the gift card's 15.00 until it settles.
    async with await Store.open(demo_database_url) as store:
        await _set_gift_card_balance(store, "15.00")
        held = await store.exchange_order_items(
            order_id=DELIVERED,
            customer_id=PRIYA_ID,
            item_ids=[MAT_4MM],
            new_item_ids=[MAT_6MM],
            payment_method_id=GIFT_CARD,
            call_id="earlier",
        )
        assert held.done
        if second == "exchange_items":
            bottles_order = await stored_order(store, PENDING)
            delivered = {"status": OrderStatus.DELIVERED, "delivered_on": TEST_DAY}
            await save_orders(store, bottles_order.model_copy(update=delivered))
    record_tool = "record_item_change" if second == "change_items" else "record_exchange"
    bottles = record(record_tool, [BOTTLE_BLUE] * 3, [BOTTLE_BLUE_750] * 3, GIFT_CARD)
    model = ScriptedLLM([*_until(second, PENDING), bottles])
    async with call_session(model, settings=settings, database_url=demo_database_url) as session:
        before = await order_now(session, PENDING)
        await _ask(session, f"I'd like other bottles in order {PENDING}")
        await session.run(user_input="all three in 750 ml, from my gift card")
        [output] = tool_outputs(session, record_tool)
        assert output.output == (
            "Your gift card has 5 dollars on it, which doesn't cover the difference of 12 "
            "dollars. Which other payment method would you like to use?"
        )
        assert await order_now(session, PENDING) == before


async def test_after_a_payment_change_the_gift_cards_balance_said_is_after_the_charge(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        order = await stored_order(store, PENDING)
        by_paypal = _paid(TransactionKind.PAYMENT, "72.00", PAYPAL)
        await save_orders(store, order.model_copy(update={"payments": (by_paypal,)}))
        await _set_gift_card_balance(store, "100.00")
    to_gift_card = Call("record_payment_change", {"payment_method_id": GIFT_CARD})
    model = ScriptedLLM(
        [
            *_until("change_payment_method", PENDING),
            to_gift_card,
            Call("confirm_payment_change"),
            relay,
        ]
    )
    async with call_session(model, settings=settings, database_url=demo_database_url) as session:
        await _ask(session, f"I'd like to pay order {PENDING} differently")
        await session.run(user_input="the gift card")
        assert "your gift card, which has 100 dollars on it instead" in agent_lines(session)[-1]
        await session.run(user_input="yes")
        [output] = tool_outputs(session, "change_payment_method")
        assert output.output.startswith(
            "Done. Order 2 0 0, 2 0 2 is now paid with your gift card, which has 28 dollars on it."
        )
        assert await gift_card_balance(session) == Decimal("28.00")
    assert not model.overran


async def test_a_fault_after_the_cancellation_committed_is_said_as_done(
    settings: Settings,
) -> None:
    reason = Call("record_cancellation_reason", {"reason": "no longer needed"})
    model = ScriptedLLM(
        [*_until("cancel_order", PENDING), reason, Call("confirm_cancellation"), relay]
    )
    async with call_session(model, settings=settings) as session:
        lose_after_commit(session.userdata.store, "cancel_order")
        await _ask(session, f"I'd like to cancel order {PENDING}")
        await session.run(user_input="I don't need it")
        await session.run(user_input="yes")

        [output] = tool_outputs(session, "cancel_order")
        assert (output.output, output.is_error) == (
            "Done. Order 2 0 0, 2 0 2 is cancelled. You get 72 dollars back. It goes back onto "
            "your gift card straight away.",
            False,
        )
        assert (await order_now(session, PENDING)).status is OrderStatus.CANCELLED
    assert not model.overran


async def test_a_fault_whose_outcome_cannot_be_read_back_is_not_said_as_nothing_changed(
    settings: Settings,
) -> None:
    reason = Call("record_cancellation_reason", {"reason": "no longer needed"})
    model = ScriptedLLM(
        [*_until("cancel_order", PENDING), reason, Call("confirm_cancellation"), relay]
    )
    async with call_session(model, settings=settings) as session:
        store = session.userdata.store

        async def unreachable(order_id: str) -> Order | None:
            raise StoreUnavailable("still down")

        await _ask(session, f"I'd like to cancel order {PENDING}")
        await session.run(user_input="I don't need it")
        lose_after_commit(store, "cancel_order")
        store.get_order = unreachable  # type: ignore[method-assign]
        await session.run(user_input="yes")

        [output] = tool_outputs(session, "cancel_order")
        assert (output.output, output.is_error) == (STORE_APOLOGY_UNSURE, True)
    assert not model.overran


def test_refunds_said_count_only_refunds() -> None:
    card = PaymentMethod(
        method_id="credit_card_1",
        kind=PaymentKind.CREDIT_CARD,
        brand="mastercard",
        last_four="4321",
    )
    gift_card = PaymentMethod(method_id=GIFT_CARD, kind=PaymentKind.GIFT_CARD, balance=Decimal(0))
    history = [
        _paid(TransactionKind.PAYMENT, "106.86", GIFT_CARD),
        _paid(TransactionKind.REFUND, "53.43", card.method_id),
    ]

    assert refunds_said(history, [card, gift_card]) == refund_said(Decimal("53.43"), card)


async def test_a_fault_after_an_item_change_committed_is_said_as_done(settings: Settings) -> None:
    bottles = record("record_item_change", [BOTTLE_BLUE] * 3, [BOTTLE_BLUE_750] * 3, GIFT_CARD)
    model = ScriptedLLM(
        [*_until("change_items", PENDING), bottles, Call("confirm_item_change"), relay]
    )
    async with call_session(model, settings=settings) as session:
        lose_after_commit(session.userdata.store, "change_order_items")
        await _ask(session, f"I'd like to change the items of order {PENDING}")
        await session.run(user_input="all three in 750 ml, from my gift card")
        await session.run(user_input="yes")

        [output] = tool_outputs(session, "change_items")
        assert (output.output, output.is_error) == (
            "Done. The items of order 2 0 0, 2 0 2 are changed, and it is still being "
            "processed. The difference of 12 dollars is paid.",
            False,
        )
        assert await gift_card_balance(session) == Decimal("28.00")
    assert not model.overran


async def test_a_payment_change_whose_card_an_exchange_took_meanwhile_is_not_made(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        order = await stored_order(store, PENDING)
        by_paypal = _paid(TransactionKind.PAYMENT, "72.00", PAYPAL)
        await save_orders(store, order.model_copy(update={"payments": (by_paypal,)}))
        await _set_gift_card_balance(store, "80.00")
    to_gift_card = Call("record_payment_change", {"payment_method_id": GIFT_CARD})
    model = ScriptedLLM(
        [*_until("change_payment_method", PENDING), to_gift_card, Call("confirm_payment_change")]
    )
    async with call_session(model, settings=settings, database_url=demo_database_url) as session:
        await _ask(session, f"I'd like to pay order {PENDING} differently")
        await session.run(user_input="the gift card")
        assert "your gift card, which has 80 dollars on it instead" in agent_lines(session)[-1]
        # Another call's exchange holds 10.00 of the card before this caller's yes.
        held = await session.userdata.store.exchange_order_items(
            order_id=DELIVERED,
            customer_id=PRIYA_ID,
            item_ids=[MAT_4MM],
            new_item_ids=[MAT_6MM],
            payment_method_id=GIFT_CARD,
            call_id="other",
        )
        assert held.done

        await session.run(user_input="yes")

        assert agent_lines(session)[-1] == (
            f"{CHANGED_SINCE_READ_BACK} Your gift card doesn't have the order's 72 dollars on "
            "it, so it can't pay for it. Which payment method would you like to pay with "
            "instead?"
        )
        assert (await order_now(session, PENDING)).payments == (by_paypal,)
        assert await gift_card_balance(session) == Decimal("70.00")


async def test_a_fault_after_a_return_or_a_payment_change_committed_is_said_as_done(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        await _set_gift_card_balance(store, "100.00")
    returning = Call("record_return", {"item_numbers": [1], "reason": "damaged"})
    to_paypal = Call("record_payment_change", {"payment_method_id": PAYPAL})
    model = ScriptedLLM(
        [
            *_until("request_return", DELIVERED),
            Call("record_return", {**returning.arguments, "refund_method_id": PAYPAL}),
            Call("confirm_return"),
            relay,
            Call("change_payment_method", {"order_id": PENDING}),
            to_paypal,
            Call("confirm_payment_change"),
            relay,
        ]
    )
    async with call_session(model, settings=settings, database_url=demo_database_url) as session:
        store = session.userdata.store
        lose_after_commit(store, "request_return", "change_order_payment")
        await _ask(session, f"I'd like to return order {DELIVERED}")
        await session.run(user_input="the mat, it broke, back to PayPal")
        await session.run(user_input="yes")
        [returned] = tool_outputs(session, "request_return")
        [request] = await store.return_requests(order_id=DELIVERED)
        number = spaced_digits(request.return_number)
        assert (returned.output, returned.is_error) == (
            f"Your return is requested. Your return number is {number}. Once more, that's "
            f"{number}.",
            False,
        )

        await session.run(user_input=f"And please pay order {PENDING} with PayPal instead")
        await session.run(user_input="PayPal")
        await session.run(user_input="yes")
        [changed] = tool_outputs(session, "change_payment_method")
        assert (changed.output, changed.is_error) == (
            "Done. Order 2 0 0, 2 0 2 is now paid with your PayPal account. You get 72 dollars "
            "back. It goes back onto your gift card straight away.",
            False,
        )
        assert await gift_card_balance(session) == Decimal("172.00")
    assert not model.overran
