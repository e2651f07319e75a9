"""A noisy line must not void a clear answer.

A cough or line noise is voice activity without words. The framework opens the caller's
turn at it, so a clear yes said after a question used to carry a start from before the
question ended and count for nothing. Here, around each of the agent's spoken questions
(the address read-back, the cancellation read-back, the consent question and the
calling-number question), a noise comes before the question, during it (pausing it,
a false interruption), over its end, or just after it, and then a clear yes after it:
the yes counts. A yes that truly began before the question ended (over its last words,
on after it) still does not, on a quiet line or a noisy one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from livekit.agents.llm import LLM

from customer_service.call.heard import ANSWER_OVERLAP_S
from customer_service.call.state import CallerLine
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.specialists.consent import ConsentTopic
from customer_service.testing.earpiece import AgentSpeech
from customer_service.testing.voice import (
    AgentEndsIn,
    AgentFinishes,
    AgentSays,
    Immediately,
    Line,
    Utterance,
    VoiceCall,
    voice_call_session,
)
from support.conversation import JORDAN_SAYS
from support.demo_addresses import MARKET_STREET_SUITE_5
from support.line import PHONE_LINE
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

JORDAN_ID = "C-1001"
GIVE_UP_AFTER = 20.0
"""Real seconds a call may take to reply before the test stops waiting."""


@dataclass(frozen=True)
class Question:
    """One spoken question, the lines that lead to it, and how its yes shows."""

    opening: str
    """Its first words: heard soon after it begins; its audio starts with them."""
    late_words: str
    """Words heard well before its end, and after a pause a noise at its opening makes."""
    closing: str
    """Its last words: heard as it ends."""
    answer: str
    lead_up: list[Line]
    said_yes: Callable[[VoiceCall], Awaitable[bool]]
    """Whether the store (or the call) shows the yes was taken."""
    model: Callable[[], LLM[Any]] = OfflineLLM
    line: CallerLine = field(default_factory=CallerLine)


async def address_changed(call: VoiceCall) -> bool:
    changes = await call.state.store.address_changes(order_id="100102")
    return [change.new_address for change in changes] == [MARKET_STREET_SUITE_5]


async def order_cancelled(call: VoiceCall) -> bool:
    order = await call.state.store.get_order("100102")
    assert order is not None
    return order.status.value == "cancelled"


async def text_updates_granted(call: VoiceCall) -> bool:
    topic = ConsentTopic.ORDER_UPDATES_SMS
    record = await call.state.store.latest_consent(topic=topic, customer_id=JORDAN_ID)
    return record is not None and record.granted


async def verified_by_calling_number(call: VoiceCall) -> bool:
    customer = call.state.verified_customer
    return customer is not None and customer.customer_id == JORDAN_ID


QUESTIONS = {
    "address read-back": Question(
        opening="I have 1 Market Street",
        late_words="United States",
        closing="Is that right",
        answer="yes, that's right",
        lead_up=[
            Utterance("I need to change the delivery address for order 100102"),
            Utterance(JORDAN_SAYS),
            Utterance("1 Market Street, Suite 5, San Francisco, CA 94105"),
        ],
        said_yes=address_changed,
    ),
    "cancellation read-back": Question(
        opening="I'll cancel order 1 0 0, 1 0 2",
        late_words="Do you want me to cancel this order",
        closing="Please say yes or no",
        answer="yes, cancel it",
        lead_up=[
            Utterance("I want to cancel order 100102"),
            Utterance(JORDAN_SAYS),
            Utterance("I don't need it any more"),
        ],
        said_yes=order_cancelled,
    ),
    "consent question": Question(
        opening="Would you like text message updates",
        late_words="Message and data rates",
        closing="Please say yes or no",
        answer="yes please",
        lead_up=[
            Utterance("I'd like text message updates about my orders"),
            Utterance(JORDAN_SAYS),
        ],
        said_yes=text_updates_granted,
    ),
    "calling-number question": Question(
        # Put on its own, or at the end of the identity question.
        opening="Are you",
        late_words="the number",
        closing="the number on your account",
        answer="Jordan Lee, 94107, and yes I am",
        lead_up=[Utterance("I need help with my account")],
        said_yes=verified_by_calling_number,
        model=lambda: ScriptedLLM(
            [
                Call("verify_identity"),
                Call("use_calling_number", {"full_name": "Jordan Lee", "postal_code": "94107"}),
                relay,
                relay,
            ]
        ),
        line=PHONE_LINE,
    ),
}


NOISE = ""
"""A line with no words: heard on the line, never transcribed."""
OVER_THE_END = ANSWER_OVERLAP_S + 0.05
"""Seconds before the question's end a sound begun over its last words starts: more than
an answer may overlap it (`ANSWER_OVERLAP_S`), and too soon before the end for the
speech that interrupts (0.5 s, whose last frame is sent 0.4 s after the first) to
pause it. The question is held there until the sound begins (`AgentEndsIn`)."""


def noise_then_yes(question: Question, where: str) -> list[Line]:
    """The lines up to the question, a noise `where` it falls, then the clear yes begun
    after the question ended."""
    # The yes is cued on the question's end, never on its last words and a pause: on a
    # busy machine the words reach the caller well before the audio has played out
    # (after a pause, nearly a second of script time was seen).
    yes = Utterance(question.answer, after=AgentFinishes(question.closing), delay=0.6)
    if where == "before":
        # A click while the agent prepares the question (held until then: see
        # `question_held_for_the_noise`), too short to pause anything.
        noise = Utterance(NOISE, after=Immediately(), delay=1.5, duration=0.3)
    elif where == "during":
        # Long enough to pause it; it resumes two seconds later and plays to its end.
        noise = Utterance(NOISE, after=AgentSays(question.opening), delay=0.3, duration=0.7)
    elif where == "over its end":
        # Begun over its last word, too soon before the end to pause it, and on after it.
        noise = Utterance(NOISE, after=AgentEndsIn(question.late_words, OVER_THE_END), duration=0.8)
        yes = Utterance(question.answer, after=Immediately(), delay=0.7)
    elif where == "just after":
        noise = Utterance(NOISE, after=AgentFinishes(question.closing), delay=0.1, duration=0.4)
        yes = Utterance(question.answer, after=Immediately(), delay=0.7)
    else:
        raise ValueError(f"no noise {where!r}")
    return [*question.lead_up, noise, yes]


def asking(call: VoiceCall, question: Question) -> AgentSpeech:
    """The agent's first speech that held the question."""
    return next(speech for speech in call.speeches if question.opening in speech.heard)


async def answered(call: VoiceCall) -> None:
    """Waits until the agent has begun replying to the caller's last line, and the call is
    quiet again. (While a tool works on after a specialist hands back, the framework
    shows the agent as listening: quiet alone is not enough.)"""
    await call.finished()
    last_line = call.lines[-1]

    def replied() -> bool:
        ended = last_line.ended_at
        return ended is not None and any(speech.began_at > ended for speech in call.speeches)

    try:
        async with asyncio.timeout(GIVE_UP_AFTER):  # a guard against a hang, not a measure
            await call.until(replied)
    except TimeoutError:
        raise AssertionError(f"no reply to the caller's last line\n{call.transcript()}") from None
    await call.finished()


def question_kept_playing_for_the_noise(call: VoiceCall, question: Question) -> None:
    """The sentence the question opens with holds back the second half of its audio
    until the caller's noise has begun: the noise falls within the question however
    late its words reach the caller (on a loaded machine, the transcript's pacing lags
    the audio, and a noise cued by the words alone once came after the question)."""

    def noise_begun() -> bool:
        return any(line.text == NOISE for line in call.lines)

    async def hold(text: str) -> None:
        if text.strip().startswith(question.opening):
            await call.until(noise_begun)

    call.tts.hold_halfway = hold


def question_held_for_the_noise(call: VoiceCall, question: Question) -> None:
    """The question's audio is not made until the caller's noise has ended: the model
    or the speech synthesis took a moment, and the line crackled meanwhile."""

    def noise_over() -> bool:
        return any(line.text == NOISE and line.ended_at is not None for line in call.lines)

    async def hold(text: str) -> None:
        if text.strip().startswith(question.opening):
            await call.until(noise_over)

    call.tts.hold = hold


@pytest.mark.parametrize("where", ["before", "during", "over its end", "just after"])
@pytest.mark.parametrize("asked", list(QUESTIONS))
async def test_a_clear_yes_after_the_question_counts_on_a_noisy_line(
    settings: Settings, store_backend: str, asked: str, where: str
) -> None:
    question = QUESTIONS[asked]
    caller = noise_then_yes(question, where)
    async with voice_call_session(question.model(), caller, settings=settings) as call:
        call.state.learn_line(question.line)
        if where == "before":
            question_held_for_the_noise(call, question)
        if where == "during":
            question_kept_playing_for_the_noise(call, question)
        await answered(call)
        if where == "during":
            assert asking(call, question).pauses  # the noise paused it
        assert await question.said_yes(call)
        assert call.errors == []


@pytest.mark.parametrize("on_the_line", ["quiet", "noise"])
@pytest.mark.parametrize("asked", list(QUESTIONS))
async def test_a_yes_begun_over_the_end_of_the_question_still_does_not_count(
    settings: Settings, store_backend: str, asked: str, on_the_line: str
) -> None:
    question = QUESTIONS[asked]
    # On a noisy line a noise opens the caller's turn, pausing the question. Then the
    # yes begins over the question's last words, too late to cut it off, and goes on
    # after it.
    noise = Utterance(NOISE, after=AgentSays(question.opening), delay=0.3, duration=0.7)
    caller = [
        *question.lead_up,
        *([noise] if on_the_line == "noise" else []),
        Utterance(question.answer, after=AgentEndsIn(question.late_words, OVER_THE_END)),
    ]
    async with voice_call_session(question.model(), caller, settings=settings) as call:
        call.state.learn_line(question.line)
        if on_the_line == "noise":
            question_kept_playing_for_the_noise(call, question)
        await answered(call)
        # The question played to its end: heard, and still not answered.
        assert asking(call, question).played_to_end
        assert bool(asking(call, question).pauses) is (on_the_line == "noise")
        assert not await question.said_yes(call)
        assert call.errors == []
