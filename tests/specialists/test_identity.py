"""Identity verification, driven through real sessions with a scripted model."""

from __future__ import annotations

import pytest

from customer_service.settings import Settings
from customer_service.specialists.identity import (
    OPENING_QUESTION,
    VERIFICATION_DECLINED,
    VERIFICATION_LOCKED,
    VerifyIdentityTask,
    mismatch_message,
)
from customer_service.testing import call_session
from support.conversation import (
    JORDAN,
    PRIYA,
    agent_lines,
    audit_kinds,
    check_identity,
)
from support.own_tests import OfflineChat
from support.scripted_llm import IDENTITY_TOOLS, SUPERVISOR_TOOLS, Call, Say, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay


@pytest.mark.parametrize(
    ("line", "check", "requests"),
    [
        # All three details of one account in one line: checked by code, no model request.
        ("Jordan Lee, 94107, jordan.lee@example.com", "check_details_said", 2),
        # A name said surname first is the model's to read, and its check runs.
        ("Lee, Jordan. 94107, jordan.lee@example.com", "check_identity", 3),
    ],
    ids=["checked by code", "read by the model"],
)
async def test_verified_by_email_returns_to_the_supervisor(
    settings: Settings, line: str, check: str, requests: int
) -> None:
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), relay])
    async with call_session(model, settings=settings) as session:
        asked = await session.run(user_input="I'd like to check something on my account")
        asked.expect.next_event().is_function_call(name="verify_identity")
        asked.expect.next_event().is_agent_handoff(new_agent_type=VerifyIdentityTask)
        question = asked.expect.next_event().is_message(role="assistant").event().item
        assert question.text_content == OPENING_QUESTION
        asked.expect.no_more_events()

        answered = await session.run(user_input=line)
        answered.expect.next_event().is_function_call(name=check, arguments=JORDAN)
        answered.expect.next_event().is_function_call_output(is_error=False)
        answered.expect.skip_next_event_if(type="agent_handoff")
        answered.expect.next_event().is_function_call_output(
            output='Thank you, "Jordan Lee", you are verified.', is_error=False
        )
        answered.expect.next_event().is_message(role="assistant")
        answered.expect.no_more_events()

        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == "C-1001"
        assert "identity_verified" in await audit_kinds(session)
    assert len(model.turns) == requests
    assert model.turns[-2].offers(IDENTITY_TOOLS) is (check == "check_identity")
    assert model.turns[-1].offers(SUPERVISOR_TOOLS)
    assert not model.overran


@pytest.mark.parametrize(
    "phone",
    [
        "+1 (415) 555-0134",
        "4155550134",
        "415.555.0134",
        "+14155550134",
        "four one five five five five zero one three four",
    ],
)
async def test_verified_by_phone_in_any_common_format(settings: Settings, phone: str) -> None:
    model = ScriptedLLM(
        [Call("verify_identity"), check_identity(JORDAN, phone_or_email=phone), relay]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Can you verify me?")
        await session.run(user_input=f"Jordan Lee, 94107, {phone}")
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.full_name == "Jordan Lee"


async def test_accents_case_and_spacing_do_not_matter(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            Call("verify_identity"),
            Call(
                "check_identity",
                {
                    "full_name": "  maria   GARCIA ",
                    "postal_code": "28013",
                    "phone_or_email": "Maria.Garcia@Example.ES",
                },
            ),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="verify me please")
        await session.run(user_input="maria garcia, 28013, Maria.Garcia@Example.ES")
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == "C-1003"


MISMATCHES = {
    "wrong name": check_identity(JORDAN, full_name="Jordan Smith"),
    "wrong postal code": check_identity(JORDAN, postal_code="94108"),
    "wrong email": check_identity(JORDAN, phone_or_email="jordan@example.com"),
    "wrong phone": check_identity(JORDAN, phone_or_email="+1 415 555 0199"),
    "another customer's email": check_identity(JORDAN, phone_or_email=PRIYA["phone_or_email"]),
    "no such account": check_identity(
        JORDAN, full_name="Alex Nobody", postal_code="60601", phone_or_email="alex@example.org"
    ),
}


@pytest.mark.parametrize("mismatch", MISMATCHES.values(), ids=MISMATCHES.keys())
async def test_every_mismatch_reads_the_same(settings: Settings, mismatch: Call) -> None:
    model = ScriptedLLM([Call("verify_identity"), mismatch, Say("Sorry, could you repeat?")])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="verify me")
        result = await session.run(user_input="here are my details")
        result.expect.next_event().is_function_call(name="check_identity")
        result.expect.next_event().is_function_call_output(
            output=mismatch_message(settings.identity_max_attempts - 1), is_error=True
        )
        assert session.userdata.verified_customer is None
        assert session.userdata.identity.failed_checks == 1
        assert "identity_failed" in await audit_kinds(session)


async def test_three_failures_lock_verification_for_the_call(settings: Settings) -> None:
    wrong = check_identity(JORDAN, postal_code="00000")
    model = ScriptedLLM(
        [
            Call("lookup_order", {"order_id": "100101"}),
            wrong,
            relay,
            wrong,
            relay,
            wrong,
            relay,
            # The caller tries again later in the same call.
            Call("verify_identity"),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Where is my order 100101?")
        first = await session.run(user_input="Jordan Lee, 00000, jordan.lee@example.com")
        first.expect.contains_function_call_output(output=mismatch_message(2), is_error=True)
        second = await session.run(user_input="Jordan Lee, 00000, jordan.lee@example.com")
        second.expect.contains_function_call_output(output=mismatch_message(1), is_error=True)
        third = await session.run(user_input="Jordan Lee, 00000, jordan.lee@example.com")
        third.expect.contains_function_call_output(output=VERIFICATION_LOCKED, is_error=True)
        assert session.userdata.identity.locked

        again = await session.run(user_input="Let me try verifying once more")
        again.expect.next_event().is_function_call(name="verify_identity")
        again.expect.next_event().is_function_call_output(output=VERIFICATION_LOCKED, is_error=True)
        again.expect.next_event().is_message(role="assistant")
        again.expect.no_more_events()
        assert session.userdata.verified_customer is None
        assert "colleague" in agent_lines(session)[-1]
        assert "1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" not in " ".join(agent_lines(session))
    assert not model.overran


async def test_give_up_ends_without_verification(settings: Settings) -> None:
    model = ScriptedLLM([Call("lookup_order"), Call("give_up"), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I want to check an order")
        result = await session.run(user_input="I'd rather not say")
        result.expect.next_event().is_function_call(name="give_up")
        result.expect.contains_function_call_output(output=VERIFICATION_DECLINED, is_error=True)
        assert session.userdata.verified_customer is None
        assert not session.userdata.identity.locked


async def test_missing_details_do_not_count_as_an_attempt(settings: Settings) -> None:
    model = ScriptedLLM(
        [Call("verify_identity"), check_identity(JORDAN, postal_code=" "), Say("Postal code?")]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="verify me")
        result = await session.run(user_input="Jordan Lee, jordan.lee@example.com")
        result.expect.contains_function_call_output(is_error=True)
        assert session.userdata.identity.failed_checks == 0


async def test_already_verified_caller_is_not_asked_again(settings: Settings) -> None:
    model = ScriptedLLM(
        [Call("verify_identity"), check_identity(JORDAN), relay, Call("verify_identity"), relay]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="verify me")
        await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        again = await session.run(user_input="am I verified?")
        again.expect.next_event().is_function_call(name="verify_identity")
        again.expect.next_event().is_function_call_output(
            output='Thank you, "Jordan Lee", you are verified.'
        )
        again.expect.next_event().is_message(role="assistant")
        again.expect.no_more_events()
    # The details were checked by code: no request of the identity specialist's model.
    assert len(model.turns) == 4


OFFLINE_CHAT = OfflineChat(
    ("Please verify me", "I'm Jordan Lee", "94107, jordan.lee@example.com", "bye")
)
"""A `make chat` that reaches it (tests/offline_llm/test_offline_model.py)."""
