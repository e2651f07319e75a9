"""Address changes, driven through real sessions with a scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from livekit.agents import AgentSession

from customer_service.addresses import read_back
from customer_service.call.state import CallState
from customer_service.call.wording import ANYTHING_ELSE
from customer_service.settings import Settings
from customer_service.specialists.address_update import WORDING as ADDRESS_WORDING
from customer_service.specialists.address_update import AddressUpdateTask
from customer_service.specialists.consent import (
    CONSENT_CONFIRMATIONS,
    CONSENT_WORDING,
    ConsentTopic,
)
from customer_service.store import Store
from customer_service.supervisor import TEXT_UPDATES_NOT_SET
from customer_service.testing import call_session
from support.confirming import Confirming
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    agent_lines,
    check_identity,
    order_now,
    tool_outputs,
    verifying_for,
)
from support.demo_addresses import MARKET_STREET_SUITE_5
from support.own_tests import OfflineChat
from support.scripted_llm import Call, Parallel, Say, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

MARKET_STREET: dict[str, Any] = {
    "street": "1 Market Street",
    "unit": "Suite 5",
    "city": "San Francisco",
    "region": "California",
    "postal_code": "94105",
    "country": "USA",
}
MARKET_STREET_ADDRESS = MARKET_STREET_SUITE_5


def record(**changes: Any) -> Call:
    return Call("record_address", {**MARKET_STREET, **changes})


def change_100102_script(*, sms_answer: bool = False) -> list[Any]:
    # The confirmation and the text-update question are said by code (no model turn), and
    # so is the answer's confirmation.
    return [
        *verifying_for("update_address", "100102", JORDAN),
        record(),
        Call("confirm_address"),
        Call("record_consent", {"granted": sms_answer}),
    ]


async def change_100102(session: Any) -> None:
    await session.run(user_input="I need to change the delivery address for order 100102")
    await session.run(user_input=JORDAN_SAYS)
    await session.run(user_input="1 Market Street, Suite 5, San Francisco, California 94105")
    await session.run(user_input="Yes, that's right")
    await session.run(user_input="No thanks")


async def test_full_change_is_seen_by_a_later_lookup_and_a_later_call(
    settings: Settings, demo_database_url: str
) -> None:
    database_url = demo_database_url
    model = ScriptedLLM(
        [*change_100102_script(), Call("lookup_order", {"order_id": "100102"}), relay]
    )
    async with call_session(model, settings=settings, database_url=database_url) as session:
        await session.run(user_input="I need to change the delivery address for order 100102")
        await session.run(user_input=JORDAN_SAYS)
        asked = agent_lines(session)[-1]
        assert asked.startswith("What's the new delivery address for order 1 0 0, 1 0 2?")

        heard = await session.run(
            user_input="1 Market Street, Suite 5, San Francisco, California 94105"
        )
        heard.expect.next_event().is_function_call(name="record_address")
        heard.expect.next_event().is_function_call_output(is_error=False)
        # The task reads the address back itself, in fixed words.
        heard.expect.next_event().is_message(role="assistant")
        assert agent_lines(session)[-1] == (
            f"I have {read_back(MARKET_STREET_ADDRESS)}. Is that right?"
        )
        confirmed = await session.run(user_input="Yes, that's right")
        confirmed.expect.next_event().is_function_call(name="confirm_address")
        # The change is written and said; then, in a turn of its own, the text question.
        done = (
            f"Done. Order 1 0 0, 1 0 2 will now be delivered to {read_back(MARKET_STREET_ADDRESS)}."
        )
        assert agent_lines(session)[-2:] == [
            done,
            CONSENT_WORDING[ConsentTopic.ORDER_UPDATES_SMS].question,
        ]
        (output,) = tool_outputs(session, "update_address")
        assert (output.output, output.is_error) == (REPORTED, False)
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.shipping_address == MARKET_STREET_ADDRESS

        await session.run(user_input="No thanks")
        assert agent_lines(session)[-1] == (
            f"{CONSENT_CONFIRMATIONS[(ConsentTopic.ORDER_UPDATES_SMS, False)]} {ANYTHING_ELSE}"
        )
        looked_up = await session.run(user_input="Where is order 100102 going now?")
        summary = looked_up.expect.contains_function_call_output(is_error=False)
        assert "1 Market Street, Suite 5, San Francisco, CA 94105" in summary.event().item.output
    assert not model.overran

    async with await Store.open(database_url) as store:
        order = await store.get_order("100102")
        assert order is not None
        assert order.shipping_address == MARKET_STREET_ADDRESS
        changes = await store.address_changes(order_id="100102")
        assert len(changes) == 1
        assert changes[0].new_address == MARKET_STREET_ADDRESS
        assert changes[0].old_address.street == "500 Howard St"
        kinds = [event.kind for event in await store.audit_events(kind="address_changed")]
        assert kinds == ["address_changed"]

    # A second call on the same database starts from the changed address.
    second = ScriptedLLM(
        [Call("lookup_order", {"order_id": "100102"}), check_identity(JORDAN), relay]
    )
    async with call_session(second, settings=settings, database_url=database_url) as session:
        await session.run(user_input="Where is order 100102?")
        await session.run(user_input=JORDAN_SAYS)
        assert "1 Market Street, Suite 5" in agent_lines(session)[-2]


async def test_shipped_order_is_refused_and_unchanged(settings: Settings) -> None:
    model = ScriptedLLM(
        [Call("update_address", {"order_id": "100101"}), check_identity(JORDAN), relay]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Please send order 100101 to my new address")
        result = await session.run(user_input=JORDAN_SAYS)
        output = result.expect.contains_function_call_output(is_error=True)
        text = output.event().item.output
        assert "already shipped" in text
        assert "colleague" in text
        result.expect.contains_message(role="assistant")
        assert not isinstance(session.current_agent, AddressUpdateTask)
        order = await session.userdata.store.get_order("100101")
        assert order is not None
        assert order.shipping_address.street == "500 Howard St"
        assert await session.userdata.store.address_changes(order_id="100101") == []


@pytest.mark.parametrize(
    ("bad_fields", "field_words"),
    [
        ({"postal_code": "9410"}, "ZIP code"),
        ({"postal_code": "ABCDE"}, "ZIP code"),
        ({"region": "Narnia"}, "state"),
        ({"country": "Atlantis"}, "country"),
        # A New York ZIP code with California, and placeholders in place of a place.
        (
            {"postal_code": "10001"},
            "The ZIP code 10001 isn't one for California. Please check the ZIP code or the state.",
        ),
        ({"postal_code": "00000"}, "The ZIP code 00000 looks like a placeholder"),
        ({"city": "N/A"}, "The city N/A looks like a placeholder"),
        ({"street": "x"}, "The street x looks like a placeholder"),
        ({"street": "123 Fake Street"}, "The street 123 Fake Street looks like a placeholder"),
        ({"street": "same as before"}, "I need the address itself"),
        ({"city": "asdf"}, "The city asdf doesn't look like a real place name"),
        ({"postal_code": "94105-0000"}, "never all zeros"),
        ({"country": "Spain", "postal_code": "28014"}, "The province California isn't one"),
    ],
)
async def test_invalid_fields_are_named_and_asked_again(
    settings: Settings, bad_fields: dict[str, str], field_words: str
) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            record(**bad_fields),
            relay,
            record(),
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="change the address on 100102")
        await session.run(user_input=JORDAN_SAYS)
        rejected = await session.run(user_input="the new address is ...")
        output = rejected.expect.contains_function_call_output(is_error=True)
        assert field_words in output.event().item.output
        assert agent_lines(session)[-1] == output.event().item.output
        corrected = await session.run(user_input="sorry, 1 Market Street, Suite 5, ...")
        corrected.expect.contains_function_call_output(is_error=False)
        assert agent_lines(session)[-1] == (
            f"I have {read_back(MARKET_STREET_ADDRESS)}. Is that right?"
        )


ALCALA: dict[str, Any] = {
    "street": "Calle de Alcalá 45",
    "city": "Madrid",
    "region": "",
    "postal_code": "28014",
    "country": "Spain",
}


async def test_a_spanish_address_is_read_back_in_spanish_order_and_saved(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            Call("record_address", ALCALA),
            Call("confirm_address"),
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="change the address on 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="Calle de Alcalá 45, 28014 Madrid, Spain")
        assert (
            agent_lines(session)[-1]
            == "I have Calle de Alcalá 45, 28014 Madrid, Spain. Is that right?"
        )
        await session.run(user_input="Yes, that's right")
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        # The province, found from the postal code, is kept as the metadata's code.
        assert order.shipping_address.model_dump() == {
            "street": "Calle de Alcalá 45",
            "unit": None,
            "city": "Madrid",
            "region": "M",
            "postal_code": "28014",
            "country": "ES",
        }


@pytest.mark.parametrize(
    "hostile",
    ["'); DROP TABLE orders; --", "x" * 5000],
    ids=["sql", "5000-characters"],
)
async def test_hostile_text_is_refused_and_the_store_is_intact(
    settings: Settings, hostile: str
) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            record(street=hostile),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="change the address on 100102")
        await session.run(user_input=JORDAN_SAYS)
        result = await session.run(user_input=hostile)
        output = result.expect.contains_function_call_output(is_error=True)
        message = output.event().item.output
        assert "street" in message
        assert hostile not in message
        assert len(message) < 300
        store = session.userdata.store
        assert len(await store.recent_orders("C-1001", limit=10)) == 2
        order = await store.get_order("100102")
        assert order is not None
        assert order.shipping_address.street == "500 Howard St"


async def test_confirmation_sent_with_a_correction_is_stale(settings: Settings) -> None:
    corrected = {**MARKET_STREET, "unit": "Suite 7"}
    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            record(),
            # The caller corrects the unit; the model records it and confirms at once.
            Parallel((Call("record_address", corrected), Call("confirm_address"))),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="change the address on 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market Street, Suite 5, San Francisco, CA 94105")
        result = await session.run(user_input="No, it's suite 7")
        outputs = {item.name: item for item in tool_outputs(session, "confirm_address")}
        assert outputs["confirm_address"].is_error
        assert outputs["confirm_address"].output in (
            ADDRESS_WORDING.replaced,
            ADDRESS_WORDING.unanswered,
        )
        result.expect.contains_function_call(name="record_address")
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.shipping_address.street == "500 Howard St"


async def test_confirming_before_the_caller_answers_is_refused(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            # The model confirms in the same reply that records the address.
            Parallel((record(), Call("confirm_address"))),
            Say("Please tell me if that's right."),
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="change the address on 100102")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="1 Market Street, Suite 5, San Francisco 94105")
        # Whichever check stops it (the confirm tool not offered yet within the turn, or
        # no caller answer since the read-back), nothing is confirmed or changed.
        (refused,) = tool_outputs(session, "confirm_address")
        assert refused.is_error
        assert await session.userdata.store.address_changes(order_id="100102") == []
        assert isinstance(session.current_agent, AddressUpdateTask)


async def test_double_confirmation_makes_one_change(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            record(),
            Parallel((Call("confirm_address"), Call("confirm_address"))),
            Call("record_consent", {"granted": False}),
            # The model then asks for the very same change again.
            Call("update_address", {"order_id": "100102"}),
            record(),
            Call("confirm_address"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await change_100102(session)
        await session.run(user_input="Change 100102 to that address again please")
        await session.run(user_input="1 Market Street, Suite 5, San Francisco, CA 94105")
        again = await session.run(user_input="yes")
        again.expect.contains_function_call_output(
            output=(
                "Order 1 0 0, 1 0 2 is already set to be delivered to "
                f'"{read_back(MARKET_STREET_ADDRESS)}".'
            )
        )
        store = session.userdata.store
        assert len(await store.address_changes(order_id="100102")) == 1
        assert len(await store.audit_events(kind="address_changed")) == 1
    assert not model.overran


async def test_give_up_changes_nothing(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            Call("give_up"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="change the address on 100102")
        await session.run(user_input=JORDAN_SAYS)
        result = await session.run(user_input="actually, forget it")
        result.expect.contains_function_call_output(
            output=ADDRESS_WORDING.nothing_done, is_error=True
        )
        assert await session.userdata.store.address_changes(order_id="100102") == []


async def test_another_customers_order_is_refused_like_an_unknown_one(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [Call("update_address", {"order_id": "200202"}), check_identity(JORDAN), relay]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="change the address on order 200202")
        result = await session.run(user_input=JORDAN_SAYS)
        output = result.expect.contains_function_call_output(is_error=True)
        assert output.event().item.output.startswith(
            "I couldn't find an order with the number 2 0 0, 2 0 2 on your account."
        )
        order = await session.userdata.store.get_order("200202")
        assert order is not None
        assert order.shipping_address.street == "350 5th Ave"
        assert not isinstance(session.current_agent, AddressUpdateTask)


DONE = f"Done. Order 1 0 0, 1 0 2 will now be delivered to {read_back(MARKET_STREET_ADDRESS)}."
REPORTED = (
    f'Done. Order 1 0 0, 1 0 2 will now be delivered to "{read_back(MARKET_STREET_ADDRESS)}".'
)
"""What the model reads of the change: the stored address quoted as data."""


async def change_until_confirmed(session: Any) -> None:
    await session.run(user_input="I need to change the delivery address for order 100102")
    await session.run(user_input=JORDAN_SAYS)
    await session.run(user_input="1 Market Street, Suite 5, San Francisco, California 94105")
    await session.run(user_input="Yes, that's right")


async def test_a_bound_tripped_by_the_text_update_offer_never_reports_the_change_failed(
    settings: Settings,
) -> None:
    # Identity and the address update use both delegations the call allows, so the
    # text-update offer that follows the saved change is refused by the bound.
    bounded = settings.model_copy(update={"max_delegations_per_call": 2})
    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            record(),
            Call("confirm_address"),
        ]
    )
    async with call_session(model, settings=bounded) as session:
        await change_until_confirmed(session)
        (output,) = tool_outputs(session, "update_address")
        assert (output.output, output.is_error) == (REPORTED, False)
        assert agent_lines(session)[-2:] == [DONE, f"{TEXT_UPDATES_NOT_SET} {ANYTHING_ELSE}"]
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.shipping_address == MARKET_STREET_ADDRESS
    assert not model.overran


async def test_an_error_in_the_text_update_offer_never_reports_the_change_failed(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken_write(self: Store, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug in the consent write")

    monkeypatch.setattr(Store, "record_consent", broken_write)
    model = ScriptedLLM(change_100102_script())
    async with call_session(model, settings=settings) as session:
        await change_100102(session)
        (output,) = tool_outputs(session, "update_address")
        assert (output.output, output.is_error) == (REPORTED, False)
        assert agent_lines(session)[-1] == f"{TEXT_UPDATES_NOT_SET} {ANYTHING_ELSE}"
        assert "Nothing has been changed" not in " ".join(agent_lines(session))
        changes = await session.userdata.store.address_changes(order_id="100102")
        assert [change.new_address for change in changes] == [MARKET_STREET_ADDRESS]
    assert not model.overran


# --- what the suites every confirming specialist runs drive (support/confirming.py) ----


async def address_changed(session: AgentSession[CallState]) -> bool:
    return (await order_now(session, "100102")).shipping_address == MARKET_STREET_SUITE_5


CONFIRMING = Confirming(
    supervisor_tool="update_address",
    confirm=Call("confirm_address"),
    caller=JORDAN,
    lines_to_read_back=(
        "I need to change the delivery address for order 100102",
        JORDAN_SAYS,
        "1 Market Street, Suite 5, San Francisco, California 94105",
    ),
    steps_to_read_back=(
        *verifying_for("update_address", "100102", JORDAN),
        Call("record_address", MARKET_STREET_SUITE_5.model_dump()),
    ),
    changed=address_changed,
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


OFFLINE_CHAT = OfflineChat(
    (
        "I need to change the delivery address for order 100102",
        JORDAN_SAYS,
        "1 Market Street, Suite 5, San Francisco, CA 94105",
        "yes",
        "no",
        "bye",
    )
)
"""A `make chat` that reaches it (tests/offline_llm/test_offline_model.py)."""
