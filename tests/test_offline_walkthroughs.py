"""Every flow a new user can try in `make chat`, end to end: the real supervisor,
specialists and store, driven by the offline model through `converse` (as `make chat`
runs it), or through `call_session` where settings must differ from the process's."""

from __future__ import annotations

import io

import pytest

from customer_service.addresses import AddressProblem, read_back, validated_address
from customer_service.call.identity_policy import NO_DETAILS_WAY_OUT
from customer_service.call.speakable import spaced_digits
from customer_service.call.wording import GREETING, HOW_CAN_I_HELP, STORE_APOLOGY, WELCOME
from customer_service.call.wording import HANDOFF as HANDOFF_MESSAGE
from customer_service.chat import converse
from customer_service.domain import OrderStatus
from customer_service.offline_llm import OfflineLLM
from customer_service.offline_llm.identity_details import (
    IDENTITY_QUESTION as OFFLINE_IDENTITY_QUESTION,
)
from customer_service.offline_llm.routing import (
    ACCEPTED_OFFER,
    ANYTHING_ELSE,
    ASKED_FOR_PERSON,
    DECLINED_OFFER,
)
from customer_service.order_choice import NOTHING_FITS
from customer_service.settings import RecordingConsent, Settings
from customer_service.specialists.address_update import not_changeable_message, opening_question
from customer_service.specialists.consent import (
    CONSENT_CONFIRMATIONS,
    CONSENT_WORDING,
    UNCLEAR_CONFIRMATIONS,
    ConsentTopic,
)
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.specialists.identity import (
    VERIFICATION_DECLINED,
    VERIFICATION_LOCKED,
    mismatch_message,
)
from customer_service.specialists.order_lookup import OPENING_QUESTION as ORDER_QUESTION
from customer_service.specialists.order_lookup import not_found_message
from customer_service.store import Store
from customer_service.testing import call_session
from support.conversation import agent_lines
from support.demo_addresses import MARKET_STREET_SUITE_5
from support.faults import fail_everything
from support.offline_chat import GOODBYE, JORDAN, chat, demo_order, stored_order

PRIYA = "Priya Natarajan, 10001, priya.n@example.com"
SMS = ConsentTopic.ORDER_UPDATES_SMS
RECORDING = ConsentTopic.CALL_RECORDING
SMS_QUESTION = CONSENT_WORDING[SMS].question
RECORDING_QUESTION = CONSENT_WORDING[RECORDING].question


@pytest.fixture
def database_url(demo_database_url: str) -> str:
    """The store of the test's calls, on the test's backend."""
    return demo_database_url


# --- orders ------------------------------------------------------------------------------


async def test_order_status_by_number(database_url: str) -> None:
    said = (await chat(database_url, "Where is my order 100101?", JORDAN, "no")).agent
    assert said[:2] == [GREETING, IDENTITY_QUESTION]
    assert said[2].startswith("Order 1 0 0, 1 0 1, placed on November second,")
    assert (
        "has shipped with UPS, tracking number 1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" in said[2]
    )
    assert said[3:] == [ANYTHING_ELSE, GOODBYE]


async def test_order_status_with_everything_said_up_front(database_url: str) -> None:
    said = (await chat(database_url, f"{JORDAN}, where is order 100101?", "no")).agent
    # No identity question: the details the caller already gave are checked.
    assert said[0] == GREETING
    assert said[1].startswith("Order 1 0 0, 1 0 1, placed on November second,")
    assert said[2:] == [ANYTHING_ELSE, GOODBYE]


async def test_recent_orders(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I'd like to check an order",
            PRIYA,
            "I don't know the number",
            "two zero zero two zero one",
        )
    ).agent
    assert said[:3] == [GREETING, IDENTITY_QUESTION, ORDER_QUESTION]
    # Said for the ear: numbers grouped as everywhere else, dates in words, no quote marks.
    assert said[3] == (
        "Here are your recent orders. "
        "First, order 2 0 0, 2 0 2: three Stainless steel water bottles, placed on November "
        "sixteenth, processing. "
        "Second, order 2 0 0, 2 0 1: a Cork yoga mat and one other item, placed on November "
        "fifth, delivered. Which one do you mean?"
    )
    assert said[4].startswith("Order 2 0 0, 2 0 1")
    assert "was delivered on November ninth" in said[4]
    assert "It contains a Cork yoga mat and two Yoga blocks, going to " in said[4]


@pytest.mark.parametrize(
    ("pick", "order_id"),
    [
        ("the yoga mat", "200201"),
        ("the delivered one", "200201"),
        ("the first one", "200202"),
        ("the water bottles please", "200202"),
        ("the one from November fifth", "200201"),
    ],
)
async def test_an_order_picked_from_the_list_by_what_it_is(
    database_url: str, pick: str, order_id: str
) -> None:
    said = (
        await chat(database_url, "I'd like to check an order", PRIYA, "I don't know it", pick)
    ).agent
    assert said[3].startswith("Here are your recent orders.")
    assert said[4].startswith(f"Order {spaced_digits(order_id)}, placed on")


async def test_a_pick_that_fits_none_of_the_callers_orders(database_url: str) -> None:
    # None of Priya's orders has shipped (Jordan's 100101 has): her pick fits none of hers.
    said = (
        await chat(
            database_url, "I'd like to check an order", PRIYA, "I don't know it", "the shipped one"
        )
    ).agent
    assert said[4] == NOTHING_FITS
    assert not any("1 0 0, 1 0 1" in line or "Wireless" in line for line in said)


async def test_that_order_after_hearing_it_needs_no_number_again(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            f"{JORDAN}, where is order 100102?",
            "Change the delivery address for that order",
        )
    ).agent
    assert said[1].startswith("Order 1 0 0, 1 0 2, placed on")
    assert said[2:4] == [ANYTHING_ELSE, opening_question("100102")]
    assert ORDER_QUESTION not in said


# --- identity said as speech ------------------------------------------------------------

ORDER_100101 = "Order 1 0 0, 1 0 1, placed on November second,"


@pytest.mark.parametrize(
    "details",
    [
        "Jordan Lee 94107 415 555 0134",
        "jordan lee nine four one oh seven four one five double five five oh one three four",
        "jordan lee ninety four one oh seven four fifteen triple five oh one three four",
        "j o r d a n, l e e, 94107, j o r d a n dot l e e at example dot com",
        # Corrected before the check: the first check already has the right ZIP code.
        "Jordan Lee 94110 415 555 0134 oh wait I mean 94107",
        "Jordon Lee, 94107, 415 555 0134, sorry, it's Jordan with an a",
        "my name is Jordan Lee, zip code nine four one zero seven, "
        "phone number four one five, five five five, zero one three four",
    ],
)
async def test_identity_said_as_speech_verifies_at_the_first_check(
    database_url: str, details: str
) -> None:
    said = (await chat(database_url, "Where is my order 100101?", details, "no")).agent
    assert said[1] == IDENTITY_QUESTION
    assert said[2].startswith(ORDER_100101)
    assert said[3:] == [ANYTHING_ELSE, GOODBYE]


async def test_identity_given_piece_by_piece(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "Where is my order 100101?",
            "Jordan Lee",
            "nine four one oh seven",
            "my email is j o r d a n dot l e e at example dot com",
            "no",
        )
    ).agent
    assert said[4].startswith(ORDER_100101)
    assert said[5:] == [ANYTHING_ELSE, GOODBYE]


@pytest.mark.parametrize(
    ("details", "correction"),
    [
        ("Jordan Lee 94110 415 555 0134", "sorry, the postal code is 94107"),
        ("Jordan Lee 94110 415 555 0134", "oh wait, I mean nine four one oh seven"),
        ("Jordan Leigh 94107 4155550134", "it's Lee, l e e"),
        ("Jordon Lee 94107 jordan.lee@example.com", "sorry, it's Jordan with an a"),
    ],
)
async def test_after_a_mismatch_only_the_corrected_detail_is_said_again(
    database_url: str, details: str, correction: str
) -> None:
    said = (await chat(database_url, "Where is my order 100101?", details, correction, "no")).agent
    assert said[1:3] == [IDENTITY_QUESTION, mismatch_message(2)]
    assert said[3].startswith(ORDER_100101)
    assert said[4:] == [ANYTHING_ELSE, GOODBYE]


async def test_lockout_after_three_failures_then_a_colleague(database_url: str) -> None:
    wrong = "Jordan Lee, 90210, jordan.lee@example.com"
    transcript = await chat(
        database_url, "Where is my order 100101?", wrong, wrong, wrong, "yes please"
    )
    assert transcript.agent[1:] == [
        IDENTITY_QUESTION,
        mismatch_message(2),
        mismatch_message(1),
        VERIFICATION_LOCKED,
        HANDOFF_MESSAGE,
    ]
    assert "1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" not in transcript.text()
    async with await Store.open(database_url) as store:
        [escalation] = await store.escalations()
    assert (escalation.reason, escalation.verified) == (ACCEPTED_OFFER, False)
    assert escalation.collected["verification_locked"] is True


async def test_lockout_declining_a_colleague_then_goodbye(database_url: str) -> None:
    wrong = "Jordan Lee, 90210, jordan.lee@example.com"
    said = (
        await chat(database_url, "Where is order 100101?", wrong, wrong, wrong, "no", "no")
    ).agent
    assert said[-3:] == [VERIFICATION_LOCKED, DECLINED_OFFER, GOODBYE]


async def test_a_caller_who_gives_no_details_hears_the_demand_twice_then_a_way_out(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url,
            "Where is my order 100101?",
            "why do you need that",
            "I'd rather not say",
            "yes please",
        )
    ).agent
    assert said[1] == IDENTITY_QUESTION
    assert said[2] == OFFLINE_IDENTITY_QUESTION
    assert said[3] == NO_DETAILS_WAY_OUT
    assert said[4] == HANDOFF_MESSAGE


async def test_the_way_out_of_the_identity_check_can_end_the_call(database_url: str) -> None:
    said = (
        await chat(database_url, "Where is my order 100101?", "hmm", "no", "end the call")
    ).agent
    assert said[1:4] == [IDENTITY_QUESTION, OFFLINE_IDENTITY_QUESTION, NO_DETAILS_WAY_OUT]
    assert said[-1] == GOODBYE


async def test_details_given_one_at_a_time_are_no_refusal(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "Where is my order 100101?",
            "Jordan Lee",
            "94107",
            "jordan.lee@example.com",
        )
    ).agent
    assert NO_DETAILS_WAY_OUT not in said
    assert said[-2].startswith(ORDER_100101)
    assert said[-1] == ANYTHING_ELSE


async def test_another_customers_order_reads_like_an_unknown_one(database_url: str) -> None:
    transcript = await chat(
        database_url, "Where is order 200201?", JORDAN, "sorry, I meant 100102", "bye"
    )
    assert transcript.agent[2] == not_found_message("200201")
    assert transcript.agent[3].startswith("Order 1 0 0, 1 0 2")
    assert "is processing" in transcript.agent[3]
    assert transcript.agent[4:] == [ANYTHING_ELSE, GOODBYE]
    assert "Cork yoga mat" not in transcript.text()


async def test_three_lookups_in_one_call_are_all_answered(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "Where is order 100101?",
            JORDAN,
            "what about order 100102",
            "and order 100101 again",
        )
    ).agent
    # Different arguments each time, so none of them is a repeated call.
    assert [line[:19] for line in said[2::2]] == [
        "Order 1 0 0, 1 0 1,",
        "Order 1 0 0, 1 0 2,",
        "Order 1 0 0, 1 0 1,",
    ]
    assert said[3::2] == [ANYTHING_ELSE] * 3


# --- address changes -----------------------------------------------------------------------

NEW_ADDRESS = MARKET_STREET_SUITE_5


async def test_address_change_with_the_text_update_offer(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I need to change the delivery address for order 100102",
            JORDAN,
            "1 Market Street, Suite 5, San Francisco, CA 94105",
            "yes",
            "no",
        )
    ).agent
    assert said[1:] == [
        IDENTITY_QUESTION,
        opening_question("100102"),
        f"I have {read_back(NEW_ADDRESS)}. Is that right?",
        # The change is confirmed; the text-update question is a turn of its own.
        f"Done. Order 1 0 0, 1 0 2 will now be delivered to {read_back(NEW_ADDRESS)}.",
        SMS_QUESTION,
        f"{CONSENT_CONFIRMATIONS[(SMS, False)]} {ANYTHING_ELSE}",
    ]
    assert (await stored_order(database_url, "100102")).shipping_address == NEW_ADDRESS
    assert (await stored_order(database_url, "100101")).shipping_address == (
        demo_order("100101").shipping_address
    )
    async with await Store.open(database_url) as store:
        consent = await store.latest_consent(topic=SMS, customer_id="C-1001")
        changes = await store.address_changes(order_id="100102")
    assert consent is not None
    assert (consent.granted, consent.wording_version) == (False, CONSENT_WORDING[SMS].version)
    assert [change.new_address for change in changes] == [NEW_ADDRESS]


@pytest.mark.parametrize("thanks", ["Okay, thanks.", "Great, thanks."])
async def test_thanks_after_the_text_question_is_asked_about_then_answered(
    database_url: str, thanks: str
) -> None:
    up_front = (
        f"{JORDAN}. Please change the delivery address of order 100102 to "
        "1 Market Street, Suite 5, San Francisco, CA 94105"
    )
    said = (await chat(database_url, up_front, "yes", thanks, "yes")).agent
    assert said[-3:] == [
        SMS_QUESTION,
        CONSENT_WORDING[SMS].is_that_a_yes,
        f"{CONSENT_CONFIRMATIONS[(SMS, True)]} {ANYTHING_ELSE}",
    ]
    async with await Store.open(database_url) as store:
        consent = await store.latest_consent(topic=SMS, customer_id="C-1001")
    assert consent is not None
    assert consent.granted is True


async def test_address_change_with_everything_said_up_front(database_url: str) -> None:
    up_front = (
        f"{JORDAN}. Please change the delivery address of order 100102 to "
        "1 Market Street, Suite 5, San Francisco, CA 94105"
    )
    said = (await chat(database_url, up_front, "yes", "no")).agent
    # Only the read-back and the text-update offer are asked.
    assert said[1:] == [
        f"I have {read_back(NEW_ADDRESS)}. Is that right?",
        f"Done. Order 1 0 0, 1 0 2 will now be delivered to {read_back(NEW_ADDRESS)}.",
        SMS_QUESTION,
        f"{CONSENT_CONFIRMATIONS[(SMS, False)]} {ANYTHING_ELSE}",
    ]
    assert (await stored_order(database_url, "100102")).shipping_address == NEW_ADDRESS


async def test_address_change_refused_on_a_shipped_order(database_url: str) -> None:
    said = (
        await chat(database_url, "I want to change the address for order 100101", JORDAN, "no")
    ).agent
    refusal = not_changeable_message("100101", OrderStatus.PROCESSED)
    assert said[2:] == [refusal, DECLINED_OFFER]
    assert (await stored_order(database_url, "100101")).shipping_address == (
        demo_order("100101").shipping_address
    )


@pytest.mark.parametrize(
    "address",
    [
        "it's 1 market street suite 5 san francisco california 9 4 1 0 5",
        "1 Market Street Suite 5 San Francisco CA 94105",
    ],
)
async def test_an_address_said_without_pauses(database_url: str, address: str) -> None:
    said = (
        await chat(
            database_url,
            "I need to change the delivery address for order 100102",
            JORDAN,
            address,
            "yes",
            "no",
        )
    ).agent
    assert said[3:5] == [
        f"I have {read_back(NEW_ADDRESS)}. Is that right?",
        f"Done. Order 1 0 0, 1 0 2 will now be delivered to {read_back(NEW_ADDRESS)}.",
    ]
    assert (await stored_order(database_url, "100102")).shipping_address == NEW_ADDRESS


async def test_an_address_in_number_words_then_the_zip_corrected_after_the_read_back(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url,
            "I need to change the delivery address for order 100102",
            JORDAN,
            "it's one market street suite five san francisco california nine four one one oh",
            "sorry it's 9 4 1 0 5",
            "yes",
            "no",
        )
    ).agent
    wrong_zip = NEW_ADDRESS.model_copy(update={"postal_code": "94110"})
    assert said[3:6] == [
        f"I have {read_back(wrong_zip)}. Is that right?",
        f"I have {read_back(NEW_ADDRESS)}. Is that right?",
        f"Done. Order 1 0 0, 1 0 2 will now be delivered to {read_back(NEW_ADDRESS)}.",
    ]
    assert (await stored_order(database_url, "100102")).shipping_address == NEW_ADDRESS


def zip_problem(postal_code: str) -> str:
    with pytest.raises(AddressProblem) as problem:
        validated_address(
            street="1 Market Street",
            city="San Francisco",
            region="CA",
            postal_code=postal_code,
            country="US",
        )
    return problem.value.message


@pytest.mark.parametrize(
    "correction", ["1 Market Street, San Francisco, CA 94105", "sorry, it's 94105"]
)
async def test_an_invalid_zip_then_the_corrected_address(
    database_url: str, correction: str
) -> None:
    corrected = NEW_ADDRESS.model_copy(update={"unit": None})
    said = (
        await chat(
            database_url,
            "I need to change the delivery address for order 100102",
            JORDAN,
            "1 Market Street, San Francisco, CA 9410",
            correction,
            "yes",
            "yes",
        )
    ).agent
    assert said[3:] == [
        zip_problem("9410"),
        f"I have {read_back(corrected)}. Is that right?",
        f"Done. Order 1 0 0, 1 0 2 will now be delivered to {read_back(corrected)}.",
        SMS_QUESTION,
        f"{CONSENT_CONFIRMATIONS[(SMS, True)]} {ANYTHING_ELSE}",
    ]
    assert (await stored_order(database_url, "100102")).shipping_address == corrected


async def test_a_spanish_address_in_its_usual_order(database_url: str) -> None:
    said = (
        await chat(
            database_url,
            "I need to change the delivery address for order 100102",
            JORDAN,
            "Calle de Alcalá 45, 28014 Madrid, Spain",
            "yes",
            "no",
        )
    ).agent
    # Read back in Spain's order, the postcode before the city, the country in full.
    assert said[3] == "I have Calle de Alcalá 45, 28014 Madrid, Spain. Is that right?"
    address = (await stored_order(database_url, "100102")).shipping_address
    assert (address.street, address.city, address.region, address.postal_code, address.country) == (
        "Calle de Alcalá 45",
        "Madrid",
        "M",
        "28014",
        "ES",
    )


async def test_a_zip_code_of_another_state_then_the_corrected_zip(database_url: str) -> None:
    corrected = NEW_ADDRESS.model_copy(update={"unit": None})
    said = (
        await chat(
            database_url,
            "I need to change the delivery address for order 100102",
            JORDAN,
            "1 Market Street, San Francisco, CA 10001",
            "sorry, it's 94105",
            "yes",
            "no",
        )
    ).agent
    assert said[3:5] == [
        "The ZIP code 10001 isn't one for California. Please check the ZIP code or the state.",
        f"I have {read_back(corrected)}. Is that right?",
    ]
    assert (await stored_order(database_url, "100102")).shipping_address == corrected


# --- consent -------------------------------------------------------------------------------


async def sms_consent(database_url: str) -> bool | None:
    async with await Store.open(database_url) as store:
        record = await store.latest_consent(topic=SMS, customer_id="C-1001")
    return None if record is None else record.granted


async def test_no_more_text_updates(database_url: str) -> None:
    said = (await chat(database_url, "please don't send me text updates", JORDAN, "no")).agent
    # The caller's own words said no: recorded as said, without the question.
    assert said[1:] == [
        IDENTITY_QUESTION,
        f"{CONSENT_CONFIRMATIONS[(SMS, False)]} {ANYTHING_ELSE}",
        GOODBYE,
    ]
    assert await sms_consent(database_url) is False


async def test_asked_about_text_updates_the_answer_is_asked_for(database_url: str) -> None:
    said = (await chat(database_url, "about my text updates", JORDAN, "no", "no")).agent
    assert said[1:] == [
        IDENTITY_QUESTION,
        SMS_QUESTION,
        f"{CONSENT_CONFIRMATIONS[(SMS, False)]} {ANYTHING_ELSE}",
        GOODBYE,
    ]
    assert await sms_consent(database_url) is False


async def test_two_unclear_answers_to_the_text_question_store_nothing(
    database_url: str,
) -> None:
    said = (
        await chat(database_url, "about text updates", JORDAN, "maybe", "what does that cost?")
    ).agent
    assert said[2:] == [
        SMS_QUESTION,
        SMS_QUESTION,
        f"{UNCLEAR_CONFIRMATIONS[SMS]} {ANYTHING_ELSE}",
    ]
    # Neither a yes nor a no: the answer on record before the call still stands.
    assert await sms_consent(database_url) is None


async def test_an_unclear_answer_then_yes(database_url: str) -> None:
    said = (await chat(database_url, "I want text notifications", JORDAN, "maybe", "yes")).agent
    assert said[2:] == [
        SMS_QUESTION,
        SMS_QUESTION,
        f"{CONSENT_CONFIRMATIONS[(SMS, True)]} {ANYTHING_ELSE}",
    ]
    assert await sms_consent(database_url) is True


@pytest.mark.parametrize(
    ("answers", "granted"), [(["no"], False), (["yes"], True), (["maybe", "yes"], True)]
)
async def test_recording_consent_at_call_start(
    settings: Settings, answers: list[str], granted: bool
) -> None:
    asking = settings.model_copy(update={"recording_consent": RecordingConsent.ASK})
    async with call_session(OfflineLLM(), settings=asking) as session:
        assert agent_lines(session) == [f"{WELCOME} {RECORDING_QUESTION}"]
        for answer in answers:
            await session.run(user_input=answer)
        state = session.userdata
        record = await state.store.latest_consent(topic=RECORDING, call_id=state.call_id)
        asked_again = [RECORDING_QUESTION] * (len(answers) - 1)
        confirmation = CONSENT_CONFIRMATIONS[(RECORDING, granted)]
        assert agent_lines(session) == [
            f"{WELCOME} {RECORDING_QUESTION}",
            *asked_again,
            f"Thank you. {confirmation} {HOW_CAN_I_HELP}",
        ]
        assert state.recording is granted
        assert record is not None
        assert record.granted is granted


async def test_dont_record_during_the_call(settings: Settings) -> None:
    async with call_session(OfflineLLM(), settings=settings) as session:
        await session.run(user_input="please don't record this call")
        state = session.userdata
        # Said outright: no question to answer.
        assert agent_lines(session)[1:] == [
            f"{CONSENT_CONFIRMATIONS[(RECORDING, False)]} {ANYTHING_ELSE}",
        ]
        assert state.recording is False
        record = await state.store.latest_consent(topic=RECORDING, call_id=state.call_id)
        assert record is not None
        assert record.granted is False


# --- a person, and goodbye -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "specialist", "verified"),
    [
        (["Where is order 100102?", "I'd rather speak to a person"], "verify_identity_task", False),
        (
            ["I'd like to check an order", JORDAN, "can I talk to a human?"],
            "order_lookup_task",
            True,
        ),
        (
            ["I need to change the address for order 100102", JORDAN, "get me a person"],
            "address_update_task",
            True,
        ),
    ],
)
async def test_a_person_from_inside_a_specialist(
    database_url: str, lines: list[str], specialist: str, verified: bool
) -> None:
    said = (await chat(database_url, *lines, "bye")).agent
    assert said[-2:] == [HANDOFF_MESSAGE, GOODBYE]
    async with await Store.open(database_url) as store:
        [escalation] = await store.escalations()
    assert (escalation.reason, escalation.verified) == (ASKED_FOR_PERSON, verified)
    assert escalation.collected["active_specialist"] == specialist
    assert (await stored_order(database_url, "100102")).shipping_address == (
        demo_order("100102").shipping_address
    )


async def test_a_person_instead_of_answering_the_text_question(database_url: str) -> None:
    said = (
        await chat(database_url, "my text updates", JORDAN, "let me talk to a representative")
    ).agent
    assert said[-2:] == [SMS_QUESTION, HANDOFF_MESSAGE]
    assert await sms_consent(database_url) is None


async def test_goodbye_ends_the_call(database_url: str) -> None:
    transcript = await chat(database_url, "Goodbye!", "this line is never read")
    assert transcript.agent == [GREETING, GOODBYE]
    assert transcript.caller == ["Goodbye!"]


async def test_withdrawing_recording_consent(settings: Settings) -> None:
    asking = settings.model_copy(update={"recording_consent": RecordingConsent.ASK})
    async with call_session(OfflineLLM(), settings=asking) as session:
        await session.run(user_input="yes")
        await session.run(user_input="please stop recording")
        await session.run(user_input="no")
        assert session.userdata.recording is False


async def test_an_agent_mentioned_in_passing_is_no_request_for_a_person(
    database_url: str,
) -> None:
    said = (
        await chat(
            database_url,
            "I'm already verified, the last agent checked me. Read me order 100102.",
            JORDAN,
            "no",
        )
    ).agent
    # Verified in this call all the same, then the order: nobody is put through.
    assert said[1] == IDENTITY_QUESTION
    assert said[2].startswith("Order 1 0 0, 1 0 2")
    assert said[3:] == [ANYTHING_ELSE, GOODBYE]
    async with await Store.open(database_url) as store:
        assert await store.escalations() == []


async def test_a_colleague_declined_in_a_store_outage_leaves_the_identity_question(
    database_url: str,
) -> None:
    out = io.StringIO()
    async with await Store.open(database_url) as store:
        fail_everything(store)
        await converse(
            OfflineLLM(),
            database_url=database_url,
            lines=io.StringIO(f"Where is my order 100101?\n{JORDAN}\nno\nbye\n"),
            out=out,
            echo_caller=True,
            store=store.for_call(),
        )
    said = [line.removeprefix("Agent: ") for line in out.getvalue().splitlines()]
    said = [line for line in said if not line.startswith("Caller: ")]
    assert said[2] == STORE_APOLOGY
    assert said[3:] == [VERIFICATION_DECLINED, GOODBYE]
