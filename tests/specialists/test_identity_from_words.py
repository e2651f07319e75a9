"""A caller who gives their details with their request is checked by code from their words.

Code reads one block (full name, then postal code and email address) knowing nothing of
any account, and makes the identity specialist's own check of it: verified, or refused
and counted, with the same words. A message without such a block is left to the identity
specialist. Real sessions on the real store; only the model is scripted.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from livekit.agents import llm

from customer_service.call.identity_check import Refused
from customer_service.call.identity_from_words import checked_from_words, details_in
from customer_service.call.identity_policy import GivenDetails
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


async def test_a_wrong_detail_with_the_request_is_refused_and_counted_once_by_code(
    settings: Settings,
) -> None:
    # The specialist's model sees only the correction: the refusal was code's.
    model = ScriptedLLM(
        [Call("lookup_order", {"order_id": "100101"}), check_identity(JORDAN), relay]
    )
    async with call_session(model, settings=settings) as session:
        state = session.userdata
        await session.run(
            user_input=f"Jordan Lee, 90210, jordan.lee@example.com, {WHERE_IS_100101}"
        )
        assert state.verified_customer is None
        assert state.identity.failed_checks == 1
        # Said as a refused check_identity would be, by the specialist that opens.
        assert agent_lines(session)[-1] == mismatch_message(2)
        assert tool_outputs(session, "check_identity") == []
        [failed] = await audit_events(session, "identity_failed")
        assert failed.detail["attempts_left"] == 2
        await session.run(user_input="Sorry, the postal code is 94107")
        assert state.verified_customer is not None
        assert state.identity.failed_checks == 1
        assert agent_lines(session)[-1].startswith(STATUS_OF_100101)
    assert not model.overran


async def test_the_right_details_on_a_held_account_read_exactly_like_a_wrong_email(
    settings: Settings, store_backend: str, tmp_path: Path
) -> None:
    heard = {}
    for name, email in (("right", JORDAN["phone_or_email"]), ("wrong", "jordan.l@example.com")):
        model = ScriptedLLM([Call("lookup_order", {"order_id": "100101"})])
        async with new_demo_database(store_backend, tmp_path / name) as url:
            await seed_near_misses(url, settings.identity_account_max_failures, label_only=False)
            async with call_session(model, database_url=url, settings=settings) as session:
                await session.run(user_input=f"Jordan Lee, 94107, {email}, {WHERE_IS_100101}")
                state = session.userdata
                heard[name] = (agent_lines(session), state.identity.failed_checks)
                assert state.verified_customer is None
            # Counted against the account like any near miss.
            counted = await near_misses_counted(url)
            assert counted == settings.identity_account_max_failures + 1
        assert not model.overran
    assert heard["right"] == heard["wrong"]
    assert heard["right"][0][-1] == mismatch_message(2)


async def test_a_list_of_names_is_one_check_of_the_name_next_to_the_postal_code(
    settings: Settings,
) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        state: CallState = session.userdata
        guesses = history("Jordan Lee, Sam Kim, 94107, jordan.lee@example.com")
        one_check = GivenDetails("Sam Kim", "94107", "jordan.lee@example.com")
        assert await checked_from_words(state, guesses) == (one_check, Refused.MISMATCH)
        assert state.identity.failed_checks == 1
        assert state.verified_customer is None
        # The same message is never read twice.
        assert await checked_from_words(state, guesses) is None
        assert state.identity.failed_checks == 1


READ = {
    "greeting, then the block": (
        "Hi, this is Jordan Lee, 94107, jordan.lee@example.com. Where is 100101?",
        GivenDetails("Jordan Lee", "94107", "jordan.lee@example.com"),
    ),
    "filler between, no commas": (
        "my name is Jordan Lee and my zip is 94107 and my email is Jordan.Lee@Example.com",
        GivenDetails("Jordan Lee", "94107", "jordan.lee@example.com"),
    ),
    "email before the postal code": (
        "Jordan Lee, jordan.lee@example.com, 94107, where's my order?",
        GivenDetails("Jordan Lee", "94107", "jordan.lee@example.com"),
    ),
    "a postal code in two parts": (
        "Good morning, Mary Ann Lee, SW1A 1AA, mary@example.co.uk",
        GivenDetails("Mary Ann Lee", "SW1A 1AA", "mary@example.co.uk"),
    ),
    "a list: the name next to the code": (
        "Sam Kim, Jordan Lee, 94107, jordan.lee@example.com",
        GivenDetails("Jordan Lee", "94107", "jordan.lee@example.com"),
    ),
}


@pytest.mark.parametrize(("words", "given"), READ.values(), ids=READ.keys())
def test_one_block_of_details_is_read_as_said(words: str, given: GivenDetails) -> None:
    assert details_in(words) == given


NOT_READ = {
    "digit by digit": "Jordan Lee, 9 4 1 0 7, jordan.lee@example.com",
    "a phone number": "Jordan Lee, 94107, 415 555 0134",
    "two email addresses": "Jordan Lee, 94107, jordan.lee@example.com or priya.n@example.com",
    "a correction of the code": "Jordan Lee 94110 jordan.lee@example.com oh wait I mean 94107",
    "a correction of the name": "Jordan Lee, 94107, jordan.lee@example.com, sorry, Jordan Leigh",
    "another code of that shape": "Jordan Lee, 94107, jordan.lee@example.com, or 94108",
    "the name last": "jordan.lee@example.com 94107 Jordan Lee",
    "one word of a name": "Jordan, 94107, jordan.lee@example.com",
    "a greeting run into the name": "Howdy Jordan Lee 94107 jordan.lee@example.com",
    "names run together": "Sam Kim Jordan Lee, 94107, jordan.lee@example.com",
    "a code run into a number": "Jordan Lee, 94107 100101, jordan.lee@example.com",
}


@pytest.mark.parametrize("words", NOT_READ.values(), ids=NOT_READ.keys())
async def test_words_without_one_block_are_left_to_the_specialist_with_nothing_counted(
    settings: Settings, words: str
) -> None:
    assert details_in(words) is None
    async with call_session(OfflineLLM(), settings=settings) as session:
        state: CallState = session.userdata
        assert await checked_from_words(state, history(words)) is None
        assert state.verified_customer is None
        assert state.identity.failed_checks == 0
        assert await audit_kinds(session) == []


async def test_under_email_or_name_zip_the_specialist_checks(settings: Settings) -> None:
    by_email = settings.model_copy(update={"identity_policy": IdentityPolicy.EMAIL_OR_NAME_ZIP})
    async with call_session(OfflineLLM(), settings=by_email) as session:
        state: CallState = session.userdata
        assert await checked_from_words(state, history(JORDAN_SAYS)) is None
        assert state.verified_customer is None


async def test_a_locked_call_is_refused_and_nothing_more_is_counted(settings: Settings) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        state: CallState = session.userdata
        for _ in range(settings.identity_max_attempts):
            state.record_failed_identity_check()
        checked = await checked_from_words(state, history(JORDAN_SAYS))
        assert checked is not None
        assert checked[1] is Refused.LOCKED
        assert state.verified_customer is None
        assert state.identity.failed_checks == settings.identity_max_attempts


async def test_checks_at_once_verify_and_record_once(settings: Settings) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        state: CallState = session.userdata
        said = history(JORDAN_SAYS)
        first, second = await asyncio.gather(
            checked_from_words(state, said), checked_from_words(state, said)
        )
        # One check of the message; the other found it read and checked nothing.
        assert state.verified_customer is not None
        assert sorted([first, second], key=lambda checked: checked is None) == [
            (details_in(JORDAN_SAYS), state.verified_customer),
            None,
        ]
        assert (await audit_kinds(session)).count("identity_verified") == 1
