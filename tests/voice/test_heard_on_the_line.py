"""Heard means heard, on a voice line: read-backs and consent questions cut off by the
caller confirm nothing, and words said over a confirmation are kept and answered.

The calls run on the session the server builds, with timed caller audio and the
offline model; what counts as heard is decided by the code, from what played.
"""

from __future__ import annotations

from customer_service.addresses import read_back
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import RecordingConsent, Settings
from customer_service.specialists.consent import (
    CONSENT_WORDING,
    LET_ME_ASK_FIRST,
    ConsentTopic,
)
from customer_service.supervisor import EARLIER_WORDS_PENDING
from customer_service.testing.voice import (
    AgentSays,
    AgentStarts,
    HangUp,
    Utterance,
    VoiceCall,
    voice_call_session,
)
from support.conversation import JORDAN_SAYS
from support.demo_addresses import MARKET_STREET_SUITE_5

SMS = ConsentTopic.ORDER_UPDATES_SMS
RECORDING = ConsentTopic.CALL_RECORDING
NEW_ADDRESS = MARKET_STREET_SUITE_5
READ_BACK = f"I have {read_back(NEW_ADDRESS)}. Is that right?"
UP_TO_THE_READ_BACK = [
    Utterance("I need to change the delivery address for order 100102"),
    Utterance(JORDAN_SAYS),
    Utterance("1 Market Street, Suite 5, San Francisco, CA 94105"),
]


def said(call: VoiceCall) -> list[tuple[str, bool]]:
    return [(m.text_content or "", m.interrupted) for m in call.messages("assistant")]


async def test_a_yes_over_the_read_back_confirms_nothing(settings: Settings) -> None:
    caller = [
        *UP_TO_THE_READ_BACK,
        # Over the read-back, before the postal code was heard.
        Utterance("yes", after=AgentSays("I have 1 Market Street"), delay=0.3),
        HangUp(after=AgentSays("Is that right"), delay=0.5),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        read_backs = [
            (text, cut) for text, cut in said(call) if text and READ_BACK.startswith(text)
        ]
        # Cut off once, then read again in full by the specialist itself.
        assert [cut for _, cut in read_backs][:1] == [True]
        assert (READ_BACK, False) in read_backs
        store = call.state.store
        assert await store.address_changes(order_id="100102") == []
        order = await store.get_order("100102")
        assert order is not None
        assert order.shipping_address.street == "500 Howard St"
        assert call.errors == []


async def test_a_yes_after_the_whole_read_back_changes_the_address(settings: Settings) -> None:
    caller = [
        *UP_TO_THE_READ_BACK,
        Utterance("yes, that's right"),
        Utterance("no thanks"),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        assert (READ_BACK, False) in said(call)
        [change] = await call.state.store.address_changes(order_id="100102")
        assert change.new_address == NEW_ADDRESS
        assert call.errors == []


async def test_words_over_the_change_confirmation_are_kept_and_answered(
    settings: Settings,
) -> None:
    over_the_confirmation = "Wait, is order 100101 still on its way?"
    caller = [
        *UP_TO_THE_READ_BACK,
        Utterance("yes, that's right"),
        # Over "Done. Order ... will now be delivered to ...", before the text question.
        Utterance(over_the_confirmation, after=AgentSays("Done. Order"), delay=0.3),
        Utterance("no thanks", after=AgentSays("Please say yes or no")),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        store = call.state.store
        # The words over the confirmation were no answer: the question was asked again,
        # whole, and only the answer after it was stored.
        assert (f"{LET_ME_ASK_FIRST} {CONSENT_WORDING[SMS].question}", False) in said(call)
        record = await store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted is False
        # They reached the supervisor, with a note that they still need a reply.
        heard = [m.text_content for m in call.session.history.messages() if m.role == "user"]
        assert over_the_confirmation in heard
        outputs = [
            item.output
            for item in call.session.history.items
            if item.type == "function_call_output" and item.name == "update_address"
        ]
        assert len(outputs) == 1
        assert outputs[0].endswith(EARLIER_WORDS_PENDING)
        assert len(await store.address_changes(order_id="100102")) == 1
        assert call.errors == []


async def test_a_consent_question_cut_off_records_nothing(settings: Settings) -> None:
    caller = [
        *UP_TO_THE_READ_BACK,
        Utterance("yes, that's right"),
        Utterance("yes", after=AgentSays("Would you like text message updates"), delay=0.3),
        HangUp(after=AgentSays(LET_ME_ASK_FIRST), delay=0.3),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        store = call.state.store
        assert len(await store.address_changes(order_id="100102")) == 1
        assert await store.latest_consent(topic=SMS, customer_id="C-1001") is None
        assert await store.latest_consent(topic=SMS, call_id=call.state.call_id) is None
        assert call.errors == []


async def test_a_caller_talking_at_pickup_is_answered_after_the_recording_question(
    settings: Settings,
) -> None:
    asking = settings.model_copy(update={"recording_consent": RecordingConsent.ASK})
    at_pickup = "Hi, I want to know where my order is"
    caller = [
        Utterance(at_pickup, after=AgentSays("May we record this call"), delay=0.2),
        Utterance("yes", after=AgentSays("Please say yes or no")),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=asking) as call:
        await call.finished()
        state = call.state
        record = await state.store.latest_consent(topic=RECORDING, call_id=state.call_id)
        assert record is not None
        assert record.granted is True
        heard = [m.text_content for m in call.session.history.messages() if m.role == "user"]
        assert at_pickup in heard
        lines = [text for text, _ in said(call)]
        # On a loaded machine the tail of the caller's "yes" may still cut the thanks
        # short: what matters is that it began, and what follows it.
        thanks = next(i for i, text in enumerate(lines) if text.startswith("Thank you"))
        # Something is said after the thanks: the reply to the words at pickup, not a
        # question about how to help.
        assert lines[thanks + 1 :]
        assert call.errors == []


async def test_interrupting_the_cancellation_read_back_cancels_nothing(
    settings: Settings,
) -> None:
    caller = [
        Utterance("I want to cancel order 100102"),
        Utterance(JORDAN_SAYS),
        Utterance("yes", after=AgentStarts(3), delay=0.5),
        HangUp(after=AgentSays("Please say yes or no"), delay=0.3),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        order = await call.state.store.get_order("100102")
        assert order is not None
        assert order.status.value == "processing"
        assert call.errors == []
