"""Identity under attack: a model talked into guessing many times in one reply, and
details too long to be anything but an attempt to flood the store and the logs."""

from __future__ import annotations

from customer_service.settings import Settings
from customer_service.specialists.identity import (
    DETAILS_TOO_LONG,
    MAX_DETAIL_LENGTH,
    VERIFICATION_LOCKED,
)
from customer_service.testing import call_session
from support.conversation import JORDAN, agent_lines, audit_kinds, check_identity, tool_outputs
from support.scripted_llm import Call, Parallel, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

WRONG = check_identity(JORDAN, postal_code="10001")


def guesses(right_at: int, total: int = 20) -> Parallel:
    return Parallel(
        tuple(check_identity(JORDAN) if index == right_at else WRONG for index in range(total))
    )


async def test_a_right_guess_among_twenty_parallel_ones_after_the_lock_verifies_nobody(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order", {"order_id": "100101"}),
            guesses(right_at=10),
            relay,
            Call("lookup_order", {"order_id": "100101"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="Where is order 100101?")
        await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        await session.run(user_input="Where is it then?")

        state = session.userdata
        assert state.identity.locked
        assert state.verified_customer is None
        assert state.identity.failed_checks == settings.identity_max_attempts
        kinds = await audit_kinds(session)
        assert "identity_verified" not in kinds
        assert "order_disclosed" not in kinds
        outputs = [output.output for output in tool_outputs(session, "lookup_order")]
        assert outputs == [VERIFICATION_LOCKED, VERIFICATION_LOCKED]
        assert not any(
            "1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" in line for line in agent_lines(session)
        )
    assert not model.overran


async def test_guesses_after_a_right_one_in_the_same_reply_change_nothing(
    settings: Settings,
) -> None:
    # The caller is verified by the first check; the task has finished, so the wrong
    # guesses that follow can neither lock nor count against them.
    model = ScriptedLLM([Call("verify_identity"), guesses(right_at=0, total=6), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I'd like to check something on my account")
        await session.run(user_input="Jordan Lee, 94107, jordan.lee@example.com")
        state = session.userdata
        assert state.verified_customer is not None
        assert not state.identity.locked
        assert state.identity.failed_checks == 0
        assert (await audit_kinds(session)).count("identity_verified") == 1
    assert not model.overran


async def test_details_longer_than_the_limit_are_refused_before_the_store(
    settings: Settings,
) -> None:
    flood = "Jordan Lee " + "x" * MAX_DETAIL_LENGTH
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN, full_name=flood), relay])
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="I'd like to check something on my account")
        await session.run(user_input=flood)
        (output,) = tool_outputs(session, "check_identity")
        assert output.is_error
        assert output.output == DETAILS_TOO_LONG
        state = session.userdata
        assert state.identity.failed_checks == 0
        assert "identity_failed" not in await audit_kinds(session)
    assert not model.overran
