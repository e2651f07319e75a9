"""Exchanges of delivered items, driven through real sessions with a scripted model."""

from __future__ import annotations

from decimal import Decimal

import pytest
from livekit.agents import AgentSession

from customer_service.call.state import CallState
from customer_service.domain import (
    ExchangeRequest,
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    ReturnedItems,
)
from customer_service.settings import Settings
from customer_service.specialists import exchange
from customer_service.specialists.exchange import WORDING, ExchangeTask
from customer_service.store import Store
from customer_service.store.order_changes import ChangeRefusal
from customer_service.supervisor import CustomerServiceAgent
from support.clock import DEMO_ORDERS
from support.conversation import PRIYA, agent_lines, audit_events, tool_outputs
from support.order_request import OrderRequest
from support.scripted_llm import Call, Parallel, Step
from support.scripted_llm import relay_tool_output as relay
from support.store_records import save_orders, save_payment_methods
from support.swaps import (
    BLOCK_CORK,
    BLOCK_FOAM,
    BOTTLE_GREEN,
    DELIVERED,
    GIFT_CARD,
    HEADPHONES_BLACK,
    JORDANS_CARD,
    MAT_4MM,
    MAT_6MM,
    PAYPAL,
    PENDING,
    PRIYA_SAYS,
    SwapCase,
    order_now,
    record,
)

EXCHANGE_TOOLS = frozenset({"record_exchange", "give_up"})
QUESTION = (
    "Order 2 0 0, 2 0 1 contains a Cork yoga mat and two Yoga blocks. Which items would you "
    "like to exchange, and for which version? An order can be exchanged only once, so please "
    "tell me every item you'd like to exchange now."
)
MAT_READ_BACK = (
    "You'd like to exchange a Cork yoga mat with thickness 4 mm for one with thickness 6 mm "
    "in order 2 0 0, 2 0 1. The new items cost 10 dollars more, paid with your PayPal "
    "account. That is settled once your items are back with us. Shall I request this "
    "exchange? Please say yes or no."
)
BLOCKS_READ_BACK = (
    "You'd like to exchange two Yoga blocks with material cork for ones with material foam "
    "in order 2 0 0, 2 0 1. The new items cost 10 dollars less, refunded to your gift card, "
    "which has 40 dollars on it. That is settled once your items are back with us. Shall I "
    "request this exchange? Please say yes or no."
)
MAT_REQUESTED = (
    "Done. An exchange is requested for order 2 0 0, 2 0 1. You'll get instructions for "
    "sending the items back, and your new items are sent once they arrive. The difference of "
    "10 dollars is paid with your PayPal account then."
)
RECORD_MAT = record("record_exchange", [MAT_4MM], [MAT_6MM], PAYPAL)
RECORD_BLOCKS = record("record_exchange", [BLOCK_CORK] * 2, [BLOCK_FOAM] * 2, GIFT_CARD)


REQUEST = OrderRequest(
    supervisor_tool="exchange_items",
    asking="I'd like to exchange something from order {order_id}",
    order_id=DELIVERED,
    caller=PRIYA,
    says=PRIYA_SAYS,
    task_tools=EXCHANGE_TOOLS,
    confirm_tool="confirm_exchange",
)
CONFIRM = REQUEST.confirm


async def assert_not_exchanged(session: AgentSession[CallState]) -> None:
    order = await order_now(session, DELIVERED)
    assert (order.status, order.exchange) == (OrderStatus.DELIVERED, None)
    assert await audit_events(session, kind="order_exchange_requested") == []


async def test_a_clear_yes_requests_the_exchange_with_its_difference_and_moves_no_money(
    settings: Settings,
) -> None:
    async with REQUEST.at_question(settings, RECORD_MAT, *CONFIRM) as session:
        assert agent_lines(session)[-1] == QUESTION
        assert session.userdata.disclosed_order_ids == [DELIVERED]
        paid_before = (await order_now(session, DELIVERED)).payments

        await session.run(user_input="The mat, I'd like the 6 mm one instead, with PayPal")
        assert agent_lines(session)[-1] == MAT_READ_BACK
        await assert_not_exchanged(session)

        confirmed = await session.run(user_input="Yes please")
        confirmed.expect.contains_agent_handoff(new_agent_type=CustomerServiceAgent)
        order = await order_now(session, DELIVERED)
        assert order.status is OrderStatus.EXCHANGE_REQUESTED
        assert order.exchange == ExchangeRequest(
            item_ids=(MAT_4MM,),
            new_item_ids=(MAT_6MM,),
            method_id=PAYPAL,
            price_difference=Decimal("10.00"),
        )
        # Settled when the items are back: nothing paid yet, the items as they were.
        assert order.payments == paid_before
        assert order.items == next(o for o in DEMO_ORDERS if o.order_id == DELIVERED).items
        (output,) = tool_outputs(session, "exchange_items")
        assert (output.output, output.is_error) == (MAT_REQUESTED, False)
        assert agent_lines(session)[-1] == MAT_REQUESTED
        [event] = await audit_events(session, kind="order_exchange_requested")
        assert event.call_id == session.userdata.call_id


async def test_units_of_a_line_and_a_refund_to_another_method_are_read_back(
    settings: Settings,
) -> None:
    async with REQUEST.at_question(settings, RECORD_BLOCKS, *CONFIRM) as session:
        await session.run(user_input="Both blocks for the foam ones, refund to my gift card")
        assert agent_lines(session)[-1] == BLOCKS_READ_BACK
        await session.run(user_input="yes")
        order = await order_now(session, DELIVERED)
        assert order.exchange is not None
        assert (order.exchange.method_id, order.exchange.price_difference) == (
            GIFT_CARD,
            Decimal("-10.00"),
        )


async def test_a_faulty_unit_is_exchanged_for_the_same_version(settings: Settings) -> None:
    same = record("record_exchange", [MAT_4MM], [MAT_4MM], PAYPAL)
    async with REQUEST.at_question(settings, same, *CONFIRM) as session:
        await session.run(user_input="The mat is faulty, I'd like a new one just the same")
        assert agent_lines(session)[-1] == WORDING.read_back(
            "You'd like to exchange a Cork yoga mat for a new one just the same in order "
            "2 0 0, 2 0 1. The price is the same, so nothing is paid or refunded."
        )
        await session.run(user_input="yes")
        order = await order_now(session, DELIVERED)
        assert order.exchange is not None
        assert order.exchange.new_item_ids == (MAT_4MM,)


@pytest.mark.parametrize(
    ("record", "read_back", "answer"),
    [
        (RECORD_MAT, MAT_READ_BACK, "Yes, with the gift card"),
        (RECORD_BLOCKS, BLOCKS_READ_BACK, "Yes, the cork ones"),
    ],
    ids=["another method", "the items as they are"],
)
async def test_a_yes_naming_another_method_or_item_than_chosen_requests_nothing(
    settings: Settings, record: Step, read_back: str, answer: str
) -> None:
    async with REQUEST.at_question(settings, record, *CONFIRM) as session:
        await session.run(user_input="the one I told you about")
        assert agent_lines(session)[-1] == read_back
        refused = await session.run(user_input=answer)
        refused.expect.contains_function_call_output(output=WORDING.not_a_clear_yes, is_error=True)
        await assert_not_exchanged(session)


async def test_a_gift_card_must_cover_what_it_pays(
    settings: Settings, demo_database_url: str
) -> None:
    low = PaymentMethod(
        method_id="gift_card_9000299", kind=PaymentKind.GIFT_CARD, balance=Decimal("5.00")
    )
    async with await Store.open(demo_database_url) as store:
        await save_payment_methods(store, "C-1002", low)
    too_low = record("record_exchange", [MAT_4MM], [MAT_6MM], "gift_card_9000299")
    async with REQUEST.at_question_on(demo_database_url, settings, too_low, relay) as session:
        await session.run(user_input="the mat, 6 mm, with my other gift card")
        (output,) = tool_outputs(session, "record_exchange")
        assert (output.output, output.is_error) == (
            "Your gift card has 5 dollars on it, which doesn't cover the difference of 10 "
            "dollars. Which other payment method would you like to use?",
            True,
        )
        await assert_not_exchanged(session)


async def test_a_return_requested_meanwhile_is_said_and_nothing_is_exchanged(
    settings: Settings, demo_database_url: str
) -> None:
    async with REQUEST.at_question_on(
        demo_database_url, settings, RECORD_MAT, Call("confirm_exchange"), relay
    ) as session:
        await session.run(user_input="the mat for the 6 mm one, PayPal")
        # Another call requests a return while this caller decides.
        order = await order_now(session, DELIVERED)
        returned = ReturnedItems(item_ids=(MAT_4MM,), method_id=PAYPAL)
        update = {"status": OrderStatus.RETURN_REQUESTED, "returned": returned}
        await save_orders(session.userdata.store, order.model_copy(update=update))
        await session.run(user_input="yes")
        (output,) = tool_outputs(session, "exchange_items")
        assert (output.output, output.is_error) == (
            "Order 2 0 0, 2 0 1 can't be exchanged any more: a return or an exchange was "
            "requested for it meanwhile.",
            True,
        )
        assert (await order_now(session, DELIVERED)).exchange is None


@pytest.mark.parametrize("calls", [("confirm_exchange",) * 2, ("confirm_exchange", "give_up")])
async def test_parallel_confirmations_request_at_most_once(
    settings: Settings, calls: tuple[str, ...]
) -> None:
    async with REQUEST.at_question(
        settings, RECORD_MAT, Parallel(tuple(map(Call, calls))), relay
    ) as session:
        await session.run(user_input="the mat for the 6 mm one, PayPal")
        await session.run(user_input="Yes")
        requested = await audit_events(session, kind="order_exchange_requested")
        assert len(requested) <= 1
        (output,) = tool_outputs(session, "exchange_items")
        assert output.output == (MAT_REQUESTED if requested else WORDING.nothing_done)
        if calls[0] == calls[1]:
            assert len(requested) == 1


class TamperedTask(ExchangeTask):
    """A specialist whose first confirmed result swaps the mat for another product's
    variant (a bug, or a result built by anything): the supervisor's check refuses it."""

    tampered = 0

    def finish(self, result: object) -> None:
        if isinstance(result, exchange.ExchangeResult) and TamperedTask.tampered == 0:
            TamperedTask.tampered += 1
            result = result.model_copy(update={"new_item_ids": (HEADPHONES_BLACK,)})
        super().finish(result)  # type: ignore[arg-type]


async def test_a_result_that_breaks_a_rule_is_rejected_and_asked_again(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TamperedTask, "tampered", 0)
    monkeypatch.setattr(exchange, "ExchangeTask", TamperedTask)
    async with REQUEST.at_question(
        settings, RECORD_MAT, CONFIRM[0], RECORD_MAT, *CONFIRM
    ) as session:
        await session.run(user_input="the mat for the 6 mm one, PayPal")
        await session.run(user_input="yes")
        await assert_not_exchanged(session)
        assert agent_lines(session)[-1] == QUESTION
        await session.run(user_input="the mat for the 6 mm one, PayPal")
        await session.run(user_input="yes")
        assert (await order_now(session, DELIVERED)).exchange is not None


# --- what the suites every swap and every confirming specialist run drive ------------


async def blocks_exchanged(session: AgentSession[CallState]) -> None:
    order = await order_now(session, DELIVERED)
    assert order.exchange is not None
    assert order.exchange.item_ids == (BLOCK_CORK, BLOCK_CORK)


ANOTHER_METHOD = "I can use your PayPal account and your gift card, which has 40 dollars on it."
WHICH_ITEMS = (
    "Order 2 0 0, 2 0 1 contains a Cork yoga mat and two Yoga blocks. Which of them would "
    "you like to exchange?"
)
SWAP = SwapCase(
    request=REQUEST,
    record=RECORD_MAT,
    said="the mat for the 6 mm one, PayPal",
    correction=RECORD_BLOCKS,
    said_correcting="No wait, not the mat: the blocks, foam, to my gift card",
    correction_read_back=BLOCKS_READ_BACK,
    corrected=blocks_exchanged,
    unchanged=assert_not_exchanged,
    refused={
        "none": (([], [], PAYPAL), "Which items would you like to exchange?"),
        "more-units-than-ordered": (([BLOCK_CORK] * 3, [BLOCK_FOAM] * 3, PAYPAL), WHICH_ITEMS),
        "not-in-order": (([BOTTLE_GREEN], [BOTTLE_GREEN], PAYPAL), WHICH_ITEMS),
        "count": (
            ([MAT_4MM, BLOCK_CORK], [MAT_6MM], PAYPAL),
            "Please tell me which version you'd like for each item you exchange.",
        ),
        "other-product": (
            ([MAT_4MM], [HEADPHONES_BLACK], PAYPAL),
            "The cork yoga mat can only become another version of it: thickness 4 mm and "
            "thickness 6 mm. Which would you like?",
        ),
        "another-customers-method": (
            ([MAT_4MM], [MAT_6MM], JORDANS_CARD),
            f"{ANOTHER_METHOD} Which would you like?",
        ),
        "invented-method": (
            ([MAT_4MM], [MAT_6MM], "gift_card_5"),
            f"{ANOTHER_METHOD} Which would you like?",
        ),
    },
    not_swappable={
        OrderStatus.PENDING: "Order 2 0 0, 2 0 1 hasn't been delivered yet, so its items "
        "can't be exchanged, but they can still be changed. Would you like me to change the "
        "items?",
        OrderStatus.PENDING_ITEMS_MODIFIED: "Order 2 0 0, 2 0 1 hasn't been delivered yet, "
        "and its items were already changed once, so they can't be exchanged or changed "
        "again.",
        OrderStatus.PROCESSED: "Order 2 0 0, 2 0 1 is on its way. Once it arrives, its items "
        "can be exchanged.",
        OrderStatus.EXCHANGE_REQUESTED: "An exchange is already requested for order 2 0 0, "
        "2 0 1: an order is exchanged once.",
        OrderStatus.RETURN_REQUESTED: "A return is requested for order 2 0 0, 2 0 1, so it "
        "can't be exchanged as well.",
        OrderStatus.CANCELLED: "Order 2 0 0, 2 0 1 is cancelled, so there is nothing to exchange.",
    },
    offered_instead=PENDING,
    # An item change's own refusals are not an exchange's.
    not_its_refusals=frozenset({ChangeRefusal.NOT_PENDING, ChangeRefusal.ITEMS_ALREADY_CHANGED}),
)


async def mat_exchanged(session: AgentSession[CallState]) -> bool:
    exchanged = (await order_now(session, DELIVERED)).exchange
    return exchanged is not None and (exchanged.new_item_ids, exchanged.method_id) == (
        (MAT_6MM,),
        PAYPAL,
    )


CONFIRMING = REQUEST.confirming(
    "The mat, for the 6 mm one, with PayPal",
    RECORD_MAT,
    changed=mat_exchanged,
    nothing_changed=WORDING.nothing_done,
    # The caller says yes to the mat; the model records the blocks and confirms.
    other_than_read_back=("Yes", Parallel((RECORD_BLOCKS, Call("confirm_exchange")))),
    beyond_the_caller=(
        record("record_exchange", [MAT_4MM], [MAT_6MM], JORDANS_CARD),
        record("record_exchange", [MAT_4MM], [HEADPHONES_BLACK], PAYPAL),
    ),
)


OFFLINE_CHAT = REQUEST.offline_chat("the mat, for the 6 mm one, with paypal", "no", "bye")
"""A `make chat` that reaches it (tests/offline_llm/test_offline_model.py)."""
