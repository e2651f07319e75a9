"""A caller who gives their details with their request is checked from their own words.

Code finds the email address said, and the name and postal code of that email's account
said as whole words; the check is the identity specialist's own. Anything short of a
clean pass leaves the caller to the identity specialist, which checks and counts as it
always does, so this path never counts, records or says a failure. Real sessions on the
real store; only the model is scripted.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from livekit.agents import llm

from customer_service.call.identity_from_words import verified_from_words
from customer_service.call.state import CallState
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import IdentityPolicy, Settings
from customer_service.specialists.identity import mismatch_message
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    agent_lines,
    audit_events,
    audit_kinds,
    check_identity,
    tool_outputs,
)
from support.databases import new_demo_database
from support.identity_failures import near_misses_counted, seed_near_misses
from support.scripted_llm import Call, ScriptedLLM, Turn
from support.scripted_llm import relay_tool_output as relay

WHERE_IS_100101 = "where is order 100101?"
STATUS_OF_100101 = "Order 1 0 0, 1 0 1,"


def history(*lines: str) -> llm.ChatContext:
    context = llm.ChatContext.empty()
    for line in lines:
        context.add_message(role="user", content=line)
    return context


async def test_details_with_the_request_verify_the_caller_with_no_identity_specialist(
    settings: Settings,
) -> None:
    def relays_with_no_check_offered(turn: Turn) -> object:
        assert "check_identity" not in turn.tool_names
        return relay(turn)

    lookup = Call("lookup_order", {"order_id": "100101"})
    model = ScriptedLLM([lookup, relays_with_no_check_offered])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input=f"{JORDAN_SAYS}, {WHERE_IS_100101}")
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == "C-1001"
        assert agent_lines(session)[-1].startswith(STATUS_OF_100101)
        assert tool_outputs(session, "check_identity") == []
        [verified] = await audit_events(session, "identity_verified")
        assert verified.customer_id == "C-1001"
        assert verified.detail["by"] == "email"
        # No specialist ran for it: the disclosure is the only other event.
        assert await audit_kinds(session) == ["identity_verified", "order_disclosed"]
    assert len(model.turns) == 2
    assert not model.overran


async def test_a_wrong_detail_is_left_to_the_specialist_and_counted_once(
    settings: Settings,
) -> None:
    wrong_zip = check_identity(JORDAN, postal_code="90210")
    model = ScriptedLLM([Call("lookup_order", {"order_id": "100101"}), wrong_zip, relay])
    async with call_session(model, settings=settings) as session:
        await session.run(
            user_input=f"Jordan Lee, 90210, jordan.lee@example.com, {WHERE_IS_100101}"
        )
        state = session.userdata
        assert state.verified_customer is None
        assert state.identity.failed_checks == 1
        [output] = tool_outputs(session, "check_identity")
        assert (output.output, output.is_error) == (mismatch_message(2), True)
        assert (await audit_kinds(session)).count("identity_failed") == 1
    assert not model.overran


async def test_the_right_details_on_a_held_account_read_exactly_like_a_wrong_email(
    settings: Settings, store_backend: str, tmp_path: Path
) -> None:
    heard = {}
    for name, email in (("right", JORDAN["phone_or_email"]), ("wrong", "jordan.l@example.com")):
        model = ScriptedLLM(
            [
                Call("lookup_order", {"order_id": "100101"}),
                check_identity(JORDAN, phone_or_email=email),
                relay,
            ]
        )
        async with new_demo_database(store_backend, tmp_path / name) as url:
            await seed_near_misses(url, settings.identity_account_max_failures, label_only=False)
            async with call_session(model, database_url=url, settings=settings) as session:
                await session.run(user_input=f"Jordan Lee, 94107, {email}, {WHERE_IS_100101}")
                state = session.userdata
                outputs = [(o.output, o.is_error) for o in tool_outputs(session, "check_identity")]
                heard[name] = (agent_lines(session), outputs, state.identity.failed_checks)
                assert state.verified_customer is None
            counted = await near_misses_counted(url)
            assert counted == settings.identity_account_max_failures + 1
        assert not model.overran
    assert heard["right"] == heard["wrong"]
    assert heard["right"][1] == [(mismatch_message(2), True)]


@pytest.mark.parametrize(
    "words",
    [
        # The postal code's digits said one by one, as in a phone number: left to the model.
        "Jordan Lee, jordan.lee@example.com, my number is 4 1 5 9 4 1 0 7",
        # A name that is not the account's, though it begins with it.
        "Jordan Leeds, 94107, jordan.lee@example.com",
        # The account's name and postal code with someone else's email.
        "Jordan Lee, 94107, priya.n@example.com",
        # A postal code run into other digits.
        "Jordan Lee, 94107 100101, jordan.lee@example.com",
        # No email: a phone number is read by the identity specialist's model.
        "Jordan Lee, 94107, 415 555 0134",
    ],
    ids=["digit by digit", "longer name", "another's email", "code among digits", "phone"],
)
async def test_words_that_do_not_hold_one_accounts_three_details_verify_nobody(
    settings: Settings, words: str
) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        state: CallState = session.userdata
        assert await verified_from_words(state, history(words)) is None
        assert state.verified_customer is None
        assert state.identity.failed_checks == 0
        assert await audit_kinds(session) == []


@pytest.mark.parametrize(
    "words",
    [
        "JORDAN LEE, zip 94107, Jordan.Lee@Example.com.",
        "hi it's jordan lee. postal code 94107 and my email is jordan.lee@example.com",
    ],
)
async def test_the_details_are_found_however_they_are_written(
    settings: Settings, words: str
) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        state: CallState = session.userdata
        customer = await verified_from_words(state, history("Hello", words))
        assert customer is not None
        assert customer.customer_id == "C-1001"
        assert state.verified_customer == customer


async def test_after_a_failed_check_only_the_specialist_checks(settings: Settings) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        state: CallState = session.userdata
        state.record_failed_identity_check()
        # The details in the history may be the ones refused.
        assert await verified_from_words(state, history(JORDAN_SAYS)) is None
        assert state.verified_customer is None


async def test_under_email_or_name_zip_the_specialist_checks(settings: Settings) -> None:
    by_email = settings.model_copy(update={"identity_policy": IdentityPolicy.EMAIL_OR_NAME_ZIP})
    async with call_session(OfflineLLM(), settings=by_email) as session:
        state: CallState = session.userdata
        assert await verified_from_words(state, history(JORDAN_SAYS)) is None
        assert state.verified_customer is None


async def test_checks_at_once_verify_and_record_once(settings: Settings) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        state: CallState = session.userdata
        said = history(JORDAN_SAYS)
        first, second = await asyncio.gather(
            verified_from_words(state, said), verified_from_words(state, said)
        )
        assert first is not None
        assert first == second == state.verified_customer
        assert (await audit_kinds(session)).count("identity_verified") == 1
