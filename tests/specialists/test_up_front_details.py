"""Details the caller already said are used, not asked for again (issue 10, item 6).

When the caller's words in the history a specialist is given hold the details it needs,
it opens with one model turn instead of its fixed question: the identity specialist's
model checks the details, the address specialist's model records the address, and the
tool reads it back (never skipped). Otherwise the fixed question is said, as before,
with no extra round trip. Real sessions, on the offline model or a scripted one.
"""

from __future__ import annotations

from typing import Any

import pytest
from livekit.agents import AgentSession, llm

from customer_service.addresses import read_back
from customer_service.call.identity_policy import offers_contact_detail
from customer_service.call.state import CallState
from customer_service.call.wording import ANYTHING_ELSE, GREETING
from customer_service.offline_llm import OfflineLLM, OfflineLLMStream
from customer_service.offline_llm.identity_details import IdentityDetails, missing_details_prompt
from customer_service.settings import Settings
from customer_service.specialists.address_update import WORDING as ADDRESS_WORDING
from customer_service.specialists.address_update import (
    offers_address,
    opening_question,
)
from customer_service.specialists.consent import (
    CONSENT_CONFIRMATIONS,
    CONSENT_WORDING,
    ConsentTopic,
)
from customer_service.specialists.identity import (
    OPENING_QUESTION,
    VERIFICATION_DECLINED,
    mismatch_message,
)
from customer_service.testing import call_session
from customer_service.testing.voice import Utterance, voice_call_session
from support.conversation import (
    JORDAN,
    JORDAN_SAYS,
    agent_lines,
    audit_kinds,
    check_identity,
    verifying_for,
)
from support.demo_addresses import MARKET_STREET_SUITE_5
from support.scripted_llm import Call, ScriptedLLM, Turn
from support.scripted_llm import relay_tool_output as relay

NEW_ADDRESS = MARKET_STREET_SUITE_5
SAYS_NEW_ADDRESS = "1 Market Street, Suite 5, San Francisco, CA 94105"
LOOKUP_UP_FRONT = f"{JORDAN_SAYS}, where is 100101?"
CHANGE_UP_FRONT = (
    f"{JORDAN_SAYS}. Please change the delivery address of order 100102 to {SAYS_NEW_ADDRESS}"
)
READ_BACK = f"I have {read_back(NEW_ADDRESS)}. Is that right?"
SMS = ConsentTopic.ORDER_UPDATES_SMS
SMS_QUESTION = CONSENT_WORDING[SMS].question
STATUS_OF_100101 = "Order 1 0 0, 1 0 1,"
ADDRESS_QUESTION = opening_question("100102")


class CountingOfflineLLM(OfflineLLM):
    """The offline model, counting its round trips."""

    def __init__(self) -> None:
        super().__init__()
        self.round_trips = 0

    def chat(self, *, chat_ctx: llm.ChatContext, **options: Any) -> OfflineLLMStream:
        self.round_trips += 1
        return super().chat(chat_ctx=chat_ctx, **options)


def caller_turns(session: AgentSession[CallState]) -> int:
    return sum(1 for message in session.history.messages() if message.role == "user")


def user_texts(turn: Turn) -> list[str]:
    return [item.text_content or "" for item in turn.chat_ctx.messages() if item.role == "user"]


# --- the figures: caller turns and round trips, up front and when asked --------------

FIGURES = {
    # Up front: one caller turn for a lookup, three for an address change (the read-back's
    # yes and the text-update answer), for the same round trips as when asked. Said in
    # one line, the three details are checked by code: no round trip of the identity
    # specialist's model.
    "lookup, all up front": ([LOOKUP_UP_FRONT], 1, 2, False),
    "address change, all up front": ([CHANGE_UP_FRONT, "yes", "no"], 3, 4, False),
    "lookup, when asked": (["Where is my order 100101?", JORDAN_SAYS], 2, 2, True),
    # A name in one line and the rest in the next: the model reads them together.
    "lookup, only a name up front": (
        ["This is Jordan Lee, where is 100101?", "94107, jordan.lee@example.com"],
        2,
        3,
        True,
    ),
    "address change, when asked": (
        [
            "I need to change the delivery address for order 100102",
            JORDAN_SAYS,
            SAYS_NEW_ADDRESS,
            "yes",
            "no",
        ],
        5,
        4,
        True,
    ),
}


@pytest.mark.parametrize(
    ("lines", "turns", "round_trips", "asked"), FIGURES.values(), ids=FIGURES.keys()
)
async def test_caller_turns_and_round_trips(
    settings: Settings, lines: list[str], turns: int, round_trips: int, asked: bool
) -> None:
    model = CountingOfflineLLM()
    async with call_session(model, settings=settings) as session:
        greeting_trips = model.round_trips
        for line in lines:
            await session.run(user_input=line)
        assert caller_turns(session) == turns
        assert model.round_trips - greeting_trips == round_trips
        assert session.userdata.verified_customer is not None
        assert session.userdata.identity.failed_checks == 0
        said = agent_lines(session)
        assert said[-1].endswith("Is there anything else I can help you with?")
        assert (OPENING_QUESTION in said) is asked


# --- identity ----------------------------------------------------------------------------


async def test_everything_up_front_gets_the_order_status_with_no_question(
    settings: Settings,
) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        await session.run(user_input=LOOKUP_UP_FRONT)
        said = agent_lines(session)
        assert said == [GREETING, said[1], ANYTHING_ELSE]
        assert said[1].startswith(STATUS_OF_100101)
        assert caller_turns(session) == 1
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == "C-1001"
        assert "identity_verified" in await audit_kinds(session)


LOOKUP_UP_FRONT_SURNAME_FIRST = "Lee, Jordan, 94107, jordan.lee@example.com, where is 100101?"
"""Details the code leaves to the model: a name said surname first is not the name."""


async def test_the_identity_model_checks_details_from_the_history_on_entry(
    settings: Settings,
) -> None:
    def checks_what_was_said(turn: Turn) -> Call:
        # The specialist's first turn: the caller's words are there, and giving up is
        # not on offer before the caller has said anything to it.
        assert "check_identity" in turn.tool_names
        assert "give_up" not in turn.tool_names
        assert user_texts(turn)[-1] == LOOKUP_UP_FRONT_SURNAME_FIRST
        return check_identity(JORDAN)

    model = ScriptedLLM([Call("lookup_order", {"order_id": "100101"}), checks_what_was_said, relay])
    async with call_session(model, settings=settings) as session:
        result = await session.run(user_input=LOOKUP_UP_FRONT_SURNAME_FIRST)
        result.expect.contains_function_call(name="check_identity", arguments=JORDAN)
        assert agent_lines(session)[1].startswith(STATUS_OF_100101)
        assert OPENING_QUESTION not in agent_lines(session)
    assert len(model.turns) == 3
    assert not model.overran


async def test_invented_details_fail_the_check_and_count_as_an_attempt(
    settings: Settings,
) -> None:
    # The caller gave only an email; the model fills in a name and a postal code.
    invented = check_identity(JORDAN, full_name="Alex Example", postal_code="12345")
    model = ScriptedLLM([Call("lookup_order", {"order_id": "100101"}), invented, relay])
    async with call_session(model, settings=settings) as session:
        result = await session.run(
            user_input="my email is jordan.lee@example.com, where is order 100101?"
        )
        result.expect.contains_function_call_output(output=mismatch_message(2), is_error=True)
        state = session.userdata
        assert state.verified_customer is None
        assert state.identity.failed_checks == 1
        assert "identity_failed" in await audit_kinds(session)
        assert not any(line.startswith(STATUS_OF_100101) for line in agent_lines(session))
    assert not model.overran


async def test_wrong_details_up_front_get_the_usual_mismatch_and_count(
    settings: Settings,
) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        await session.run(user_input="Jordan Lee, 90210, jordan.lee@example.com, where is 100101?")
        assert agent_lines(session)[1:] == [mismatch_message(2)]
        assert session.userdata.identity.failed_checks == 1
        assert "identity_failed" in await audit_kinds(session)

        await session.run(user_input=JORDAN_SAYS)
        assert agent_lines(session)[-2].startswith(STATUS_OF_100101)
        assert session.userdata.identity.failed_checks == 1


async def test_after_a_failed_check_the_caller_is_asked_not_checked_again(
    settings: Settings,
) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        await session.run(user_input="Jordan Lee, 90210, jordan.lee@example.com, where is 100101?")
        await session.run(user_input="never mind")
        assert agent_lines(session)[-1].startswith(VERIFICATION_DECLINED)
        # The refused details are still in the history a new run is given: it asks.
        await session.run(user_input="please verify me")
        assert agent_lines(session)[-1] == OPENING_QUESTION
        assert session.userdata.identity.failed_checks == 1


async def test_an_email_up_front_is_not_asked_for_again(settings: Settings) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        await session.run(user_input="my email is jordan.lee@example.com, where is order 100101?")
        # The offline model asks for exactly what is missing; so does a real one, told by
        # its instructions.
        missing = missing_details_prompt(IdentityDetails(phone_or_email="said"))
        assert agent_lines(session)[1:] == [missing]
        await session.run(user_input="Jordan Lee, 94107")
        assert agent_lines(session)[-2].startswith(STATUS_OF_100101)


async def test_only_a_name_up_front_gets_the_fixed_question_and_the_name_is_used(
    settings: Settings,
) -> None:
    """Code cannot tell a name from other words, so no model turn is spent on entry: the
    fixed question is said, and the model uses the name from the history afterwards."""

    def uses_the_name_said_before(turn: Turn) -> Call:
        assert "already said" in turn.instructions
        assert "This is Jordan Lee, where is 100101?" in user_texts(turn)
        return check_identity(JORDAN)

    model = ScriptedLLM(
        [Call("lookup_order", {"order_id": "100101"}), uses_the_name_said_before, relay]
    )
    async with call_session(model, settings=settings) as session:
        await session.run(user_input="This is Jordan Lee, where is 100101?")
        assert agent_lines(session)[-1] == OPENING_QUESTION
        assert len(model.turns) == 1
        await session.run(user_input="94107, jordan.lee@example.com")
        assert agent_lines(session)[-2].startswith(STATUS_OF_100101)
    assert not model.overran


# --- address change ----------------------------------------------------------------------


async def test_an_address_change_up_front_hears_only_the_read_back_and_the_text_offer(
    settings: Settings,
) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        await session.run(user_input=CHANGE_UP_FRONT)
        assert agent_lines(session)[1:] == [READ_BACK]
        await session.run(user_input="yes")
        done = f"Done. Order 1 0 0, 1 0 2 will now be delivered to {read_back(NEW_ADDRESS)}."
        assert agent_lines(session)[-2:] == [done, SMS_QUESTION]
        await session.run(user_input="no")
        said = agent_lines(session)
        assert said[-1].startswith(CONSENT_CONFIRMATIONS[(SMS, False)])
        assert ADDRESS_QUESTION not in said
        assert OPENING_QUESTION not in said
        assert caller_turns(session) == 3
        order = await session.userdata.store.get_order("100102")
        assert order is not None
        assert order.shipping_address == NEW_ADDRESS


async def test_only_a_yes_after_the_read_back_confirms_an_up_front_address(
    settings: Settings,
) -> None:
    record = Call(
        "record_address",
        {
            "street": "1 Market Street",
            "unit": "Suite 5",
            "city": "San Francisco",
            "region": "CA",
            "postal_code": "94105",
            "country": "US",
        },
    )

    def records_on_entry(turn: Turn) -> Call:
        # Nothing can be confirmed before a read-back: there is no tool for it yet.
        assert "confirm_address" not in turn.tool_names
        return record

    model = ScriptedLLM(
        [
            *verifying_for("update_address", "100102", JORDAN),
            records_on_entry,
            # A model that confirms whatever the caller says next.
            Call("confirm_address"),
            relay,
            Call("confirm_address"),
            Call("record_consent", {"granted": False}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        store = session.userdata.store
        # A "yes" said before the read-back is no answer to it.
        await session.run(user_input=f"Yes, that's right: {CHANGE_UP_FRONT}")
        assert agent_lines(session)[1:] == [READ_BACK]
        await session.run(user_input="hold on")
        assert agent_lines(session)[-1] == ADDRESS_WORDING.not_a_clear_yes
        assert await store.address_changes(order_id="100102") == []

        await session.run(user_input="yes")
        [change] = await store.address_changes(order_id="100102")
        assert change.new_address == NEW_ADDRESS
        await session.run(user_input="no")
    assert not model.overran


async def test_an_address_said_up_front_on_a_voice_line_is_read_back_in_full(
    settings: Settings,
) -> None:
    caller = [Utterance(CHANGE_UP_FRONT), Utterance("yes, that's right"), Utterance("no thanks")]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        said = [(m.text_content or "", m.interrupted) for m in call.messages("assistant")]
        assert (READ_BACK, False) in said
        assert not any(text in (OPENING_QUESTION, ADDRESS_QUESTION) for text, _ in said)
        [change] = await call.state.store.address_changes(order_id="100102")
        assert change.new_address == NEW_ADDRESS
        assert call.errors == []


# --- the cheap checks that decide whether to ask -------------------------------------------


def history_of(line: str) -> llm.ChatContext:
    return llm.ChatContext([llm.ChatMessage(role="user", content=[line])])


@pytest.mark.parametrize(
    ("line", "contact", "address"),
    [
        (LOOKUP_UP_FRONT, True, False),
        (CHANGE_UP_FRONT, True, True),
        (f"{JORDAN_SAYS}. Please change the delivery address of order 100102", True, False),
        ("my number is four one five five five five zero one three four", True, False),
        ("it's jordan dot lee at example dot com", True, False),
        ("send order 300301 to Calle Mayor 5, 28013 Madrid, Spain", False, True),
        ("10 Downing Street, London SW1A 2AA", False, True),
        ("Where is my order 100101?", False, False),
        ("This is Jordan Lee, my zip is 94107, where is order 100102?", False, False),
    ],
)
def test_what_counts_as_already_said(line: str, contact: bool, address: bool) -> None:
    assert offers_contact_detail(history_of(line)) is contact
    assert offers_address(history_of(line)) is address
