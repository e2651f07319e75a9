"""Item changes of pending orders, driven through real sessions with a scripted model."""

from __future__ import annotations

from decimal import Decimal

from livekit.agents import AgentSession

from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN
from customer_service.domain import OrderItem, OrderStatus, Transaction, TransactionKind
from customer_service.settings import Settings
from customer_service.specialists import item_change
from customer_service.specialists.item_change import WORDING
from customer_service.store import Store
from customer_service.store.demo_catalog import demo_variant
from customer_service.store.order_changes import ChangeRefusal
from customer_service.supervisor import CustomerServiceAgent
from support.conversation import (
    PRIYA,
    agent_lines,
    audit_events,
    tool_outputs,
)
from support.order_request import OrderRequest
from support.scripted_llm import Call, Parallel
from support.scripted_llm import relay_tool_output as relay
from support.store_records import change_order, save_orders
from support.swaps import (
    BOTTLE_BLUE,
    BOTTLE_BLUE_750,
    BOTTLE_GREEN,
    BOTTLE_GREEN_750,
    DELIVERED,
    GIFT_CARD,
    HEADPHONES_BLACK,
    JORDANS_CARD,
    MAT_6MM,
    PAYPAL,
    PENDING,
    PRIYA_SAYS,
    SwapCase,
    gift_card_balance,
    order_now,
    record,
)

ITEM_CHANGE_TOOLS = frozenset({"record_item_change", "give_up"})
QUESTION = (
    "Order 2 0 0, 2 0 2 contains three Stainless steel water bottles. Which items would you "
    "like to change, and to which version? Please tell me every item now: after this change, "
    "the order can't be changed again or cancelled."
)
BIGGER_READ_BACK = (
    "You'd like to change three Stainless steel water bottles with capacity 500 ml for ones "
    "with capacity 750 ml in order 2 0 0, 2 0 2. The new items cost 12 dollars more, paid "
    "with your gift card, which has 40 dollars on it. That is settled as soon as you say "
    "yes. Shall I make this change? Please say yes or no."
)
GREEN_READ_BACK = (
    "You'd like to change a Stainless steel water bottle with color blue for one with color "
    "green in order 2 0 0, 2 0 2. The price is the same, so nothing is paid or refunded. "
    "Shall I make this change? Please say yes or no."
)
CHANGED = "Done. The items of order 2 0 0, 2 0 2 are changed, and it is still being processed."
RECORD_BIGGER = record("record_item_change", [BOTTLE_BLUE] * 3, [BOTTLE_BLUE_750] * 3, GIFT_CARD)
RECORD_ONE_GREEN = record("record_item_change", [BOTTLE_BLUE], [BOTTLE_GREEN], PAYPAL)
PAID = Transaction(kind=TransactionKind.PAYMENT, amount=Decimal("72.00"), method_id=GIFT_CARD)


REQUEST = OrderRequest(
    supervisor_tool="change_items",
    asking="I'd like to change the items of order {order_id}",
    order_id=PENDING,
    caller=PRIYA,
    says=PRIYA_SAYS,
    task_tools=ITEM_CHANGE_TOOLS,
    confirm_tool="confirm_item_change",
)
CONFIRM = REQUEST.confirm


def bottles(item_id: str, quantity: int) -> OrderItem:
    variant = demo_variant(item_id)
    return OrderItem(
        name="Stainless steel water bottle",
        quantity=quantity,
        product_id=variant.product_id,
        item_id=item_id,
        options=variant.options,
        price=variant.price,
    )


async def assert_unchanged(session: AgentSession[CallState]) -> None:
    order = await order_now(session, PENDING)
    assert (order.status, order.items, order.payments) == (
        OrderStatus.PENDING,
        (bottles(BOTTLE_BLUE, 3),),
        (PAID,),
    )
    assert await gift_card_balance(session) == Decimal("40.00")
    assert await audit_events(session, kind="order_items_changed") == []


async def test_a_clear_yes_changes_the_items_and_pays_the_difference_at_once(
    settings: Settings,
) -> None:
    async with REQUEST.at_question(settings, RECORD_BIGGER, *CONFIRM) as session:
        assert agent_lines(session)[-1] == QUESTION
        await session.run(user_input="The bigger ones please, from my gift card")
        assert agent_lines(session)[-1] == BIGGER_READ_BACK
        await assert_unchanged(session)

        confirmed = await session.run(user_input="Yes")
        confirmed.expect.contains_agent_handoff(new_agent_type=CustomerServiceAgent)
        order = await order_now(session, PENDING)
        assert order.status is OrderStatus.PENDING_ITEMS_MODIFIED
        assert order.items == (bottles(BOTTLE_BLUE_750, 3),)
        paid = Transaction(
            kind=TransactionKind.PAYMENT, amount=Decimal("12.00"), method_id=GIFT_CARD
        )
        assert order.payments == (PAID, paid)
        assert await gift_card_balance(session) == Decimal("28.00")
        said = f"{CHANGED} The difference of 12 dollars is paid."
        (output,) = tool_outputs(session, "change_items")
        assert (output.output, output.is_error) == (said, False)
        [event] = await audit_events(session, kind="order_items_changed")
        assert event.call_id == session.userdata.call_id


async def test_one_unit_changed_with_no_difference(settings: Settings) -> None:
    async with REQUEST.at_question(settings, RECORD_ONE_GREEN, *CONFIRM) as session:
        await session.run(user_input="Just one of them in green")
        assert agent_lines(session)[-1] == GREEN_READ_BACK
        await session.run(user_input="yes")
        order = await order_now(session, PENDING)
        assert order.items == (bottles(BOTTLE_GREEN, 1), bottles(BOTTLE_BLUE, 2))
        refund = Transaction(kind=TransactionKind.REFUND, amount=Decimal("0.00"), method_id=PAYPAL)
        assert order.payments == (PAID, refund)
        assert tool_outputs(session, "change_items")[0].output == CHANGED


async def test_a_refund_says_when_it_arrives(settings: Settings, demo_database_url: str) -> None:
    # The order as if the bigger bottles had been ordered: changed back, 12 dollars back.
    await change_order(demo_database_url, PENDING, items=(bottles(BOTTLE_BLUE_750, 3),))
    smaller = record("record_item_change", [BOTTLE_BLUE_750] * 3, [BOTTLE_BLUE] * 3, PAYPAL)
    async with REQUEST.at_question_on(demo_database_url, settings, smaller, *CONFIRM) as session:
        await session.run(user_input="the smaller ones, refund to PayPal")
        assert (
            "The new items cost 12 dollars less, refunded to your PayPal account."
            in (agent_lines(session)[-1])
        )
        await session.run(user_input="yes")
        assert tool_outputs(session, "change_items")[0].output == (
            f"{CHANGED} The difference of 12 dollars is refunded. It reaches your PayPal "
            "account in five to seven business days."
        )
        refund = Transaction(kind=TransactionKind.REFUND, amount=Decimal("12.00"), method_id=PAYPAL)
        assert (await order_now(session, PENDING)).payments[-1] == refund


async def test_the_gift_card_must_cover_the_difference(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        order = await store.get_order(PENDING)
        assert order is not None
        many = (bottles(BOTTLE_BLUE, 11),)
        await save_orders(store, order.model_copy(update={"items": many}))
    bigger = record("record_item_change", [BOTTLE_BLUE] * 11, [BOTTLE_BLUE_750] * 11, GIFT_CARD)
    async with REQUEST.at_question_on(demo_database_url, settings, bigger, relay) as session:
        await session.run(user_input="all the bigger ones, with the gift card")
        (output,) = tool_outputs(session, "record_item_change")
        assert (output.output, output.is_error) == (
            "Your gift card has 40 dollars on it, which doesn't cover the difference of 44 "
            "dollars. Which other payment method would you like to use?",
            True,
        )
        assert await gift_card_balance(session) == Decimal("40.00")


async def test_items_changed_meanwhile_are_said_and_nothing_more_is_changed(
    settings: Settings, demo_database_url: str
) -> None:
    async with REQUEST.at_question_on(
        demo_database_url, settings, RECORD_BIGGER, Call("confirm_item_change"), relay
    ) as session:
        await session.run(user_input="the bigger ones, gift card")
        # Another call changes the items while this caller decides.
        changed = await session.userdata.store.change_order_items(
            order_id=PENDING,
            customer_id="C-1002",
            item_ids=[BOTTLE_BLUE],
            new_item_ids=[BOTTLE_GREEN],
            payment_method_id=PAYPAL,
            call_id="another-call",
        )
        assert changed.done
        await session.run(user_input="yes")
        (output,) = tool_outputs(session, "change_items")
        assert (output.output, output.is_error) == (
            item_change.not_changeable_message(PENDING, OrderStatus.PENDING_ITEMS_MODIFIED),
            True,
        )
        order = await order_now(session, PENDING)
        assert order.items == (bottles(BOTTLE_GREEN, 1), bottles(BOTTLE_BLUE, 2))
        assert await gift_card_balance(session) == Decimal("40.00")


# --- what the suites every swap and every confirming specialist run drive ------------


async def one_made_green(session: AgentSession[CallState]) -> None:
    order = await order_now(session, PENDING)
    assert order.items == (bottles(BOTTLE_GREEN, 1), bottles(BOTTLE_BLUE, 2))
    assert await gift_card_balance(session) == Decimal("40.00")


DELIVERED_NOW = "Order 2 0 0, 2 0 2 has been delivered, so its items can't be changed any more."
SWAP = SwapCase(
    request=REQUEST,
    record=RECORD_BIGGER,
    said="the bigger ones, gift card",
    correction=RECORD_ONE_GREEN,
    said_correcting="No, sorry: just one of them, in green",
    correction_read_back=GREEN_READ_BACK,
    corrected=one_made_green,
    unchanged=assert_unchanged,
    refused={
        "same-version": (
            ([BOTTLE_BLUE], [BOTTLE_BLUE], PAYPAL),
            "That's the version already in the order. Which other would you like?",
        ),
        "unavailable": (
            ([BOTTLE_BLUE], [BOTTLE_GREEN_750], PAYPAL),
            "The stainless steel water bottle with capacity 750 ml and color green isn't "
            "available right now. Which other would you like?",
        ),
        "other-product": (
            ([BOTTLE_BLUE], [MAT_6MM], PAYPAL),
            "The stainless steel water bottle can only become another version of it: capacity "
            "500 ml and color blue, capacity 750 ml and color blue and capacity 500 ml and "
            "color green. Which would you like?",
        ),
        "more-units-than-ordered": (
            ([BOTTLE_BLUE] * 4, [BOTTLE_GREEN] * 4, PAYPAL),
            "Order 2 0 0, 2 0 2 contains three Stainless steel water bottles. Which of them "
            "would you like to change?",
        ),
    },
    not_swappable={
        OrderStatus.PENDING_ITEMS_MODIFIED: "The items of order 2 0 0, 2 0 2 were already "
        f"changed once, so they can't be changed again. {OFFER_HUMAN}",
        OrderStatus.DELIVERED: "Order 2 0 0, 2 0 2 has been delivered, so its items can't be "
        "changed any more, but I can exchange them instead.",
        OrderStatus.PROCESSED: "Order 2 0 0, 2 0 2 has already shipped, so its items can't be "
        "changed any more. Once it arrives, they can be exchanged.",
        OrderStatus.CANCELLED: "Order 2 0 0, 2 0 2 is cancelled, so its items can't be changed.",
        OrderStatus.EXCHANGE_REQUESTED: DELIVERED_NOW,
        OrderStatus.RETURN_REQUESTED: DELIVERED_NOW,
    },
    offered_instead=DELIVERED,
    # An exchange's own refusal is not an item change's.
    not_its_refusals=frozenset({ChangeRefusal.NOT_DELIVERED}),
)


async def bottles_made_bigger(session: AgentSession[CallState]) -> bool:
    items = (await order_now(session, PENDING)).items
    return [(item.item_id, item.quantity) for item in items] == [(BOTTLE_BLUE_750, 3)]


CONFIRMING = REQUEST.confirming(
    "The bigger ones, from my gift card",
    RECORD_BIGGER,
    changed=bottles_made_bigger,
    nothing_changed=WORDING.nothing_done,
    # The caller says yes to bigger bottles; the model records green ones and confirms.
    other_than_read_back=(
        "Yes",
        Parallel(
            (
                record("record_item_change", [BOTTLE_BLUE] * 3, [BOTTLE_GREEN] * 3, GIFT_CARD),
                Call("confirm_item_change"),
            )
        ),
    ),
    beyond_the_caller=(
        record("record_item_change", [BOTTLE_BLUE] * 3, [BOTTLE_BLUE_750] * 3, JORDANS_CARD),
        record("record_item_change", [BOTTLE_BLUE], [HEADPHONES_BLACK], GIFT_CARD),
    ),
)


OFFLINE_CHAT = REQUEST.offline_chat("the same ones but in green", "yes", "bye")
"""A `make chat` that reaches it (tests/offline_llm/test_offline_model.py)."""
