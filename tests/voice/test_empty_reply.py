"""An empty model reply on a voice line: no text and no tool call, as real models send
now and then. The caller never waits in silence for it, and a question the agent owes
them is still put.
"""

from __future__ import annotations

from customer_service.call.wording import ANYTHING_ELSE, SAY_AGAIN
from customer_service.settings import Settings
from customer_service.specialists.consent import (
    CONSENT_CONFIRMATIONS,
    CONSENT_WORDING,
    ConsentTopic,
)
from customer_service.testing.voice import (
    AgentFinishes,
    AgentSays,
    HangUp,
    Utterance,
    voice_call_session,
)
from support.conversation import JORDAN, JORDAN_SAYS, check_identity
from support.demo_addresses import MARKET_STREET_SUITE_5
from support.scripted_llm import Call, Say, ScriptedLLM

SMS = ConsentTopic.ORDER_UPDATES_SMS
SMS_QUESTION = CONSENT_WORDING[SMS].question
DECLINED = f"{CONSENT_CONFIRMATIONS[(SMS, False)]} {ANYTHING_ELSE}"
ANSWER_PAUSE = 0.5
"""Script seconds a caller leaves after a question has played out before answering."""
EMPTY = Say("")
"""A reply with no words and no tool call."""
THANKS = "Oh great, thank you for your help."
"""Words over the confirmation that say more than a reaction, so the model is asked to
reply to them (a bare "thank you" gets the owed question at once, with no model turn)."""
UP_TO_THE_CONFIRMATION = [
    Utterance("I need to change the delivery address for order 100102"),
    Utterance(JORDAN_SAYS),
    Utterance("1 Market Street, Suite 5, San Francisco, CA 94105"),
    Utterance("yes, that's right"),
    # Over "Done. Order ... will now be delivered to ...".
    Utterance(THANKS, after=AgentSays("will now be delivered"), delay=0.3),
]
CHANGE_CONFIRMED = [
    Call("update_address", {"order_id": "100102"}),
    check_identity(JORDAN),
    Call("record_address", MARKET_STREET_SUITE_5.model_dump()),
    Call("confirm_address"),
]


async def test_thanks_over_the_change_confirmation_then_an_empty_reply_puts_the_text_question(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            *CHANGE_CONFIRMED,
            EMPTY,  # the reply to the thanks
            Call("record_consent", {"granted": False}),
        ]
    )
    caller = [
        *UP_TO_THE_CONFIRMATION,
        Utterance("no thanks", after=AgentFinishes("Please say yes or no"), delay=ANSWER_PAUSE),
        HangUp(after=AgentSays(ANYTHING_ELSE), delay=0.3),
    ]
    async with voice_call_session(model, caller, settings=settings) as call:
        await call.finished()

        confirmation = next(s for s in call.speeches if s.heard.startswith("Done. Order"))
        assert confirmation.interrupted, call.transcript()
        assert THANKS in [m.text_content for m in call.messages("user")]
        # The thanks got an empty reply: the question owed took its place, whole.
        after = call.speeches[call.speeches.index(confirmation) + 1 :]
        assert [s.heard for s in after][:2] == [SMS_QUESTION, DECLINED], call.transcript()
        assert after[0].played_to_end
        record = await call.state.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted is False
        assert call.errors == []
    assert not model.overran


async def test_an_empty_reply_with_nothing_owed_is_not_silence_on_the_line(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            *CHANGE_CONFIRMED,
            EMPTY,
            Call("record_consent", {"granted": False}),
            EMPTY,  # the reply to the caller's words after everything owed was put
            Say(ANYTHING_ELSE),
        ]
    )
    caller = [
        *UP_TO_THE_CONFIRMATION,
        Utterance("no thanks", after=AgentFinishes("Please say yes or no"), delay=ANSWER_PAUSE),
        Utterance("Great, thanks so much.", after=AgentFinishes(ANYTHING_ELSE), delay=ANSWER_PAUSE),
        Utterance("I said thanks so much.", after=AgentFinishes(SAY_AGAIN), delay=ANSWER_PAUSE),
        HangUp(after=AgentSays(ANYTHING_ELSE), delay=0.3),
    ]
    async with voice_call_session(model, caller, settings=settings) as call:
        await call.finished()

        heard = [s.heard for s in call.speeches]
        declined = heard.index(DECLINED)
        assert heard[declined + 1 :] == [SAY_AGAIN, ANYTHING_ELSE], call.transcript()
        assert call.errors == []
    assert not model.overran
