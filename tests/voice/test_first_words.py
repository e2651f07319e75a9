"""A reply that waits for a second model request is held by a short filler, so the caller
hears something after one model call, not two; a sentence the code composes is said
without one (`call.latency.FirstWords`).

The calls run under the providers' latencies (`LatencyModel`): a model request answers
its first token half a second after it starts, so a request the caller waited through
is one that answered before the first audio they heard.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

from livekit.agents import AgentSession, FlushSentinel, UserStateChangedEvent, llm

from customer_service.call.empty_replies import ReplyChunk
from customer_service.call.latency import ALL_RIGHT, THANKS, FirstWords
from customer_service.call.phrase_cache import PhraseCache
from customer_service.call.wording import FILLERS, FILLERS_AFTER_DETAILS
from customer_service.offline_llm import OfflineLLM
from customer_service.specialists.order_lookup import OPENING_QUESTION
from customer_service.testing import call_session
from customer_service.testing.latency import LatencyModel, SlowLLM
from customer_service.testing.voice import (
    AgentSays,
    HangUp,
    Line,
    Utterance,
    VoiceCall,
    voice_call_session,
)
from support.conversation import JORDAN_SAYS, JORDAN_SAYS_TO_THE_MODEL
from support.scripted_llm import Say, ScriptedLLM

SHIPPED = "has shipped"
"""Words of order 100101's status, as the agent reads it."""


async def played_under_latency(caller: list[Line]) -> VoiceCall:
    """`caller`'s call with the offline model, under the default latency model."""
    async with voice_call_session(OfflineLLM(), caller, latency=LatencyModel()) as call:
        await call.finished()
    return call


def requests_waited_through(call: VoiceCall, line: int, speech: int) -> int:
    """Model requests that answered between the start of the caller's `line` and the
    first audio of the agent's `speech`."""
    assert isinstance(call.llm, SlowLLM)
    began, heard = call.lines[line].began_at, call.speeches[speech].began_at
    return sum(began <= answered < heard for answered in call.llm.answered)


def first_speech_after(call: VoiceCall, line: int) -> int:
    ended = call.lines[line].ended_at
    assert ended is not None
    return next(i for i, speech in enumerate(call.speeches) if speech.began_at >= ended)


def speeches_after(call: VoiceCall, line: int) -> list[str]:
    speeches = call.speeches[first_speech_after(call, line) :]
    return [" ".join(speech.heard.split()) for speech in speeches]


async def test_details_given_up_front_are_acknowledged_while_the_model_reads_them(
    store_backend: str,
) -> None:
    caller = [
        Utterance(f"{JORDAN_SAYS_TO_THE_MODEL}. Where is my order 100101?"),
        HangUp(after=AgentSays(SHIPPED), delay=0.5),
    ]
    call = await played_under_latency(caller)
    first, *rest = speeches_after(call, 0)
    assert first in FILLERS_AFTER_DETAILS
    assert SHIPPED in " ".join(rest)
    # Without it the caller would wait for the supervisor's request, then the
    # specialist's reading of the details: it plays before that is written out.
    check = next(
        item
        for item in call.session.history.items
        if item.type == "function_call" and item.name == "check_identity"
    )
    heard_at = call.speeches[first_speech_after(call, 0)].began_at - call.started_at
    assert heard_at < check.created_at - call.wall_started_at
    assert ALL_RIGHT not in call.heard  # one filler in a turn
    assert not any(said in FILLERS for said in rest)


async def test_a_tool_result_to_put_into_words_may_be_held_by_a_filler(
    store_backend: str,
) -> None:
    caller = [
        Utterance("Where is my order?"),
        Utterance(JORDAN_SAYS_TO_THE_MODEL),
        Utterance("It's 100101.", after=AgentSays(OPENING_QUESTION)),
        HangUp(after=AgentSays(SHIPPED), delay=0.5),
    ]
    call = await played_under_latency(caller)
    said = speeches_after(call, 2)
    # The relay's request may answer before a filler is due (0.3 s): then none. A filler
    # is flushed on its own; the caller gave a number, and "Thanks." held their
    # previous turn, so it is another.
    filler = said.pop(0) if said[0] in FILLERS else None
    assert filler in (None, *FILLERS_AFTER_DETAILS)
    assert filler != THANKS
    assert " ".join(said).startswith("Order")
    assert SHIPPED in " ".join(said)
    # The turns whose first request spoke (the identity question, the order question,
    # both fixed) had nothing to hold; the details, one filler of their own.
    assert ALL_RIGHT not in call.heard
    assert call.heard.count(THANKS) == 1


async def test_details_given_to_the_identity_question_are_acknowledged_before_the_model_reads_them(
    store_backend: str,
) -> None:
    caller = [
        Utterance("Where is my order?"),
        Utterance(JORDAN_SAYS_TO_THE_MODEL),
        HangUp(after=AgentSays(OPENING_QUESTION), delay=0.5),
    ]
    call = await played_under_latency(caller)
    first, *rest = speeches_after(call, 1)
    assert first == THANKS
    assert OPENING_QUESTION in " ".join(rest)
    # It played before the model had written out the check: the caller waited for the
    # end of their turn, not for the model's reading.
    check = next(
        item
        for item in call.session.history.items
        if item.type == "function_call" and item.name == "check_identity"
    )
    heard_at = call.speeches[first_speech_after(call, 1)].began_at - call.started_at
    assert heard_at < check.created_at - call.wall_started_at
    assert call.heard.count(THANKS) == 1
    assert ALL_RIGHT not in call.heard


async def test_a_filler_is_synthesised_once_per_voice(store_backend: str) -> None:
    phrases = PhraseCache()
    calls: list[VoiceCall] = []
    for _ in range(2):
        caller = [
            Utterance("Where is my order?"),
            Utterance(JORDAN_SAYS_TO_THE_MODEL),
            Utterance("It's 100101.", after=AgentSays(OPENING_QUESTION)),
            HangUp(after=AgentSays(SHIPPED), delay=0.5),
        ]
        async with voice_call_session(
            OfflineLLM(), caller, latency=LatencyModel(), phrases=phrases
        ) as call:
            await call.finished()
        calls.append(call)
    first, second = calls
    for call in calls:
        assert speeches_after(call, 1)[0] == THANKS
        assert SHIPPED in " ".join(speeches_after(call, 2))
        assert call.errors == []
    # Synthesised on its own the first time, the model's words apart; then from memory.
    assert first.tts.texts.count(THANKS) == 1
    assert not any(THANKS in text for text in first.tts.texts if text != THANKS)
    assert not any(THANKS in text for text in second.tts.texts)
    assert any(SHIPPED in text for text in second.tts.texts)


async def test_a_model_reply_that_begins_with_a_filler_is_spoken_whole() -> None:
    # The agents' speech node holds text that may be a filler alone; words after it go
    # to the TTS with it, and nothing of the reply is lost, cut or said twice.
    reply = f"{ALL_RIGHT} I can help with that."
    llm = ScriptedLLM([Say(reply), Say(ALL_RIGHT)])
    caller = [Utterance("Hello?"), Utterance("Thanks.", after=AgentSays("help with that"))]
    async with voice_call_session(llm, caller) as call:
        await call.finished()
    heard = [speech.heard for speech in call.speeches]
    assert heard[1:] == [reply, ALL_RIGHT]
    assert all(speech.played_to_end for speech in call.speeches)
    assert reply in call.tts.texts  # one synthesis, as the framework asked for it
    assert call.errors == []


async def test_a_typed_conversation_gets_no_filler(store_backend: str) -> None:
    async with call_session(OfflineLLM()) as session:
        await session.run(user_input="Where is my order?")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="It's 100101.")
    said = " ".join(
        message.text_content or ""
        for message in session.history.messages()
        if message.role == "assistant"
    )
    assert SHIPPED in said
    assert ALL_RIGHT not in said


async def _replied(
    first_words: FirstWords, *chunks: ReplyChunk, at_once: bool = False
) -> list[ReplyChunk]:
    """The reply as `first_words` passes it on, a filler owed coming at once: with no
    delay, it is sent before the model's first chunk is read."""
    first_words.time_scale = 0.0

    async def model() -> AsyncIterator[ReplyChunk]:
        for chunk in chunks:
            yield chunk

    return [chunk async for chunk in first_words.reply(model(), at_once=at_once)]


def _followed() -> tuple[AgentSession[None], FirstWords]:
    session: AgentSession[None] = AgentSession()
    first_words = FirstWords()
    first_words.follow(session)
    return session, first_words


def _tool_call(name: str) -> llm.ChatChunk:
    call = llm.FunctionToolCall(name=name, arguments="{}", call_id="c")
    return llm.ChatChunk(id="1", delta=llm.ChoiceDelta(tool_calls=[call]))


def _caller_speaks(session: AgentSession[None]) -> None:
    session.emit(
        "user_state_changed", UserStateChangedEvent(old_state="listening", new_state="speaking")
    )


async def test_a_filler_is_owed_once_after_a_tool_call_of_a_voice_turn() -> None:
    session, first_words = _followed()
    tool_call = _tool_call("lookup")
    # A typed turn: nobody has spoken by voice.
    assert await _replied(first_words, tool_call) == [tool_call]
    assert await _replied(first_words, "Here it is.") == ["Here it is."]
    _caller_speaks(session)
    # A voice turn whose first reply speaks owes nothing; one that calls a tool, silently,
    # has the next reply held by a filler, flushed, and only that one.
    assert not first_words.acknowledgement_owed
    assert await _replied(first_words, tool_call) == [tool_call]
    assert first_words.acknowledgement_owed
    held = await _replied(first_words, "Here it is.")
    assert isinstance(held[0], str)
    assert held[0].strip() in FILLERS
    assert isinstance(held[1], FlushSentinel)
    assert held[2:] == ["Here it is."]
    assert await _replied(first_words, "More.") == ["More."]


async def test_a_filler_at_once_needs_no_tool_call_and_comes_once_a_turn() -> None:
    session, first_words = _followed()
    tool_call = _tool_call("check_identity")
    assert await _replied(first_words, tool_call, at_once=True) == [tool_call]  # typed
    _caller_speaks(session)
    held = await _replied(first_words, tool_call, at_once=True)
    assert isinstance(held[0], str)
    assert held[0].strip() in FILLERS
    assert isinstance(held[1], FlushSentinel)
    assert held[2:] == [tool_call]
    # The tool call's reply, and any other request of the turn, owe nothing more.
    assert not first_words.acknowledgement_owed
    assert await _replied(first_words, "Here it is.", at_once=True) == ["Here it is."]


async def test_no_filler_is_heard_twice_in_a_row() -> None:
    session, first_words = _followed()
    heard = []
    for _ in range(4):
        _caller_speaks(session)
        held = await _replied(first_words, _tool_call("check_identity"), at_once=True)
        heard.append(held[0])
    assert all(a != b for a, b in itertools.pairwise(heard))


async def test_a_read_back_is_said_without_a_filler(
    store_backend: str,
) -> None:
    caller = [
        Utterance("I need to change the delivery address for order 100102"),
        Utterance(JORDAN_SAYS_TO_THE_MODEL),
        Utterance("1 Market Street, Suite 5, San Francisco, CA 94105"),
        HangUp(after=AgentSays("Is that right"), delay=0.5),
    ]
    call = await played_under_latency(caller)
    [read_back] = speeches_after(call, 2)
    # The read-back is the answer, and the caller's to confirm: nothing stands before it.
    assert read_back.startswith("I have 1 Market Street")
    assert read_back.endswith("Is that right?")
    assert requests_waited_through(call, 2, first_speech_after(call, 2)) == 1
    assert call.errors == []
