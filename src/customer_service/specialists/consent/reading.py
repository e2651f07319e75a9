"""What the caller's words decide about a consent question before the model reads them:
words said over the question end the task, an acknowledgement ("okay, thanks") is asked
"is that a yes?", and after the last answer the task will hear, a reply that records
nothing is an unclear answer rather than a third asking."""

from __future__ import annotations

from collections.abc import AsyncIterable

from livekit.agents import FlushSentinel, llm

from customer_service.call.answers import acknowledgement_only
from customer_service.call.code_steps import calls_a_tool, step_call
from customer_service.call.heard import SpokenQuestion, caller_messages
from customer_service.specialists.consent.answer import ConsentAnswer

__all__ = [
    "IS_THAT_A_YES",
    "MAX_ANSWERS",
    "SETTLE",
    "answers_heard",
    "decided_in_code",
    "unclear_after_the_last_answer",
]

MAX_ANSWERS = 2
"""Answers to the question the task will hear: an unclear one is asked again once, no
more."""
SETTLE = "settle_in_code"
"""The task's code-step tool, which takes what was decided here."""
IS_THAT_A_YES = "is_that_a_yes"

Chunk = llm.ChatChunk | str | FlushSentinel


def answers_heard(history: llm.ChatContext) -> int:
    """The caller's answers so far: the task starts without earlier history, and words
    spoken over its question end it, so every caller message answered a heard asking."""
    return len(caller_messages(history))


def decided_in_code(question: SpokenQuestion, history: llm.ChatContext) -> str | None:
    """The step the caller's latest words decide on their own (`SETTLE`'s argument),
    or None when the model is to read them."""
    if question.spoke_over(history):
        # Words said before the question was heard answer nothing, and they may ask
        # for something this task cannot give: the task ends, the words go back to
        # the supervisor in its history, and it replies before asking again.
        return ConsentAnswer.SPOKEN_OVER
    latest = caller_messages(history)[-1:]
    if (
        question.heard
        and latest
        and acknowledgement_only(latest[0].text_content or "")
        and answers_heard(history) < MAX_ANSWERS
    ):
        # "Okay, thanks" after the question: heard, but not answered. Asked briefly,
        # in code, whatever the model would make of it.
        return IS_THAT_A_YES
    return None


async def unclear_after_the_last_answer(
    reply: AsyncIterable[Chunk], answers: int
) -> AsyncIterable[Chunk]:
    """The model's `reply`, except after the last answer the task will hear: then held
    until it is clear whether it records an answer or is about to ask a third time."""
    if answers < MAX_ANSWERS:
        async for chunk in reply:
            yield chunk
        return
    chunks = [chunk async for chunk in reply]
    if not any(calls_a_tool(chunk) for chunk in chunks):
        # Asked twice without a clear answer: unclear, and no third asking.
        yield step_call(SETTLE, step=ConsentAnswer.UNCLEAR)
        return
    for chunk in chunks:
        yield chunk
