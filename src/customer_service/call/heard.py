"""A question the agent speaks itself, and the caller's words that answer it.

"The caller heard it" and "the caller said yes" are facts checked here, never the
model's account: a question counts as heard only when its speech finished playing
without being cut off, and only the caller's words begun after that answer it. When
words began is measured from the speech that became them (`caller_timeline`), not from
a noise on the line before them.
"""

from __future__ import annotations

import time

from livekit.agents import Agent
from livekit.agents.llm import ChatContext, ChatMessage
from livekit.agents.voice import SpeechHandle

from customer_service.call.caller_timeline import CallerTimeline
from customer_service.call.phrase_cache import say

__all__ = ["ANSWER_OVERLAP_S", "SpokenQuestion", "caller_messages"]

ANSWER_OVERLAP_S = 0.3
"""How early an answer may begin before the question's audio ended: callers start their
"yes" as the last word fades, and the playout's end is measured after the last sample.
Seconds of a call (`CallerTimeline.seconds` puts them on the session's clock)."""


def caller_messages(history: ChatContext) -> list[ChatMessage]:
    return [item for item in history.items if isinstance(item, ChatMessage) and item.role == "user"]


def _began_speaking_at(message: ChatMessage, timeline: CallerTimeline) -> float:
    """When the caller began these words: measured on a voice call, else when they
    reached the agent (typed text)."""
    turn_began = message.metrics.get("started_speaking_at")
    if turn_began is None:
        return message.created_at
    return timeline.words_began(turn_began, message.created_at)


class SpokenQuestion:
    """One fixed question an agent speaks with `session.say`, tracked until answered."""

    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        self._speech: SpeechHandle | None = None
        self._earlier_messages = 0
        """Caller messages already in the history when the latest asking began."""
        self._finished_at: float | None = None
        """When the latest asking finished playing in full; None while it plays, or
        when it was cut off."""
        self._ended = True
        """Whether the latest asking has ended, heard in full or cut off."""

    def ask(self, text: str) -> SpeechHandle:
        """Speaks `text`; answers to any earlier asking no longer count."""
        self._timeline()  # the caller's sound is on it from now on, at the latest
        self._finished_at = None
        self._ended = False
        self._earlier_messages = len(caller_messages(self._agent.chat_ctx))
        speech = say(self._agent.session, text)
        self._speech = speech
        speech.add_done_callback(self._note_finished)
        return speech

    @property
    def heard(self) -> bool:
        """Whether the latest asking finished playing without being interrupted."""
        return self._finished_at is not None

    @property
    def playing(self) -> bool:
        """Whether the latest asking has yet to end: waiting its turn, or being spoken."""
        return self._speech is not None and not self._ended

    def answer(self) -> str | None:
        """The caller's latest words begun after the question was heard, if any. Words
        already in the history when it was asked never answer it, however close to its
        end they came (a typed yes to an earlier question, a question that took no time
        to play)."""
        finished_at = self._finished_at
        if finished_at is None:
            return None
        timeline = self._timeline()
        answers = [
            message.text_content or ""
            for message in caller_messages(self._agent.chat_ctx)[self._earlier_messages :]
            if _began_speaking_at(message, timeline)
            >= finished_at - timeline.seconds(ANSWER_OVERLAP_S)
        ]
        return answers[-1] if answers else None

    def spoke_over(self, history: ChatContext) -> bool:
        """Whether the caller's latest words, new since the question was asked, began
        before it was heard: an interruption, talk over it, or words said just before it.
        Such words are never an answer. `history` is the one the model is about to see,
        which holds the caller's newest words before the agent's own history does."""
        messages = caller_messages(history)[self._earlier_messages :]
        if not messages or self._speech is None:
            return False
        finished_at = self._finished_at
        timeline = self._timeline()
        return finished_at is None or (
            _began_speaking_at(messages[-1], timeline)
            < finished_at - timeline.seconds(ANSWER_OVERLAP_S)
        )

    def _timeline(self) -> CallerTimeline:
        return CallerTimeline.of(self._agent.session)

    def _note_finished(self, speech: SpeechHandle) -> None:
        if speech is not self._speech:
            return
        self._ended = True
        if speech.interrupted:
            return
        spoken = [
            item
            for item in speech.chat_items
            if isinstance(item, ChatMessage) and item.role == "assistant"
        ]
        if any(message.interrupted for message in spoken):
            return
        # When the words stopped playing, not when this callback happens to run: the
        # caller's next words may already be in the history by then.
        stopped = [message.metrics.get("stopped_speaking_at") for message in spoken]
        self._finished_at = max((at for at in stopped if at is not None), default=time.time())
