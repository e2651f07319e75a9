"""The account's default address, driven through real sessions with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from livekit.agents import AgentSession

from customer_service.addresses import read_back
from customer_service.call.delegation import ResultRejected
from customer_service.call.state import CallState
from customer_service.domain import Customer
from customer_service.settings import Settings
from customer_service.specialists.default_address import (
    ACCOUNT_NOT_FOUND,
    NEW_POSTAL_CODE,
    WORDING,
    DefaultAddressResult,
    opening_question,
    read_back_question,
    validated_default_address,
)
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.store import Store
from customer_service.store.order_changes import Changed, ChangeRefusal
from customer_service.testing import call_session
from support.confirming import Confirming
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    agent_lines,
    audit_events,
    check_identity,
    tool_outputs,
)
from support.demo_addresses import JORDAN_ADDRESS, MARKET_STREET_SUITE_5, PRIYA_ADDRESS
from support.own_tests import OfflineChat
from support.scenario_store import opened, scenario
from support.scripted_llm import Call, Parallel, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

NEW_ADDRESS = MARKET_STREET_SUITE_5
SAID_ADDRESS = "1 Market Street, Suite 5, San Francisco, California 94105"
RECORD = Call("record_account_address", NEW_ADDRESS.model_dump())
CHANGED = (
    f'Done. The default address on your account is now "{read_back(NEW_ADDRESS)}". '
    f"{NEW_POSTAL_CODE}"
)


async def customer(session: Any, customer_id: str = "C-1001") -> Customer:
    found = await session.userdata.store.get_customer(customer_id)
    assert found is not None
    return found


async def test_an_unverified_caller_is_verified_then_their_accounts_address_changes(
    settings: Settings, demo_database_url: str
) -> None:
    model = ScriptedLLM(
        [
            Call("change_default_address"),
            check_identity(JORDAN),
            RECORD,
            Call("confirm_account_address"),
            relay,
        ]
    )
    async with call_session(model, settings=settings, database_url=demo_database_url) as session:
        await session.run(user_input="I moved, please update my address on file")
        assert agent_lines(session)[-1] == IDENTITY_QUESTION
        await session.run(user_input=JORDAN_SAYS)
        assert agent_lines(session)[-1] == opening_question()
        await session.run(user_input=SAID_ADDRESS)
        # The read-back says whose address this is, and that orders keep theirs.
        heard = agent_lines(session)[-1]
        assert heard == read_back_question(NEW_ADDRESS)
        assert "default address on your account" in heard
        assert "Orders you've already placed keep their delivery addresses" in heard
        assert (await customer(session)).address == JORDAN_ADDRESS

        await session.run(user_input="Yes, that's right")
        (output,) = tool_outputs(session, "change_default_address")
        assert (output.output, output.is_error) == (CHANGED, False)
        changed = await customer(session)
        assert (changed.address, changed.postal_code) == (NEW_ADDRESS, "94105")
        # Orders keep their addresses; nobody else's account changes.
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.shipping_address == JORDAN_ADDRESS
        assert (await customer(session, "C-1002")).address == PRIYA_ADDRESS
        (event,) = await audit_events(session, kind="default_address_changed")
        assert event.customer_id == "C-1001"
        # No address in clear in the audit record.
        assert "Market" not in json.dumps(event.detail)
        assert "Howard" not in json.dumps(event.detail)
    assert not model.overran

    async with await Store.open(demo_database_url) as store:
        stored = await store.get_customer("C-1001")
        assert stored is not None
        assert stored.address == NEW_ADDRESS


async def test_the_address_the_account_already_has_is_said_and_nothing_is_written(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            *(Call("change_default_address"), check_identity(JORDAN), RECORD),
            *(Call("confirm_account_address"), relay),
            *(Call("change_default_address"), RECORD, Call("confirm_account_address"), relay),
        ]
    )
    async with call_session(model, settings=settings) as session:
        for line in ("Change the address on my account", JORDAN_SAYS, SAID_ADDRESS, "Yes"):
            await session.run(user_input=line)
        for line in ("Change my account's address to that again", SAID_ADDRESS, "Yes"):
            await session.run(user_input=line)
        outputs = tool_outputs(session, "change_default_address")
        assert [output.output for output in outputs] == [
            CHANGED,
            f'The default address on your account is already "{read_back(NEW_ADDRESS)}".',
        ]
        assert len(await audit_events(session, kind="default_address_changed")) == 1
    assert not model.overran


async def test_an_invalid_part_is_named_and_asked_again(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            Call("change_default_address"),
            check_identity(JORDAN),
            Call("record_account_address", {**NEW_ADDRESS.model_dump(), "postal_code": "10001"}),
            relay,
            RECORD,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Change the address on my account")
        await session.run(user_input=JORDAN_SAYS)
        rejected = await session.run(user_input="1 Market Street, San Francisco, CA 10001")
        output = rejected.expect.contains_function_call_output(is_error=True)
        assert "isn't one for California" in output.event().item.output
        await session.run(user_input="Sorry, 94105")
        assert agent_lines(session)[-1] == read_back_question(NEW_ADDRESS)
        assert (await customer(session)).address == JORDAN_ADDRESS


async def test_giving_up_changes_nothing(settings: Settings) -> None:
    model = ScriptedLLM(
        [Call("change_default_address"), check_identity(JORDAN), Call("give_up"), relay]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Change the address on my account")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="Actually, never mind")
        (output,) = tool_outputs(session, "change_default_address")
        assert (output.output, output.is_error) == (WORDING.nothing_done, True)
        assert (await customer(session)).address == JORDAN_ADDRESS
        assert await audit_events(session, kind="default_address_changed") == []


async def test_a_refusal_from_the_store_is_a_sentence_and_changes_nothing(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def account_gone(self: Store, **_: Any) -> Changed[Customer]:
        return Changed.refused(ChangeRefusal.CUSTOMER_NOT_FOUND)

    monkeypatch.setattr(Store, "change_default_address", account_gone)
    model = ScriptedLLM(
        [
            *(Call("change_default_address"), check_identity(JORDAN), RECORD),
            *(Call("confirm_account_address"), relay),
        ]
    )
    async with call_session(model, settings=settings) as session:
        for line in ("Change the address on my account", JORDAN_SAYS, SAID_ADDRESS, "Yes"):
            await session.run(user_input=line)
        (output,) = tool_outputs(session, "change_default_address")
        assert (output.output, output.is_error) == (ACCOUNT_NOT_FOUND, True)
        assert agent_lines(session)[-1] == ACCOUNT_NOT_FOUND
        assert (await customer(session)).address == JORDAN_ADDRESS


def test_a_result_for_another_account_or_not_canonical_is_rejected() -> None:
    theirs = DefaultAddressResult(customer_id="C-1002", address=NEW_ADDRESS)
    with pytest.raises(ResultRejected):
        validated_default_address(theirs, "C-1001")
    spelled_out = NEW_ADDRESS.model_copy(update={"region": "California"})
    with pytest.raises(ResultRejected):
        validated_default_address(
            DefaultAddressResult(customer_id="C-1001", address=spelled_out), "C-1001"
        )
    mine = DefaultAddressResult(customer_id="C-1001", address=NEW_ADDRESS)
    assert validated_default_address(mine, "C-1001") == NEW_ADDRESS


# --- what the suites every confirming specialist runs drive (support/confirming.py) ----


async def default_address_changed(session: AgentSession[CallState]) -> bool:
    return (await customer(session)).address == NEW_ADDRESS


CONFIRMING = Confirming(
    supervisor_tool="change_default_address",
    confirm=Call("confirm_account_address"),
    caller=JORDAN,
    lines_to_read_back=(
        "I moved: please change the address on my account",
        JORDAN_SAYS,
        SAID_ADDRESS,
    ),
    steps_to_read_back=(Call("change_default_address"), check_identity(JORDAN), RECORD),
    changed=default_address_changed,
    nothing_changed=WORDING.nothing_done,
    other_than_read_back=(
        "Yes",
        Parallel(
            (
                Call("record_account_address", {**NEW_ADDRESS.model_dump(), "unit": "7"}),
                Call("confirm_account_address"),
            )
        ),
    ),
    account="C-1001",
)


OFFLINE_CHAT = OfflineChat(
    (
        "Change the address on my account",
        JORDAN_SAYS,
        "1 Market Street, Suite 5, San Francisco, CA 94105",
        "yes",
        "bye",
    )
)
"""A `make chat` that reaches it (tests/offline_llm/test_offline_model.py)."""


# --- what a scenario expects of it (its registration's `expects`) ---------------------


async def test_default_addresses_are_compared_and_unnamed_accounts_must_not_change(
    tmp_path: Path,
) -> None:
    expects = scenario(expect={"default_addresses": {"C-1001": NEW_ADDRESS.model_dump()}})
    scenario_store = await opened(tmp_path, expects)
    try:
        [problem] = await scenario_store.differences()
        assert problem == (
            "customer C-1001: default address is 500 Howard St, Apt 4B, San Francisco, CA "
            "94107, US, expected 1 Market Street, Suite 5, San Francisco, CA 94105, US"
        )
        store = scenario_store.store
        await store.change_default_address(
            customer_id="C-1001", address=NEW_ADDRESS, call_id="call-1"
        )
        assert await scenario_store.differences() == []
        await store.change_default_address(
            customer_id="C-1002", address=NEW_ADDRESS, call_id="call-1"
        )
        [problem] = await scenario_store.differences()
        assert problem.startswith("customer C-1002: default address is 1 Market Street")
    finally:
        await scenario_store.close()
