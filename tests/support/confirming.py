"""The specialists that change something only on the caller's own yes, declared once for
the suites every one of them runs (`tests/specialists/test_misbehaving_models.py`,
`test_yes_with_a_new_request.py`): how a caller reaches the read-back (or question),
the model's confirm, and how to tell from the store that the change was made.

A new confirming specialist declares itself here and names itself in each suite's
parametrize list.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from livekit.agents import AgentSession

from customer_service.call.consent_wording import UNCLEAR_CONFIRMATIONS, ConsentTopic
from customer_service.call.state import CallState
from customer_service.domain import OrderStatus
from customer_service.specialists import SPECIALISTS
from customer_service.specialists.address_update import WORDING as ADDRESS_WORDING
from customer_service.specialists.cancellation import kept_message
from customer_service.specialists.default_address import WORDING as DEFAULT_ADDRESS_WORDING
from customer_service.specialists.exchange import WORDING as EXCHANGE_WORDING
from customer_service.specialists.item_change import WORDING as ITEM_CHANGE_WORDING
from customer_service.specialists.payment_change import WORDING as PAYMENT_CHANGE_WORDING
from customer_service.specialists.returns import WORDING as RETURN_WORDING

from .conversation import JORDAN, JORDAN_SAYS, PRIYA, audit_events, check_identity
from .demo_addresses import MARKET_STREET_SUITE_5
from .scripted_llm import Call, Decision, Parallel, Step
from .scripted_llm import relay_tool_output as relay
from .swaps import (
    BLOCK_CORK,
    BLOCK_FOAM,
    BOTTLE_BLUE,
    BOTTLE_BLUE_750,
    BOTTLE_GREEN,
    GIFT_CARD,
    HEADPHONES_BLACK,
    JORDANS_CARD,
    MAT_4MM,
    MAT_6MM,
    PAYPAL,
    record,
)

PRIYA_SAYS = "Priya Natarajan, 10001, priya.n@example.com"


@dataclass(frozen=True)
class Confirming:
    """One specialist that acts only on the caller's clear yes, and how to drive it."""

    supervisor_tool: str
    confirm: Call
    """The model's confirmation: the confirm tool, or a yes recorded."""
    caller: dict[str, Any]
    """The caller's identity details (`check_identity`)."""
    lines_to_read_back: tuple[str, ...]
    steps_to_read_back: tuple[Step, ...]
    """The model's steps for those lines; the last one's reply brings the read-back."""
    changed: Callable[[AgentSession[CallState]], Awaitable[bool]]
    """Whether the store holds the change as it was read back."""
    nothing_changed: str
    """What the caller hears when the change is not made."""
    other_than_read_back: tuple[str, Decision]
    """A caller's answer and the model's reply to it that would act on something other
    than what the caller heard read back and said yes to."""
    after_the_change: tuple[Step, ...] = (relay,)
    """The supervisor's steps once the change is made (none when code speaks for it)."""
    order_tool_for: str | None = None
    """The caller's order this works on, when it works on one."""
    beyond_the_caller: tuple[Call, ...] = ()
    """Records naming what is not the caller's to choose (another customer's payment
    method, another product's variant): each refused in code, whatever follows it."""

    @property
    def confirm_tool(self) -> str:
        return self.confirm.name

    @property
    def writes(self) -> str:
        """The kind of audit event its write stores (its registration's)."""
        (registration,) = [r for r in SPECIALISTS if r.tool_name == self.supervisor_tool]
        assert registration.writes is not None
        return registration.writes

    async def writes_stored(self, session: AgentSession[CallState]) -> int:
        return len(await audit_events(session, kind=self.writes))


async def _order_cancelled(session: AgentSession[CallState]) -> bool:
    order = await session.userdata.store.get_order("100102")
    assert order is not None
    return order.status is OrderStatus.CANCELLED


async def _address_changed(session: AgentSession[CallState]) -> bool:
    order = await session.userdata.store.get_order("100102")
    assert order is not None
    return order.shipping_address == MARKET_STREET_SUITE_5


async def _default_address_changed(session: AgentSession[CallState]) -> bool:
    customer = await session.userdata.store.get_customer("C-1001")
    assert customer is not None
    return customer.address == MARKET_STREET_SUITE_5


async def _return_requested(session: AgentSession[CallState]) -> bool:
    requests = await session.userdata.store.return_requests()
    order = await session.userdata.store.get_order("200201")
    assert order is not None
    refunded_to = order.returned.method_id if order.returned else None
    return [r.item_indices for r in requests] == [(0, 1)] and refunded_to == "paypal_9000201"


async def _paid_with_paypal(session: AgentSession[CallState]) -> bool:
    order = await session.userdata.store.get_order("200202")
    assert order is not None
    return [payment.method_id for payment in order.payments][1:2] == ["paypal_9000201"]


async def _mat_exchanged(session: AgentSession[CallState]) -> bool:
    order = await session.userdata.store.get_order("200201")
    assert order is not None
    exchanged = order.exchange
    return exchanged is not None and (exchanged.new_item_ids, exchanged.method_id) == (
        (MAT_6MM,),
        PAYPAL,
    )


async def _bottles_made_bigger(session: AgentSession[CallState]) -> bool:
    order = await session.userdata.store.get_order("200202")
    assert order is not None
    return [(item.item_id, item.quantity) for item in order.items] == [(BOTTLE_BLUE_750, 3)]


async def _text_updates_granted(session: AgentSession[CallState]) -> bool:
    record = await session.userdata.store.latest_consent(
        topic=ConsentTopic.ORDER_UPDATES_SMS, customer_id="C-1001"
    )
    return record is not None and record.granted


def _verified_then(line: str, step: Step) -> dict[str, Any]:
    """A caller who verifies first, then asks: the request's reply brings the read-back."""
    return {
        "caller": JORDAN,
        "lines_to_read_back": ("Please verify me", JORDAN_SAYS, line),
        "steps_to_read_back": (Call("verify_identity"), check_identity(JORDAN), relay, step),
    }


CANCELLATION = Confirming(
    supervisor_tool="cancel_order",
    confirm=Call("confirm_cancellation"),
    caller=JORDAN,
    lines_to_read_back=("I'd like to cancel order 100102", JORDAN_SAYS, "I don't need it any more"),
    steps_to_read_back=(
        Call("cancel_order", {"order_id": "100102"}),
        check_identity(JORDAN),
        Call("record_cancellation_reason", {"reason": "no longer needed"}),
    ),
    changed=_order_cancelled,
    nothing_changed=kept_message("100102"),
    # A yes that names another order is no yes to this one.
    other_than_read_back=("Yes, cancel order 100101", Call("confirm_cancellation")),
    order_tool_for="100102",
)
ADDRESS_CHANGE = Confirming(
    supervisor_tool="update_address",
    confirm=Call("confirm_address"),
    caller=JORDAN,
    lines_to_read_back=(
        "I need to change the delivery address for order 100102",
        JORDAN_SAYS,
        "1 Market Street, Suite 5, San Francisco, California 94105",
    ),
    steps_to_read_back=(
        Call("update_address", {"order_id": "100102"}),
        check_identity(JORDAN),
        Call("record_address", MARKET_STREET_SUITE_5.model_dump()),
    ),
    changed=_address_changed,
    nothing_changed=ADDRESS_WORDING.nothing_done,
    other_than_read_back=(
        "Yes",
        Parallel(
            (
                Call("record_address", {**MARKET_STREET_SUITE_5.model_dump(), "unit": "7"}),
                Call("confirm_address"),
            )
        ),
    ),
    # The change is said by code, with the text-update question after it.
    after_the_change=(),
    order_tool_for="100102",
)
DEFAULT_ADDRESS = Confirming(
    supervisor_tool="change_default_address",
    confirm=Call("confirm_account_address"),
    caller=JORDAN,
    lines_to_read_back=(
        "I moved: please change the address on my account",
        JORDAN_SAYS,
        "1 Market Street, Suite 5, San Francisco, California 94105",
    ),
    steps_to_read_back=(
        Call("change_default_address"),
        check_identity(JORDAN),
        Call("record_account_address", MARKET_STREET_SUITE_5.model_dump()),
    ),
    changed=_default_address_changed,
    nothing_changed=DEFAULT_ADDRESS_WORDING.nothing_done,
    other_than_read_back=(
        "Yes",
        Parallel(
            (
                Call("record_account_address", {**MARKET_STREET_SUITE_5.model_dump(), "unit": "7"}),
                Call("confirm_account_address"),
            )
        ),
    ),
)
RETURNS = Confirming(
    supervisor_tool="request_return",
    confirm=Call("confirm_return"),
    caller=PRIYA,
    lines_to_read_back=(
        "I'd like to return order 200201",
        PRIYA_SAYS,
        "All of them, I really don't need them any more",
    ),
    steps_to_read_back=(
        Call("request_return", {"order_id": "200201"}),
        check_identity(PRIYA),
        Call(
            "record_return",
            {
                "item_numbers": [1, 2],
                "reason": "no_longer_needed",
                "refund_method_id": "paypal_9000201",
            },
        ),
    ),
    changed=_return_requested,
    nothing_changed=RETURN_WORDING.nothing_done,
    other_than_read_back=(
        "Yes",
        Parallel(
            (
                Call(
                    "record_return",
                    {
                        "item_numbers": [1],
                        "reason": "damaged",
                        "refund_method_id": "gift_card_9000202",
                    },
                ),
                Call("confirm_return"),
            )
        ),
    ),
    order_tool_for="200201",
)
EXCHANGE = Confirming(
    supervisor_tool="exchange_items",
    confirm=Call("confirm_exchange"),
    caller=PRIYA,
    lines_to_read_back=(
        "I'd like to exchange something from order 200201",
        PRIYA_SAYS,
        "The mat, for the 6 mm one, with PayPal",
    ),
    steps_to_read_back=(
        Call("exchange_items", {"order_id": "200201"}),
        check_identity(PRIYA),
        record("record_exchange", [MAT_4MM], [MAT_6MM], PAYPAL),
    ),
    changed=_mat_exchanged,
    nothing_changed=EXCHANGE_WORDING.nothing_done,
    # The caller says yes to the mat; the model records the blocks and confirms.
    other_than_read_back=(
        "Yes",
        Parallel(
            (
                record("record_exchange", [BLOCK_CORK] * 2, [BLOCK_FOAM] * 2, GIFT_CARD),
                Call("confirm_exchange"),
            )
        ),
    ),
    order_tool_for="200201",
    beyond_the_caller=(
        record("record_exchange", [MAT_4MM], [MAT_6MM], JORDANS_CARD),
        record("record_exchange", [MAT_4MM], [HEADPHONES_BLACK], PAYPAL),
    ),
)
ITEM_CHANGE = Confirming(
    supervisor_tool="change_items",
    confirm=Call("confirm_item_change"),
    caller=PRIYA,
    lines_to_read_back=(
        "I'd like to change the items of order 200202",
        PRIYA_SAYS,
        "The bigger ones, from my gift card",
    ),
    steps_to_read_back=(
        Call("change_items", {"order_id": "200202"}),
        check_identity(PRIYA),
        record("record_item_change", [BOTTLE_BLUE] * 3, [BOTTLE_BLUE_750] * 3, GIFT_CARD),
    ),
    changed=_bottles_made_bigger,
    nothing_changed=ITEM_CHANGE_WORDING.nothing_done,
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
    order_tool_for="200202",
    beyond_the_caller=(
        record("record_item_change", [BOTTLE_BLUE] * 3, [BOTTLE_BLUE_750] * 3, JORDANS_CARD),
        record("record_item_change", [BOTTLE_BLUE], [HEADPHONES_BLACK], GIFT_CARD),
    ),
)
PAYMENT_CHANGE = Confirming(
    supervisor_tool="change_payment_method",
    confirm=Call("confirm_payment_change"),
    caller=PRIYA,
    lines_to_read_back=(
        "I'd like to change how order 200202 is paid",
        PRIYA_SAYS,
        "With my PayPal account",
    ),
    steps_to_read_back=(
        Call("change_payment_method", {"order_id": "200202"}),
        check_identity(PRIYA),
        Call("record_payment_change", {"payment_method_id": "paypal_9000201"}),
    ),
    changed=_paid_with_paypal,
    nothing_changed=PAYMENT_CHANGE_WORDING.nothing_done,
    # The caller keeps the gift card; the model confirms the change anyway.
    other_than_read_back=("No, keep the gift card", Call("confirm_payment_change")),
    order_tool_for="200202",
)
CONSENT = Confirming(
    supervisor_tool="request_consent",
    confirm=Call("record_consent", {"granted": True}),
    **_verified_then(
        "Please send me text updates about my orders",
        Call("request_consent", {"topic": "order_updates_sms"}),
    ),
    changed=_text_updates_granted,
    nothing_changed=UNCLEAR_CONFIRMATIONS[ConsentTopic.ORDER_UPDATES_SMS],
    # The caller says no; the model records a yes.
    other_than_read_back=("No", Call("record_consent", {"granted": True})),
)
