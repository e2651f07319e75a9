"""A read-back or consent question is answered only by the caller's own clear words.

The model may call any confirming tool with any argument; what is written is decided
in code from what the caller said after the question finished playing.
"""

from __future__ import annotations

import datetime as dt

import pytest

from customer_service.call.wording import spaced_digits
from customer_service.domain import CancelReason, OrderStatus
from customer_service.settings import Settings
from customer_service.specialists.address_update import WORDING as ADDRESS_WORDING
from customer_service.specialists.address_update import (
    AddressUpdateTask,
    not_changeable_message,
)
from customer_service.specialists.consent import (
    CONSENT_WORDING,
    UNCLEAR_CONFIRMATIONS,
    ConsentTask,
    ConsentTopic,
)
from customer_service.store import ConsentRecord
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    agent_lines,
    tool_outputs,
    verifying_for,
)
from support.demo_addresses import MARKET_ST_ARGUMENTS
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay
from support.text_updates import ask_for_texts, asking_for_texts

SMS = ConsentTopic.ORDER_UPDATES_SMS
SMS_QUESTION = CONSENT_WORDING[SMS].question
NEW_ADDRESS = MARKET_ST_ARGUMENTS
READ_BACK = "I have 1 Market St, San Francisco, CA 94105, United States. Is that right?"


def address_change_start() -> list[Call]:
    return [
        *verifying_for("update_address", "100102", JORDAN),
        Call("record_address", NEW_ADDRESS),
    ]


@pytest.mark.parametrize(
    "answer",
    [
        "No, that's wrong",
        "Yes, but the zip is 94108",
        "yes 94108",
        "hmm, what?",
        "Actually, can you change the street?",
    ],
)
async def test_a_confirmation_on_anything_but_a_clear_yes_writes_nothing(
    settings: Settings, answer: str
) -> None:
    model = ScriptedLLM([*address_change_start(), Call("confirm_address"), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Change the address of order 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market St, San Francisco, CA 94105")
        assert agent_lines(session)[-1] == READ_BACK

        result = await session.run(user_input=answer)
        result.expect.contains_function_call_output(
            output=ADDRESS_WORDING.not_a_clear_yes, is_error=True
        )
        assert await session.userdata.store.address_changes(order_id="100102") == []
        assert isinstance(session.current_agent, AddressUpdateTask)
    assert not model.overran


async def test_a_model_that_keeps_confirming_without_a_yes_changes_nothing(
    settings: Settings,
) -> None:
    model = ScriptedLLM([*address_change_start(), *[Call("confirm_address"), relay] * 3])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Change the address of order 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market St, San Francisco, CA 94105")
        for answer in ("hmm", "I don't know", "maybe"):
            await session.run(user_input=answer)
        (update,) = tool_outputs(session, "update_address")
        assert update.is_error
        assert update.output == ADDRESS_WORDING.refused
        assert await session.userdata.store.address_changes(order_id="100102") == []
        assert not isinstance(session.current_agent, AddressUpdateTask)
    assert not model.overran


async def test_a_clear_yes_after_the_read_back_writes_the_change(settings: Settings) -> None:
    model = ScriptedLLM([*address_change_start(), Call("confirm_address")])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Change the address of order 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market St, San Francisco, CA 94105")
        await session.run(user_input="Yes, that's right")
        [change] = await session.userdata.store.address_changes(order_id="100102")
        assert change.new_address.street == "1 Market St"


async def test_an_order_cancelled_while_its_address_is_changed_is_told_cancelled(
    settings: Settings,
) -> None:
    model = ScriptedLLM([*address_change_start(), Call("confirm_address"), relay])
    async with call_session(model, settings=settings) as session:
        state = session.userdata
        await session.run(user_input="Change the address of order 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market St, San Francisco, CA 94105")
        # Another channel cancels the order while the caller hears the read-back.
        await state.store.cancel_order(
            order_id="100102",
            customer_id="C-1001",
            reason=CancelReason.NO_LONGER_NEEDED,
            call_id="web",
        )

        await session.run(user_input="Yes, that's right")
        (update,) = tool_outputs(session, "update_address")
        assert update.is_error
        assert update.output == not_changeable_message("100102", OrderStatus.CANCELLED)
        assert "shipped" not in update.output
        assert await state.store.address_changes(order_id="100102") == []
        order = await state.store.get_order("100102")
        assert order is not None
        assert order.status is OrderStatus.CANCELLED
        assert order.shipping_address.street == "500 Howard St"
    assert not model.overran


async def test_a_yes_claimed_for_an_unclear_answer_stores_nothing(settings: Settings) -> None:
    model = ScriptedLLM(
        asking_for_texts(
            Call("record_consent", {"granted": True}),
            Call("record_consent", {"granted": True}),
        )
    )
    async with call_session(model, settings=settings) as session:
        await ask_for_texts(session, "What does it cost? Maybe?")
        # Not a yes: the question is asked again, in its fixed words.
        assert agent_lines(session)[-1] == SMS_QUESTION
        assert isinstance(session.current_agent, ConsentTask)

        await session.run(user_input="I guess, maybe")
        assert agent_lines(session)[-1] == UNCLEAR_CONFIRMATIONS[SMS]
        store = session.userdata.store
        assert await store.latest_consent(topic=SMS, customer_id="C-1001") is None
    assert not model.overran


async def test_a_yes_claimed_for_a_clear_no_is_not_stored_as_a_yes(settings: Settings) -> None:
    model = ScriptedLLM(
        asking_for_texts(
            Call("record_consent", {"granted": True}),
            Call("record_consent", {"granted": False}),
        )
    )
    async with call_session(model, settings=settings) as session:
        await ask_for_texts(session, "No, I don't want that")
        assert agent_lines(session)[-1] == SMS_QUESTION
        await session.run(user_input="No")
        record = await session.userdata.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted is False
    assert not model.overran


async def test_an_answer_to_an_older_wording_is_asked_again(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            *address_change_start(),
            Call("confirm_address"),
            Call("record_consent", {"granted": False}),
        ]
    )
    async with call_session(model, settings=settings) as session:
        state = session.userdata
        await state.store.record_consent(
            ConsentRecord(
                topic=SMS,
                granted=True,
                wording_version="order_updates_sms/2020-01-01",
                asked_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC),
                call_id="call-earlier",
                customer_id="C-1001",
            )
        )
        await session.run(user_input="Change the address of order 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market St, San Francisco, CA 94105")
        await session.run(user_input="Yes, that's right")
        done = f"Done. Order {spaced_digits('100102')} will now be delivered to"
        confirmation, question = agent_lines(session)[-2:]
        assert confirmation.startswith(done)
        assert question == SMS_QUESTION
        await session.run(user_input="No thanks")
        record = await state.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert (record.granted, record.wording_version) == (False, CONSENT_WORDING[SMS].version)
    assert not model.overran
