"""Order cancellation, driven through real sessions with a scripted model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from typing import Any

import pytest
from livekit.agents import AgentSession, ModelSettings

from customer_service.call.state import CallState
from customer_service.call.wording import OFFER_HUMAN, spaced_digits
from customer_service.domain import CancelReason, OrderStatus, Transaction, TransactionKind
from customer_service.settings import Settings
from customer_service.specialists import cancellation
from customer_service.specialists.cancellation import CancellationTask
from customer_service.specialists.cancellation import wording as cancellation_wording
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.identity import VERIFICATION_DECLINED
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store import AuditEvent, Store
from customer_service.supervisor import CustomerServiceAgent
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    PRIYA,
    PRIYA_SAYS,
    agent_lines,
    audit_events,
    check_identity,
    order_now,
    tool_outputs,
    verifying_for,
)
from support.order_request import OrderRequest
from support.scripted_llm import Call, Decision, Parallel, Say, ScriptedLLM, Step, Turn
from support.scripted_llm import relay_tool_output as relay
from support.store_records import save_orders, stored_order

CANCELLATION_TOOLS = frozenset({"record_cancellation_reason", "give_up"})
QUESTION = (
    "Order 1 0 0, 1 0 2 contains a Ceramic pour-over coffee set. Why would you like to cancel "
    "it: because you no longer need it, or because it was ordered by mistake?"
)
REFUND = (
    "You get 48 dollars back. It reaches your Visa card ending in 4 2 4 2 in five to seven "
    "business days."
)
READ_BACK = (
    "I'll cancel order 1 0 0, 1 0 2, with a Ceramic pour-over coffee set, because you no "
    f"longer need it. {REFUND} Do you want me to cancel this order? Please say yes or no."
)
NOT_A_CLEAR_YES = cancellation_wording("100102").not_a_clear_yes
CANCELLED = f"Done. Order 1 0 0, 1 0 2 is cancelled. {REFUND}"
KEPT = "All right, I haven't cancelled order 1 0 0, 1 0 2."
NO_LONGER_NEEDED = Call("record_cancellation_reason", {"reason": "no longer needed"})
BY_MISTAKE = Call("record_cancellation_reason", {"reason": "ordered by mistake"})
HANG_GUARD_S = 10.0  # a generous bound: a hang must fail the test, not stall it
VISA = "credit_card_9000101"


REQUEST = OrderRequest(
    supervisor_tool="cancel_order",
    asking="I'd like to cancel order {order_id}",
    order_id="100102",
    caller=JORDAN,
    says=JORDAN_SAYS,
    task_tools=CANCELLATION_TOOLS,
    confirm_tool="confirm_cancellation",
)
CONFIRM = REQUEST.confirm


@asynccontextmanager
async def at_read_back(
    settings: Settings, *steps: Step, **caller: Any
) -> AsyncIterator[AgentSession[CallState]]:
    """`REQUEST.at_question` (another order or caller by `caller`), with the reason
    given, recorded and read back: `steps` come after."""
    async with REQUEST.at_question(settings, NO_LONGER_NEEDED, *steps, **caller) as session:
        await session.run(user_input="I don't need it any more")
        yield session


async def status_of(session: AgentSession[CallState], order_id: str = "100102") -> OrderStatus:
    order = await session.userdata.store.get_order(order_id)
    assert order is not None
    return order.status


async def cancellations(store: Store) -> list[AuditEvent]:
    return await store.audit_events(kind="order_cancelled")


async def assert_nothing_cancelled(session: AgentSession[CallState]) -> None:
    for order_id in ("100102", "200202", "300301"):
        assert await status_of(session, order_id) is OrderStatus.PENDING
    assert await cancellations(session.userdata.store) == []


async def test_clear_yes_cancels_once_and_later_requests_see_it(settings: Settings) -> None:
    later = [Call(tool, {"order_id": "100102"}) for tool in ("lookup_order", "update_address")]
    steps = [NO_LONGER_NEEDED, *CONFIRM, later[0], relay, later[1], relay]
    async with REQUEST.at_question(settings, *steps) as session:
        assert agent_lines(session)[-1] == QUESTION
        assert await status_of(session) is OrderStatus.PENDING
        await session.run(user_input="I don't need it any more")
        assert agent_lines(session)[-1] == READ_BACK

        confirmed = await session.run(user_input="Yes, please")
        confirmed.expect.next_event().is_function_call(name="confirm_cancellation")
        confirmed.expect.next_event().is_function_call_output(is_error=False)
        confirmed.expect.next_event().is_agent_handoff(new_agent_type=CustomerServiceAgent)
        confirmed.expect.next_event().is_function_call_output(output=CANCELLED, is_error=False)
        confirmed.expect.next_event().is_message(role="assistant")
        confirmed.expect.no_more_events()
        assert agent_lines(session)[-2:] == [READ_BACK, CANCELLED]
        assert await status_of(session) is OrderStatus.CANCELLED
        [event] = await cancellations(session.userdata.store)
        assert event.call_id == session.userdata.call_id
        assert (event.customer_id, event.order_id, event.detail) == (
            "C-1001",
            "100102",
            {"items": 1, "reason": "no longer needed", "refunds": 1, "refunded": "48.00"},
        )
        cancelled = await stored_order(session.userdata.store, "100102")
        assert cancelled.cancel_reason is CancelReason.NO_LONGER_NEEDED
        assert cancelled.payments[1:] == (
            Transaction(kind=TransactionKind.REFUND, amount=Decimal("48.00"), method_id=VISA),
        )

        looked_up = await session.run(user_input="What's the status of 100102 now?")
        summary = looked_up.expect.contains_function_call_output(is_error=False)
        assert summary.event().item.output.startswith(
            "Order 1 0 0, 1 0 2, placed on November fourth, is cancelled."
        )
        moved = await session.run(user_input="Then send 100102 to my office instead")
        moved.expect.contains_function_call_output(
            output="Order 1 0 0, 1 0 2 is cancelled, so there is no delivery to change.",
            is_error=True,
        )
        assert await session.userdata.store.address_changes(order_id="100102") == []
        assert len(await cancellations(session.userdata.store)) == 1


async def test_a_number_asked_for_is_read_back_with_every_item(settings: Settings) -> None:
    maria = dict(zip(JORDAN, ["María García", "28013", "maria.garcia@example.es"], strict=True))
    lookup = Call("lookup", {"order_id": "three zero zero three zero one"})
    model = ScriptedLLM([Call("cancel_order"), check_identity(maria), lookup, BY_MISTAKE, *CONFIRM])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I want to cancel an order")
        await session.run(user_input=", ".join(maria.values()))
        await session.run(user_input="three zero zero three zero one")
        assert agent_lines(session)[-1] == (
            "Order 3 0 0, 3 0 1 contains a Linen duvet cover, double and two Feather pillows. "
            f"{cancellation.REASON_QUESTION}"
        )
        await session.run(user_input="I ordered it by mistake")
        refund = (
            "You get 190 dollars back. It reaches your Mastercard card ending in 5 4 5 4 in "
            "five to seven business days."
        )
        assert agent_lines(session)[-1] == (
            "I'll cancel order 3 0 0, 3 0 1, with a Linen duvet cover, double and two Feather "
            f"pillows, because it was ordered by mistake. {refund} Do you want me to cancel "
            "this order? Please say yes or no."
        )
        await session.run(user_input="Yes please")
        assert agent_lines(session)[-1] == f"Done. Order 3 0 0, 3 0 1 is cancelled. {refund}"
        cancelled = await stored_order(session.userdata.store, "300301")
        assert cancelled.cancel_reason is CancelReason.ORDERED_BY_MISTAKE
        assert await status_of(session, "300301") is OrderStatus.CANCELLED
        assert [e.detail["items"] for e in await cancellations(session.userdata.store)] == [2]
    assert not model.overran


@pytest.mark.parametrize(
    ("details", "order_id", "refusal"),
    [
        (
            JORDAN,
            "100101",
            "Order 1 0 0, 1 0 1 has already shipped, so I can't cancel it any more.",
        ),
        (PRIYA, "200201", "Order 2 0 0, 2 0 1 has been delivered, so I can't cancel it any more."),
        (JORDAN, "100102", "Order 1 0 0, 1 0 2 is already cancelled."),
    ],
    ids=["shipped", "delivered", "already-cancelled"],
)
async def test_orders_past_processing_are_refused_without_the_specialist(
    settings: Settings,
    demo_database_url: str,
    details: dict[str, Any],
    order_id: str,
    refusal: str,
) -> None:
    database_url = demo_database_url
    async with await Store.open(database_url) as store:
        await store.cancel_order(
            order_id="100102",
            customer_id="C-1001",
            reason=CancelReason.NO_LONGER_NEEDED,
            call_id="earlier",
        )
        before = await store.get_order(order_id)
    says = ", ".join(details.values())
    said = await REQUEST.refused_before_the_task(settings, database_url, order_id, details, says)
    assert said == refusal + ("" if order_id == "100102" else f" {OFFER_HUMAN}")
    async with await Store.open(database_url) as store:
        assert await store.get_order(order_id) == before
        assert [e.call_id for e in await cancellations(store)] == ["earlier"]


ITEMS_CHANGED = (
    f"Order 1 0 0, 1 0 2 had its items changed, so I can't cancel it any more. {OFFER_HUMAN}"
)


async def test_an_order_whose_items_changed_is_refused_without_the_specialist(
    settings: Settings, demo_database_url: str
) -> None:
    async with await Store.open(demo_database_url) as store:
        order = await stored_order(store, "100102")
        changed = order.model_copy(update={"status": OrderStatus.PENDING_ITEMS_MODIFIED})
        await save_orders(store, changed)
    said = await REQUEST.refused_before_the_task(
        settings, demo_database_url, "100102", JORDAN, JORDAN_SAYS
    )
    assert said == ITEMS_CHANGED
    async with await Store.open(demo_database_url) as store:
        assert await store.get_order("100102") == changed


async def test_items_changed_while_the_caller_decides_are_told_and_nothing_cancelled(
    settings: Settings,
) -> None:
    async with at_read_back(settings, *CONFIRM) as session:
        store = session.userdata.store
        # Another channel changes the order's items while the caller hears the read-back.
        order = await stored_order(store, "100102")
        changed = order.model_copy(update={"status": OrderStatus.PENDING_ITEMS_MODIFIED})
        await save_orders(store, changed)

        await session.run(user_input="Yes, cancel it")
        (output,) = tool_outputs(session, "cancel_order")
        assert (output.output, output.is_error) == (ITEMS_CHANGED, True)
        assert agent_lines(session)[-1] == ITEMS_CHANGED
        assert await store.get_order("100102") == changed
        assert await cancellations(store) == []


async def test_no_then_give_up_cancels_nothing(settings: Settings) -> None:
    async with at_read_back(settings, Call("give_up"), relay) as session:
        result = await session.run(user_input="No, I'll keep it")
        result.expect.contains_function_call_output(output=KEPT, is_error=True)
        assert agent_lines(session)[-2:] == [READ_BACK, KEPT]
        assert isinstance(session.current_agent, CustomerServiceAgent)
        await assert_nothing_cancelled(session)


@pytest.mark.parametrize(
    "first_answer", ["what would that cost? maybe?", "No, keep it", "Don't cancel it"]
)
async def test_unclear_or_no_answers_refuse_the_models_confirmations_up_to_the_cap(
    settings: Settings, first_answer: str
) -> None:
    # The model confirms whatever the caller says; the caller's own words decide.
    async with at_read_back(settings, *CONFIRM, *CONFIRM) as session:
        first = await session.run(user_input=first_answer)
        first.expect.contains_function_call_output(output=NOT_A_CLEAR_YES, is_error=True)
        assert agent_lines(session)[-1] == NOT_A_CLEAR_YES
        assert isinstance(session.current_agent, CancellationTask)
        await assert_nothing_cancelled(session)

        await session.run(user_input="Hmm, I'm not sure")
        refused = tool_outputs(session, "confirm_cancellation")
        assert len(refused) == cancellation.MAX_REFUSED_CONFIRMATIONS
        (output,) = tool_outputs(session, "cancel_order")
        assert (output.output, output.is_error) == (KEPT, True)
        assert agent_lines(session)[-1] == KEPT
        assert isinstance(session.current_agent, CustomerServiceAgent)
        await assert_nothing_cancelled(session)


async def test_confirming_before_the_caller_answers_the_read_back_cancels_nothing(
    settings: Settings,
) -> None:
    early = Parallel((NO_LONGER_NEEDED, Call("confirm_cancellation")))
    steps = [early, Say("Is that right?"), *CONFIRM, *CONFIRM]
    async with REQUEST.at_question(settings, *steps) as session:
        # The caller says "yes" with the reason, and the model confirms in the same reply.
        await session.run(user_input="Yes, I don't need it, yes")
        (unheard,) = tool_outputs(session, "confirm_cancellation")
        assert (unheard.output, unheard.is_error) == (NOT_A_CLEAR_YES, True)
        assert READ_BACK in agent_lines(session)
        await assert_nothing_cancelled(session)

        # The model takes a turn of its own right after the read-back and confirms again.
        await asyncio.wait_for(session.generate_reply(), HANG_GUARD_S)
        refused = tool_outputs(session, "confirm_cancellation")[-1]
        assert (refused.output, refused.is_error) == (NOT_A_CLEAR_YES, True)
        assert isinstance(session.current_agent, CancellationTask)
        await assert_nothing_cancelled(session)

        # The caller's own yes, after the read-back, is what counts.
        await session.run(user_input="Yes")
        assert agent_lines(session)[-1] == CANCELLED
        assert len(await cancellations(session.userdata.store)) == 1


class HeldReadBack(CancellationTask):
    """Holds its first read-back until the test releases it, so the caller can interrupt it."""

    held = asyncio.Event()
    release = asyncio.Event()

    async def transcription_node(
        self, text: AsyncIterable[str], model_settings: ModelSettings
    ) -> AsyncIterable[str]:
        # The question comes first; the read-back once a reason is recorded.
        proposed = self.collected()["reason"] is not None
        if proposed and not HeldReadBack.held.is_set():
            HeldReadBack.held.set()
            await HeldReadBack.release.wait()
        async for chunk in text:
            yield chunk


async def test_a_yes_to_an_interrupted_read_back_cancels_nothing(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(HeldReadBack, "held", asyncio.Event())
    monkeypatch.setattr(HeldReadBack, "release", asyncio.Event())
    monkeypatch.setattr(cancellation, "CancellationTask", HeldReadBack)
    steps = [NO_LONGER_NEEDED, Call("confirm_cancellation"), *CONFIRM]
    async with REQUEST.at_question(settings, *steps) as session:
        giving = asyncio.ensure_future(session.run(user_input="I don't need it any more"))
        await asyncio.wait_for(HeldReadBack.held.wait(), HANG_GUARD_S)
        await asyncio.wait_for(session.interrupt(), HANG_GUARD_S)
        HeldReadBack.release.set()
        await asyncio.wait_for(giving, HANG_GUARD_S)
        assert READ_BACK not in agent_lines(session)

        # The model takes the caller's "yes" as confirmation of words they never heard.
        await asyncio.wait_for(session.run(user_input="Yes?"), HANG_GUARD_S)
        assert agent_lines(session)[-1] == READ_BACK
        await assert_nothing_cancelled(session)

        await asyncio.wait_for(session.run(user_input="Yes, cancel it"), HANG_GUARD_S)
        assert agent_lines(session)[-2:] == [READ_BACK, CANCELLED]
        assert len(await cancellations(session.userdata.store)) == 1


@pytest.mark.parametrize(
    "case",
    ["Yes confirm confirm", "Yes confirm give_up", "Yes give_up confirm", "No confirm confirm"],
)
async def test_parallel_tool_calls_cancel_at_most_once(settings: Settings, case: str) -> None:
    answer, *calls = case.replace("confirm", "confirm_cancellation").split()
    async with at_read_back(settings, Parallel(tuple(map(Call, calls))), relay) as session:
        await session.run(user_input=answer)
        (output,) = tool_outputs(session, "cancel_order")
        events = await cancellations(session.userdata.store)
        if calls[0] == calls[1]:
            assert (output.output, len(events)) == ((CANCELLED, 1), (KEPT, 0))[answer == "No"]
        # What the caller hears always matches the store.
        if output.output == CANCELLED:
            assert await status_of(session) is OrderStatus.CANCELLED
            assert len(events) == 1
        else:
            assert (output.output, output.is_error) == (KEPT, True)
            await assert_nothing_cancelled(session)
        assert agent_lines(session)[-1] == output.output


async def test_unverified_caller_is_asked_to_verify_first(settings: Settings) -> None:
    model = ScriptedLLM([Call("cancel_order", {"order_id": "100102"}), Call("give_up"), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Cancel order 100102")
        assert agent_lines(session)[-1] == IDENTITY_QUESTION
        assert tool_outputs(session, "cancel_order") == []

        declined = await session.run(user_input="I'd rather not say")
        declined.expect.contains_function_call_output(output=VERIFICATION_DECLINED, is_error=True)
        assert session.userdata.verified_customer is None
        assert not any("Ceramic" in line or "1 0 0, 1 0 2" in line for line in agent_lines(session))
        await assert_nothing_cancelled(session)
    assert not any(turn.offers(CANCELLATION_TOOLS) for turn in model.turns)
    assert not model.overran


async def transcript_of_cancelling(
    settings: Settings, order_id: str, request: str | None = None
) -> list[str]:
    model = ScriptedLLM([*REQUEST.until_question(order_id), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input=request or f"I'd like to cancel order {order_id}")
        await session.run(user_input=JORDAN_SAYS)
        outputs = tool_outputs(session, "cancel_order")
        assert [(item.output, item.is_error) for item in outputs] == [
            (not_found_message(order_id), True)
        ]
        await assert_nothing_cancelled(session)
        assert await audit_events(session, kind="order_not_found")
        assert QUESTION not in agent_lines(session)
        lines = [*agent_lines(session), *(item.output for item in outputs)]
    assert not any(turn.offers(CANCELLATION_TOOLS) for turn in model.turns)
    assert not model.overran
    return lines


async def test_another_customers_or_an_invented_order_reads_exactly_like_an_unknown_one(
    settings: Settings,
) -> None:
    unknown = await transcript_of_cancelling(settings, "999999")
    someone_elses = await transcript_of_cancelling(settings, "200202")
    # The caller gave no number; the model makes one up instead of asking for it.
    invented = await transcript_of_cancelling(settings, "100103", "Cancel my coffee set order")

    def anonymised(lines: list[str], order_id: str) -> list[str]:
        return [line.replace(spaced_digits(order_id), "<order>") for line in lines]

    assert anonymised(someone_elses, "200202") == anonymised(unknown, "999999")
    assert anonymised(invented, "100103") == anonymised(unknown, "999999")
    assert someone_elses[-2:] == [not_found_message("200202")] * 2
    assert not any("Priya" in line or "water bottle" in line for line in someone_elses)


@pytest.mark.parametrize("answer", ["Absolutely not!", "Of course not.", "Are you sure?"])
async def test_a_no_or_a_question_never_reads_as_a_yes(settings: Settings, answer: str) -> None:
    async with at_read_back(settings, *CONFIRM) as session:
        await session.run(user_input=answer)
        await assert_nothing_cancelled(session)


def answering(turn: Turn) -> Decision:
    """A model that relays tool results and takes a yes or a no at its word."""
    if turn.last_tool_output is not None:
        return relay(turn)
    if "need" in turn.last_user_text:
        return NO_LONGER_NEEDED
    if turn.offers(CANCELLATION_TOOLS):
        return Call("confirm_cancellation" if "yes" in turn.last_user_text.lower() else "give_up")
    return Say("Is there anything else?")


async def test_a_repeated_cancel_request_never_asks_about_or_denies_a_done_cancellation(
    settings: Settings,
) -> None:
    twice = Parallel((Call("cancel_order", {"order_id": "100102"}),) * 2)
    model = ScriptedLLM(
        [Call("verify_identity"), check_identity(JORDAN), relay, twice], then=answering
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Please verify me")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="Cancel order 100102. Cancel order 100102!")
        await session.run(user_input="I don't need it")
        await session.run(user_input="Yes")
        await session.run(user_input="No")
        assert await status_of(session) is OrderStatus.CANCELLED
        assert len(await cancellations(session.userdata.store)) == 1
        assert KEPT not in [item.output for item in tool_outputs(session, "cancel_order")]
        assert agent_lines(session).count(READ_BACK) == 1


@pytest.mark.parametrize(
    ("answer", "cancels"),
    [
        ("yes, 102", False),
        ("yes 0", False),
        ("yes, cancel order 10", False),
        ("Yes, cancel order one zero zero one zero two", True),
        ("yes, 100-102", True),
        ("Oh yes, please", True),
    ],
)
async def test_digits_in_a_yes_must_be_the_whole_order_number(
    settings: Settings, answer: str, cancels: bool
) -> None:
    async with at_read_back(settings, *CONFIRM) as session:
        await session.run(user_input=answer)
        (confirmation,) = tool_outputs(session, "confirm_cancellation")
        if cancels:
            assert agent_lines(session)[-1] == CANCELLED
            assert await status_of(session) is OrderStatus.CANCELLED
        else:
            assert (confirmation.output, confirmation.is_error) == (NOT_A_CLEAR_YES, True)
            await assert_nothing_cancelled(session)


async def test_an_order_number_sounds_the_same_in_the_list_the_lookup_and_the_read_back(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("lookup_order", "100102", JORDAN),
            relay,
            Call("cancel_order"),
            Call("list_recent_orders"),
            relay,
            Call("choose_order", {"choice": "the coffee set"}),
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Where is order 100102?")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="I want to cancel an order")
        await session.run(user_input="which orders do I have?")
        await session.run(user_input="the coffee set")
        heard = [
            *agent_lines(session),
            *(
                item.output
                for name in ("lookup_order", "list_recent_orders")
                for item in tool_outputs(session, name)
            ),
        ]
        (summary,) = [item.output for item in tool_outputs(session, "lookup_order")]
        (listing,) = [item.output for item in tool_outputs(session, "list_recent_orders")]
        for said in (summary, listing, agent_lines(session)[-1]):
            assert "1 0 0, 1 0 2" in said
        assert agent_lines(session)[-1] == QUESTION
        assert not any("100102" in line for line in heard)
        assert not any(";" in line for line in heard)


async def test_a_gift_card_payment_is_said_and_credited_back_at_once(settings: Settings) -> None:
    async with at_read_back(
        settings, *CONFIRM, order_id="200202", details=PRIYA, says=PRIYA_SAYS
    ) as session:
        refund = "You get 72 dollars back. It goes back onto your gift card straight away."
        assert agent_lines(session)[-1].endswith(
            f"because you no longer need it. {refund} Do you want me to cancel this order? "
            "Please say yes or no."
        )
        await session.run(user_input="Yes")
        assert agent_lines(session)[-1] == f"Done. Order 2 0 0, 2 0 2 is cancelled. {refund}"
        methods = await session.userdata.store.payment_methods("C-1002")
        assert [method.balance for method in methods] == [None, Decimal("112.00")]


async def test_an_order_paid_another_way_is_said_and_refunded_once(settings: Settings) -> None:
    # Paid by gift card, then by PayPal (the gift card credited then): cancelling gives
    # back only what PayPal paid, and says so before and after.
    steps = [*REQUEST.until_question("200202", PRIYA), NO_LONGER_NEEDED, *CONFIRM]
    model = ScriptedLLM(steps)
    async with call_session(model, settings=settings) as session:
        store = session.userdata.store
        changed = await store.change_order_payment(
            order_id="200202", customer_id="C-1002", payment_method_id="paypal_9000201", call_id="c"
        )
        assert changed.done
        await REQUEST.reach_question(session, "200202", PRIYA_SAYS)
        await session.run(user_input="I don't need it any more")
        refund = (
            "You get 72 dollars back. It reaches your PayPal account in five to seven "
            "business days."
        )
        assert refund in agent_lines(session)[-1]
        assert "gift card" not in agent_lines(session)[-1]
        await session.run(user_input="Yes")
        assert agent_lines(session)[-1] == f"Done. Order 2 0 0, 2 0 2 is cancelled. {refund}"
        methods = await store.payment_methods("C-1002")
        assert [method.balance for method in methods] == [None, Decimal("112.00")]


async def test_a_corrected_reason_is_read_back_again_and_the_one_stored(
    settings: Settings,
) -> None:
    async with at_read_back(settings, BY_MISTAKE, *CONFIRM) as session:
        await session.run(user_input="Actually no, I ordered it by mistake")
        assert "because it was ordered by mistake" in agent_lines(session)[-1]
        await session.run(user_input="Yes")
        cancelled = await stored_order(session.userdata.store, "100102")
        assert cancelled.cancel_reason is CancelReason.ORDERED_BY_MISTAKE
        [event] = await cancellations(session.userdata.store)
        assert event.detail["reason"] == "ordered by mistake"


async def test_a_reason_that_fits_neither_cancels_nothing_and_offers_a_colleague(
    settings: Settings,
) -> None:
    closer = Say(cancellation.CLOSER_REASON_QUESTION)
    async with REQUEST.at_question(settings, closer, Call("reason_fits_neither"), relay) as session:
        await session.run(user_input="It's too expensive")
        assert agent_lines(session)[-1] == cancellation.CLOSER_REASON_QUESTION
        await session.run(user_input="Neither, it's just too expensive")
        (output,) = tool_outputs(session, "cancel_order")
        assert (output.output, output.is_error) == (
            cancellation.no_fitting_reason_message("100102"),
            True,
        )
        assert output.output.endswith(OFFER_HUMAN)
        assert isinstance(session.current_agent, CustomerServiceAgent)
        await assert_nothing_cancelled(session)


# --- what the suites every confirming specialist runs drive (support/confirming.py) ----


async def order_cancelled(session: AgentSession[CallState]) -> bool:
    return (await order_now(session, "100102")).status is OrderStatus.CANCELLED


CONFIRMING = REQUEST.confirming(
    "I don't need it any more",
    NO_LONGER_NEEDED,
    changed=order_cancelled,
    nothing_changed=cancellation.kept_message("100102"),
    # A yes that names another order is no yes to this one.
    other_than_read_back=("Yes, cancel order 100101", Call("confirm_cancellation")),
    # A reason the store does not take.
    refused_records={
        "other-reason": Call("record_cancellation_reason", {"reason": "too expensive"})
    },
)


OFFLINE_CHAT = REQUEST.offline_chat("I don't need it any more", "yes", "bye")
"""A `make chat` that reaches it (tests/offline_llm/test_offline_model.py)."""
