"""The caller's answer first: a filler holds the line only while the answer is awaited,
gives way to it, and sounds like a person (`call.latency.FirstWords`, `call.fillers`).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator

import pytest
from benchmarks.caller_wait import opening_filler, own_words_wait, play
from benchmarks.callers import Intent, Variant
from benchmarks.conversation import AgentKind
from livekit import rtc
from livekit.agents import AgentSession, FlushSentinel, UserStateChangedEvent, llm

from customer_service.call.empty_replies import ReplyChunk
from customer_service.call.fillers import CallerMove, FillerChoice, caller_move
from customer_service.call.latency import FirstWords
from customer_service.call.phrase_cache import paced
from customer_service.call.wording import (
    ALL_RIGHT,
    ANYTHING_ELSE,
    FILLERS,
    FILLERS_AFTER_DETAILS,
    FILLERS_AFTER_YES,
    THANKS,
)
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.specialists.cancellation import kept_message
from customer_service.specialists.consent import CONSENT_WORDING, ConsentTopic
from customer_service.testing.caller_audio import AgentSpeech
from customer_service.testing.latency import LatencyModel
from customer_service.testing.voice import AgentSays, HangUp, Utterance, voice_call_session
from support.conversation import JORDAN, JORDAN_SAYS, check_identity
from support.demo_addresses import MARKET_STREET_SUITE_5
from support.scripted_llm import Call, Decision, Say, ScriptedLLM, Turn


def _followed() -> tuple[AgentSession[None], FirstWords]:
    session: AgentSession[None] = AgentSession()
    first_words = FirstWords()
    first_words.follow(session)
    return session, first_words


def _caller_speaks(session: AgentSession[None]) -> None:
    session.emit(
        "user_state_changed", UserStateChangedEvent(old_state="listening", new_state="speaking")
    )


def _tool_call(name: str) -> llm.ChatChunk:
    call = llm.FunctionToolCall(name=name, arguments="{}", call_id="c")
    return llm.ChatChunk(id="1", delta=llm.ChoiceDelta(tool_calls=[call]))


def _caller_said(words: str) -> llm.ChatContext:
    chat_ctx = llm.ChatContext.empty()
    chat_ctx.add_message(role="user", content=words)
    return chat_ctx


async def _owing(first_words: FirstWords, session: AgentSession[None]) -> None:
    """A voice turn whose first reply called a tool silently: the next reply owes a filler."""
    _caller_speaks(session)

    async def tool_only() -> AsyncIterator[ReplyChunk]:
        yield _tool_call("lookup")

    assert [chunk async for chunk in first_words.reply(tool_only())] == [_tool_call("lookup")]
    assert first_words.acknowledgement_owed


async def test_an_answer_ready_before_the_filler_would_start_is_said_without_one() -> None:
    session, first_words = _followed()
    await _owing(first_words, session)

    async def quick() -> AsyncIterator[ReplyChunk]:
        yield "Order 1 0 0, 1 0 1 has shipped."

    said = [chunk async for chunk in first_words.reply(quick())]
    assert said == ["Order 1 0 0, 1 0 1 has shipped."]
    assert not any(isinstance(chunk, FlushSentinel) for chunk in said)


async def test_a_filler_starts_while_the_answer_is_awaited_and_the_answer_cuts_it() -> None:
    session, first_words = _followed()
    first_words.time_scale = 0.01  # the delay before a filler, in a hundredth of the time
    await _owing(first_words, session)
    answer_ready = asyncio.Event()

    async def slow() -> AsyncIterator[ReplyChunk]:
        await answer_ready.wait()
        yield "It has shipped."

    reply = aiter(first_words.reply(slow(), chat_ctx=_caller_said("It's 100101.")))
    filler = await anext(reply)
    assert filler.strip() in FILLERS_AFTER_DETAILS  # the caller gave a number
    assert isinstance(await anext(reply), FlushSentinel)
    cut = first_words.filler_cut
    assert not cut.is_set()

    # The filler's audio, far longer than the wait, plays paced; the answer cuts it.
    frames = [rtc.AudioFrame.create(16000, 1, 320) for _ in range(500)]  # 10 s

    async def recording() -> AsyncIterator[rtc.AudioFrame]:
        for frame in frames:
            yield frame

    played: list[rtc.AudioFrame] = []
    playing = paced(recording(), cut, lead_s=0.0)
    played.append(await anext(playing))  # the filler is sounding
    answer_ready.set()
    assert await anext(reply) == "It has shipped."
    assert cut.is_set()
    played += [frame async for frame in playing]
    assert len(played) < len(frames)


def test_fillers_follow_what_the_caller_did() -> None:
    assert caller_move("Jordan Lee, 94107, jordan.lee@example.com") is CallerMove.GAVE_DETAILS
    assert caller_move("Yes, that's right.") is CallerMove.SAID_YES
    assert caller_move("No, keep it.") is CallerMove.SAID_NO
    assert caller_move("Where is my order?") is CallerMove.ASKED
    assert caller_move("I'd like to check on an order.") is CallerMove.OTHER


def test_the_same_filler_never_comes_twice_in_a_row_and_all_right_once_a_call() -> None:
    choice = FillerChoice()
    said = [choice.next("yes") for _ in range(8)]
    assert all(filler in FILLERS_AFTER_YES for filler in said)
    assert all(a != b for a, b in itertools.pairwise(said))
    assert said.count(ALL_RIGHT) == 1
    mixed = [choice.next(words) for words in ("yes", "94107", "yes", "what?", "ok", "yes")]
    assert all(a != b for a, b in itertools.pairwise(mixed))
    assert ALL_RIGHT not in mixed
    assert set(mixed) <= FILLERS


# On the line: the issue-46 findings, and the scripted flows' fillers.

SMS = ConsentTopic.ORDER_UPDATES_SMS
SMS_QUESTION = CONSENT_WORDING[SMS].question
THANKS_OVER_IT = "Oh great, yes, thank you."
WHAT_ELSE = "What else can I help you with?"


def _answers_thanks_then_records_consent(turn: Turn) -> Decision:
    """A model that answers thanks with a question of its own, and a no to the text
    question with the consent tool."""
    if "record_consent" in turn.tool_names:
        return Call("record_consent", {"granted": False})
    return Say(WHAT_ELSE)


async def test_thanks_over_a_change_confirmation_gets_the_owed_question_instead_of_a_reply(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("update_address", {"order_id": "100102"}),
            check_identity(JORDAN),
            Call("record_address", MARKET_STREET_SUITE_5.model_dump()),
            Call("confirm_address"),
            _answers_thanks_then_records_consent,
            _answers_thanks_then_records_consent,
        ]
    )
    caller = [
        Utterance("I need to change the delivery address for order 100102"),
        Utterance(JORDAN_SAYS),
        Utterance("1 Market Street, Suite 5, San Francisco, CA 94105"),
        Utterance("yes, that's right"),
        Utterance(THANKS_OVER_IT, after=AgentSays("will now be delivered"), delay=0.3),
        Utterance("no thanks", after=AgentSays("Please say yes or no"), delay=0.5),
        HangUp(after=AgentSays(ANYTHING_ELSE), delay=0.3),
    ]
    async with voice_call_session(model, caller, settings=settings) as call:
        await call.finished()
        confirmation = next(s for s in call.speeches if s.heard.startswith("Done. Order"))
        after = call.speeches[call.speeches.index(confirmation) + 1 :]
        assert after[0].heard.strip() == SMS_QUESTION, call.transcript()
        assert WHAT_ELSE not in call.heard
        record = await call.state.store.latest_consent(topic=SMS, customer_id="C-1001")
        assert record is not None
        assert record.granted is False
        assert call.errors == []


async def test_a_cancellation_refused_at_the_yes_is_said_without_a_filler(
    store_backend: str,
) -> None:
    caller = [
        Utterance("I'd like to cancel order 100102"),
        Utterance(JORDAN_SAYS),
        Utterance("I don't need it any more", after=AgentSays("Why would you like to cancel")),
        Utterance("no", after=AgentSays("Please say yes or no"), delay=0.5),
        HangUp(after=AgentSays("haven't cancelled"), delay=0.5),
    ]
    async with voice_call_session(OfflineLLM(), caller, latency=LatencyModel()) as call:
        await call.finished()
    kept = kept_message("100102")
    no_said = call.lines[3].ended_at
    assert no_said is not None
    first = next(s for s in call.speeches if s.began_at >= no_said)
    # Heard first and alone: no filler ahead of words that start with their own.
    assert kept.startswith(" ".join(first.heard.split())), call.transcript()
    assert "haven't cancelled" in first.heard


async def test_no_scripted_flow_opens_two_turns_with_the_same_filler(store_backend: str) -> None:
    for intent in Intent:
        for variant in Variant:
            run = await play(AgentKind.SUPERVISED, intent, variant, LatencyModel())
            assert run.failure is None, (intent, variant, run.failure)
            fillers = [turn.opening_filler for turn in run.turns]
            assert all(a is None or a != b for a, b in itertools.pairwise(fillers))
            assert fillers.count(ALL_RIGHT) <= 1


def _heard(began_at: float, *pieces: tuple[str, float]) -> AgentSpeech:
    speech = AgentSpeech(number=1, began_at=began_at, ended=True)
    for piece, at in pieces:
        speech.words.append(piece)
        speech.heard_at.append(at)
    return speech


def test_the_wait_to_the_own_words_passes_over_every_filler_timed_by_its_audio() -> None:
    line_ended = 10.0
    thanks = _heard(10.5, ("Thanks.", 10.6), (" ", 10.7))
    led = _heard(
        11.0, ("All", 11.1), (" right.", 11.3), (" Your", 11.6), (" order", 11.8), (" shipped.", 12)
    )
    # "Thanks." alone is a filler; "All right." opens the next speech, and the words
    # after it began 0.5 s into its audio (its first word heard 0.1 s in, "Your" 0.6 s).
    assert own_words_wait([thanks, led], line_ended, speed=3.0) == pytest.approx(1.5 * 3)
    assert opening_filler([thanks, led], line_ended) == THANKS
    plain = _heard(10.8, ("Your", 10.9), (" order", 11.1))
    assert own_words_wait([plain], line_ended, speed=1.0) == pytest.approx(0.8)
    assert opening_filler([plain], line_ended) is None
    # A speech begun before the line ended, and a reply of fillers only, are no answer.
    assert own_words_wait([plain, led], 10.85, speed=1.0) == pytest.approx(0.65)
    assert own_words_wait([thanks], line_ended, speed=1.0) is None


async def test_without_fillers_no_turn_opens_with_one(store_backend: str) -> None:
    run = await play(
        AgentKind.SUPERVISED, Intent.LOOKUP, Variant.UP_FRONT, LatencyModel(), fillers=False
    )
    assert run.failure is None
    # The details given up front would get one at once (`filler_at_once`): not here.
    assert [turn.opening_filler for turn in run.turns] == [None] * len(run.turns)
