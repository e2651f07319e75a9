"""Heard means heard, on a voice line: read-backs and consent questions cut off by the
caller confirm nothing, an acknowledgement is no consent, and words said over a question
or a confirmation are answered first, before the question is put.

The calls run on the session the server builds, with timed caller audio and the
offline model; what counts as heard is decided by the code, from what played.
"""

from __future__ import annotations

from pathlib import Path

from livekit.agents.llm import ChatMessage

from customer_service.addresses import read_back
from customer_service.call.latency import THANKS
from customer_service.call.transcripts import save_transcript
from customer_service.call.wording import ANYTHING_ELSE, WELCOME
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import RecordingConsent, Settings
from customer_service.specialists.consent import (
    CONSENT_CONFIRMATIONS,
    CONSENT_WORDING,
    ConsentTopic,
)
from customer_service.testing.voice import (
    AgentFinishes,
    AgentSays,
    AgentStarts,
    HangUp,
    Utterance,
    VoiceCall,
    voice_call_session,
)
from support.conversation import JORDAN_SAYS, JORDAN_SAYS_TO_THE_MODEL
from support.demo_addresses import MARKET_STREET_SUITE_5

SMS = ConsentTopic.ORDER_UPDATES_SMS
ANSWER_PAUSE = 0.5
"""Script seconds a caller leaves after a question has played out before answering (cued
on its end, not on its last words: those are heard as they begin to play, and on a busy
machine well before the audio ends; an answer begun before the question ended, beyond
the 0.3 s allowance, is talk over it, not its answer)."""
RECORDING = ConsentTopic.CALL_RECORDING
NEW_ADDRESS = MARKET_STREET_SUITE_5
READ_BACK = f"I have {read_back(NEW_ADDRESS)}. Is that right?"
FIRST_READ_BACK = READ_BACK
"""As the caller first hears it, right after the address's silent tool call: no filler
stands before a read-back (`call.latency`)."""
CONFIRMATION = f"Done. Order 1 0 0, 1 0 2 will now be delivered to {read_back(NEW_ADDRESS)}."
SMS_QUESTION = CONSENT_WORDING[SMS].question
IS_THAT_A_YES_TO_TEXTS = CONSENT_WORDING[SMS].is_that_a_yes
RECORDING_QUESTION = CONSENT_WORDING[RECORDING].question
UP_TO_THE_READ_BACK = [
    Utterance("I need to change the delivery address for order 100102"),
    Utterance(JORDAN_SAYS),
    Utterance("1 Market Street, Suite 5, San Francisco, CA 94105"),
]


def said(call: VoiceCall) -> list[tuple[str, bool]]:
    return [(m.text_content or "", m.interrupted) for m in call.messages("assistant")]


def first(lines: list[tuple[str, bool]], starting: str, *, after: int = -1) -> int:
    """Where the first line starting with `starting` (after line `after`) is; a failure
    says everything the caller heard."""
    found = [i for i, (text, _) in enumerate(lines) if i > after and text.startswith(starting)]
    assert found, f"no line starting {starting!r} after line {after} in {lines}"
    return found[0]


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
            (text, cut) for text, cut in said(call) if text and FIRST_READ_BACK.startswith(text)
        ]
        # Cut off once, then read again in full by the specialist itself (the yes was a
        # turn of its own, with a silent tool call: acknowledged first again).
        assert [cut for _, cut in read_backs][:1] == [True]
        assert (FIRST_READ_BACK, False) in read_backs
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
        Utterance("no thanks", after=AgentFinishes("Please say yes or no"), delay=ANSWER_PAUSE),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        assert (FIRST_READ_BACK, False) in said(call)
        [change] = await call.state.store.address_changes(order_id="100102")
        assert change.new_address == NEW_ADDRESS
        assert call.errors == []


async def test_an_acknowledgement_of_the_text_question_is_no_yes(settings: Settings) -> None:
    caller = [
        *UP_TO_THE_READ_BACK,
        Utterance("yes, that's right"),
        # After the whole question has played: heard, and only acknowledged.
        Utterance("Okay, thanks.", after=AgentFinishes("Please say yes or no"), delay=ANSWER_PAUSE),
        HangUp(after=AgentSays(IS_THAT_A_YES_TO_TEXTS), delay=0.5),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        lines = said(call)
        assert (IS_THAT_A_YES_TO_TEXTS, False) in lines, lines
        store = call.state.store
        assert await store.latest_consent(topic=SMS, customer_id="C-1001") is None
        assert await store.latest_consent(topic=SMS, call_id=call.state.call_id) is None
        assert len(await store.address_changes(order_id="100102")) == 1
        assert call.errors == []


async def test_the_text_question_comes_after_the_confirmation_in_a_turn_of_its_own(
    settings: Settings,
) -> None:
    caller = [
        *UP_TO_THE_READ_BACK,
        Utterance("yes, that's right"),
        Utterance(
            "Great, thanks.", after=AgentFinishes("Please say yes or no"), delay=ANSWER_PAUSE
        ),
        Utterance("yes", after=AgentFinishes(IS_THAT_A_YES_TO_TEXTS), delay=ANSWER_PAUSE),
        HangUp(after=AgentSays(CONSENT_CONFIRMATIONS[(SMS, True)]), delay=0.3),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        lines = said(call)
        done = lines.index((CONFIRMATION, False))
        assert lines[done + 1 : done + 3] == [
            (SMS_QUESTION, False),
            (IS_THAT_A_YES_TO_TEXTS, False),
        ], lines
        record = await call.state.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted is True
        assert call.errors == []


async def test_thanks_said_as_the_text_question_begins_is_no_answer(settings: Settings) -> None:
    caller = [
        *UP_TO_THE_READ_BACK,
        Utterance("yes, that's right"),
        # Thanks for the confirmation, said as the question begins: over it, not to it.
        Utterance("Okay, thanks.", after=AgentSays(f"{read_back(NEW_ADDRESS)}."), delay=0.1),
        HangUp(after=AgentSays("Please say yes or no"), delay=0.5),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        history = [
            (item.role, item.text_content or "", item.interrupted)
            for item in call.session.history.items
            if isinstance(item, ChatMessage)
        ]
        thanks = history.index(("user", "Okay, thanks.", False))
        # The thanks got a reply, and the question was then put again, whole.
        assert ("assistant", SMS_QUESTION, False) in history[thanks + 2 :], history
        store = call.state.store
        assert await store.latest_consent(topic=SMS, customer_id="C-1001") is None
        assert await store.latest_consent(topic=SMS, call_id=call.state.call_id) is None
        assert call.errors == []


async def test_a_question_over_the_confirmation_is_answered_before_the_text_question(
    settings: Settings,
) -> None:
    over_the_confirmation = "Will it still arrive this week?"
    caller = [
        *UP_TO_THE_READ_BACK,
        Utterance("yes, that's right"),
        # Over "Done. Order ... will now be delivered to ...", before the text question.
        Utterance(over_the_confirmation, after=AgentSays("Done. Order"), delay=0.3),
        Utterance("no thanks", after=AgentFinishes("Please say yes or no"), delay=ANSWER_PAUSE),
        HangUp(after=AgentSays(CONSENT_CONFIRMATIONS[(SMS, False)]), delay=0.3),
    ]
    # A loaded machine can slow the order's lookup past the "one moment" notice's
    # second (0.1 s at the call's pace), which would then be the acknowledgement.
    patient = settings.model_copy(update={"slow_step_notice_s": 60})
    async with voice_call_session(OfflineLLM(), caller, settings=patient) as call:
        await call.finished()
        lines = said(call)
        # The confirmation was cut off by the question, which got a real answer (the
        # order's status, looked up), and only then was the text question put, whole.
        cut_off = first(lines, "Done. Order")
        assert lines[cut_off][1] is True, lines
        answered = first(lines, "Order 1 0 0, 1 0 2", after=cut_off)
        assert "is processing" in lines[answered][0], lines
        asked = first(lines, SMS_QUESTION, after=answered)
        assert lines[asked] == (SMS_QUESTION, False), lines
        heard = [m.text_content for m in call.messages("user")]
        assert over_the_confirmation in heard
        store = call.state.store
        record = await store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted is False
        assert len(await store.address_changes(order_id="100102")) == 1
        assert call.errors == []


async def test_a_consent_question_cut_off_records_nothing(settings: Settings) -> None:
    caller = [
        *UP_TO_THE_READ_BACK,
        Utterance("yes, that's right"),
        Utterance("yes", after=AgentSays("Would you like text message updates"), delay=0.3),
        # The yes said over it gets a reply of its own; then the question, again.
        HangUp(after=AgentSays("Would you like text message updates"), delay=0.3),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        store = call.state.store
        assert len(await store.address_changes(order_id="100102")) == 1
        assert await store.latest_consent(topic=SMS, customer_id="C-1001") is None
        assert await store.latest_consent(topic=SMS, call_id=call.state.call_id) is None
        assert call.errors == []


async def test_words_at_pickup_are_answered_before_the_recording_question(
    settings: Settings,
) -> None:
    asking = settings.model_copy(update={"recording_consent": RecordingConsent.ASK})
    at_pickup = "Hi, I'm calling about my order 100101"
    caller = [
        Utterance(at_pickup, after=AgentSays("May we record this call"), delay=0.2),
        # The reply to those words: the order needs a verified caller.
        Utterance(JORDAN_SAYS_TO_THE_MODEL, after=AgentSays("email address on the account")),
        Utterance("yes", after=AgentFinishes("Please say yes or no"), delay=ANSWER_PAUSE),
        HangUp(after=AgentSays(ANYTHING_ELSE), delay=0.5),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=asking) as call:
        await call.finished()
        lines = said(call)
        # Cut off at pickup, so never answered by the words said over it ...
        assert lines[0][0].startswith(WELCOME), lines
        assert lines[0][1] is True, lines
        # ... which got their answer first: the order's status, after verification (its
        # details acknowledged as soon as they were given) ...
        checking = first(lines, THANKS)
        status = first(lines, "Order 1 0 0, 1 0 1", after=checking)
        # ... and then the recording question, whole, and the thanks for the yes after it.
        asked = first(lines, RECORDING_QUESTION, after=status)
        assert lines[asked] == (RECORDING_QUESTION, False), lines
        thanks = f"Thank you. {CONSENT_CONFIRMATIONS[(RECORDING, True)]} {ANYTHING_ELSE}"
        assert lines[first(lines, "Thank you.", after=asked)] == (thanks, False), lines
        state = call.state
        record = await state.store.latest_consent(topic=RECORDING, call_id=state.call_id)
        assert record is not None
        assert record.granted is True
        assert at_pickup in [m.text_content for m in call.messages("user")]
        assert call.errors == []


async def test_a_call_that_ends_before_the_recording_question_is_answered_is_not_recorded(
    settings: Settings, tmp_path: Path
) -> None:
    asking = settings.model_copy(
        update={"recording_consent": RecordingConsent.ASK, "transcript_dir": tmp_path}
    )
    caller = [
        Utterance("Hi, I'm calling about my order", after=AgentSays("May we record"), delay=0.2),
        # Gone while the words at pickup are being answered: the question never was.
        HangUp(after=AgentSays("verify your identity"), delay=0.3),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=asking) as call:
        await call.finished()
        assert call.state.recording is False, said(call)
        assert save_transcript(call.state, call.session.history) is None
        assert call.errors == []


async def test_interrupting_the_cancellation_read_back_cancels_nothing(
    settings: Settings,
) -> None:
    caller = [
        Utterance("I want to cancel order 100102"),
        Utterance(JORDAN_SAYS),
        Utterance("I don't need it any more"),
        Utterance("yes", after=AgentStarts(4), delay=0.5),
        HangUp(after=AgentSays("Please say yes or no"), delay=0.3),
    ]
    async with voice_call_session(OfflineLLM(), caller, settings=settings) as call:
        await call.finished()
        order = await call.state.store.get_order("100102")
        assert order is not None
        assert order.status.value == "pending"
        assert call.errors == []
