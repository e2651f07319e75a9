"""Real sound through the call, offline: the caller's lines said by eSpeak NG in a voice
of their own, the same way in every run (`KeptVoice`), on a noisy line for some, played
in real time as 20 ms frames into the session the server builds, heard by Silero and
the local recogniser, answered by the offline model in the local voice. Graded by the
store, and by what the agent's audio says, transcribed back by the local recogniser.
"""

from __future__ import annotations

import asyncio

from customer_service.call.latency import HOLDING_PHRASES as HOLDING
from customer_service.call.wording import ENDING_FOR_SILENCE, GREETING, STILL_THERE
from customer_service.offline_llm import OfflineLLM
from customer_service.pipeline.local_vocabulary import CallVocabulary
from customer_service.settings import Settings
from customer_service.testing.local_speech import local_call_speech, transcribed
from customer_service.testing.voice import (
    AgentFinishes,
    AgentSays,
    HangUp,
    Utterance,
    VoiceCall,
    voice_call_session,
)

REAL_TIME = 1.0
GIVE_UP_AFTER = 120.0
"""Real seconds a call may take before the test stops waiting: a guard, not a measure."""
IDENTITY = (
    "My name is Jordan Lee, my zip code is nine four one zero seven, and my email is jordan "
    "dot lee at example dot com"
)
"""The caller's details in whole sentences, as a person on the phone gives them: said as
bare words ("Jordan Lee, nine four one ..."), the recogniser hears "nine" as "I'd" after
some silences and not others (Silero's state and the speech's start move with them)."""
NEW_ADDRESS = "one Market Street, San Francisco, California, nine four one zero five"
"""With no unit: on a 15 dB line "Suite number five" is heard as "suite somewhere five",
and "Suite five" as "suite name" or "suite two", whatever the silence before it."""


def agent_vocabulary(call: VoiceCall) -> CallVocabulary:
    """What the agent may have said in this call: the ears listen for those words."""
    return CallVocabulary(message.text_content or "" for message in call.messages("assistant"))


async def heard_saying(call: VoiceCall, *phrases: str) -> bool:
    """Whether one of the agent's speeches, transcribed from its audio, holds every one
    of `phrases`."""
    vocabulary = agent_vocabulary(call)
    for speech in call.speeches:
        heard = await transcribed(speech, vocabulary)
        if all(" ".join(phrase.split()).lower() in heard for phrase in phrases):
            return True
    return False


async def replied_to_the_last_line(call: VoiceCall) -> None:
    """Waits until the agent's reply to the caller's last line has played (more than a
    phrase that holds the line while a tool works), and the call is quiet again."""
    await call.finished(give_up_after=GIVE_UP_AFTER)
    last = call.lines[-1]

    def replied() -> bool:
        ended = last.ended_at
        return ended is not None and any(
            speech.began_at > ended and speech.ended and speech.heard.strip() not in HOLDING
            for speech in call.speeches
        )

    async with asyncio.timeout(GIVE_UP_AFTER):  # a guard against a hang, not a measure
        await call.until(replied)
    await call.finished(give_up_after=GIVE_UP_AFTER)


async def test_an_order_lookup_heard_for_real(settings: Settings, store_backend: str) -> None:
    caller = [
        Utterance("Where is my order one zero zero one zero one?"),
        Utterance(IDENTITY),
        Utterance("It's order one zero zero one zero one"),
    ]
    speech = local_call_speech(settings)
    async with voice_call_session(
        OfflineLLM(), caller, settings=settings, speed=REAL_TIME, speech=speech
    ) as call:
        await call.finished(give_up_after=GIVE_UP_AFTER)
        await replied_to_the_last_line(call)
        assert call.state.verified_customer is not None
        assert await heard_saying(call, "shipped")


async def test_an_address_change_read_back_in_full_and_a_spoken_yes(
    settings: Settings, store_backend: str
) -> None:
    caller = [
        Utterance("I need to change the delivery address for order one zero zero one zero two"),
        Utterance(IDENTITY),
        Utterance(NEW_ADDRESS),
        Utterance("yes", after=AgentFinishes("Is that right")),
    ]
    speech = local_call_speech(settings, noise_snr_db=15)
    async with voice_call_session(
        OfflineLLM(), caller, settings=settings, speed=REAL_TIME, speech=speech
    ) as call:
        await call.finished(give_up_after=GIVE_UP_AFTER)
        changes = await call.state.store.address_changes(order_id="100102")
        assert len(changes) == 1
        assert await heard_saying(call, "market", "san francisco", "is that right")


async def test_a_cancellation_with_its_reason(settings: Settings, store_backend: str) -> None:
    caller = [
        Utterance("I would like to cancel an order"),
        Utterance(IDENTITY),
        Utterance("one zero zero one zero two"),
        Utterance("I ordered it by mistake"),
        Utterance("yes, cancel it", after=AgentFinishes("Please say yes or no")),
    ]
    speech = local_call_speech(settings, noise_snr_db=20)
    async with voice_call_session(
        OfflineLLM(), caller, settings=settings, speed=REAL_TIME, speech=speech
    ) as call:
        await replied_to_the_last_line(call)
        order = await call.state.store.get_order("100102")
        assert order is not None
        assert order.status.value == "cancelled"
        assert order.cancel_reason is not None
        assert order.cancel_reason.value == "ordered by mistake"
        assert await heard_saying(call, "cancel", "yes or no")


async def test_talk_over_the_read_back_cuts_it_off_and_changes_nothing(
    settings: Settings, store_backend: str
) -> None:
    caller = [
        Utterance("I need to change the delivery address for order one zero zero one zero two"),
        Utterance(IDENTITY),
        Utterance(NEW_ADDRESS),
        # Over the read-back, long enough to interrupt it: a turn, and no answer.
        Utterance("yes that's right", after=AgentSays("I have 1 Market Street"), delay=0.3),
        HangUp(after=AgentFinishes("Is that right"), delay=0.5),
    ]
    speech = local_call_speech(settings)
    async with voice_call_session(
        OfflineLLM(), caller, settings=settings, speed=REAL_TIME, speech=speech
    ) as call:
        await call.until(lambda: call.closed)
        read_backs = [speech for speech in call.speeches if "I have 1 Market" in speech.heard]
        assert read_backs[0].interrupted
        assert read_backs[-1].played_to_end
        heard = await transcribed(read_backs[-1], agent_vocabulary(call))
        assert "market" in heard
        assert "is that right" in heard
        assert await call.state.store.address_changes(order_id="100102") == []


async def test_a_silent_caller_is_asked_once_then_the_call_ends(
    settings: Settings, store_backend: str
) -> None:
    quick = settings.model_copy(update={"user_away_timeout_s": 4.0})
    speech = local_call_speech(quick)
    async with voice_call_session(
        OfflineLLM(), [], settings=quick, speed=REAL_TIME, speech=speech
    ) as call:
        await call.until(lambda: call.closed)
        said = [message.text_content for message in call.messages("assistant")]
        assert said == [GREETING, f"{STILL_THERE} How can I help you today?", ENDING_FOR_SILENCE]
        assert call.messages("user") == []
        # Heard from the audio: the question once more, then the farewell played out.
        assert await heard_saying(call, "still there")
        assert call.speeches[-1].played_to_end
