"""Real sound through the call, offline: the caller's lines said by eSpeak NG in a voice
of their own (on a noisy line for some), played in real time as 20 ms frames into the
session the server builds, heard by Silero and the local recogniser, answered by the
offline model in the local voice. Graded by the store, and by what the agent's audio
says, transcribed back by the local recogniser.
"""

from __future__ import annotations

import asyncio

from customer_service.offline_llm import OfflineLLM
from customer_service.pipeline.local_vocabulary import CallVocabulary
from customer_service.settings import Settings
from customer_service.testing.local_speech import local_call_speech, transcribed
from customer_service.testing.voice import AgentFinishes, Utterance, VoiceCall, voice_call_session

REAL_TIME = 1.0
GIVE_UP_AFTER = 120.0
"""Real seconds a call may take before the test stops waiting: a guard, not a measure."""
IDENTITY = "Jordan Lee, nine four one zero seven, jordan dot lee at example dot com"


def agent_vocabulary(call: VoiceCall) -> CallVocabulary:
    """What the agent may have said in this call: the ears listen for those words."""
    return CallVocabulary(message.text_content or "" for message in call.messages("assistant"))


async def heard_saying(call: VoiceCall, words: str) -> bool:
    """Whether any of the agent's speech, transcribed from its audio, holds `words`."""
    vocabulary = agent_vocabulary(call)
    wanted = " ".join(words.split()).lower()
    for speech in call.speeches:
        if wanted in await transcribed(speech, vocabulary):
            return True
    return False


async def replied_to_the_last_line(call: VoiceCall) -> None:
    """Waits until the agent has begun a reply after the caller's last line, and the call
    is quiet again."""
    last = call.lines[-1]

    def replied() -> bool:
        ended = last.ended_at
        return ended is not None and any(speech.began_at > ended for speech in call.speeches)

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
        print(call.transcript())
        await replied_to_the_last_line(call)
        assert call.state.verified_customer is not None
        assert await heard_saying(call, "shipped")


async def test_an_address_change_read_back_in_full_and_a_spoken_yes(
    settings: Settings, store_backend: str
) -> None:
    caller = [
        Utterance("I need to change the delivery address for order one zero zero one zero two"),
        Utterance(IDENTITY),
        Utterance(
            "one Market Street, Suite five, San Francisco, California, nine four one zero five"
        ),
        Utterance("yes", after=AgentFinishes("Is that right")),
    ]
    speech = local_call_speech(settings, noise_snr_db=15)
    async with voice_call_session(
        OfflineLLM(), caller, settings=settings, speed=REAL_TIME, speech=speech
    ) as call:
        await call.finished(give_up_after=GIVE_UP_AFTER)
        print(call.transcript())
        changes = await call.state.store.address_changes(order_id="100102")
        assert len(changes) == 1
        assert await heard_saying(call, "market street")
