"""The caller's side of a voice test: timed lines, and the cues they wait for.

Every duration is in script seconds: seconds of the call as a caller would live it.
`customer_service.testing.voice` plays the script on a faster clock, so a line waits on
a cue, something the agent does:

- `At(s)`: s seconds after the call was answered.
- `AgentStarts(n)`, `AgentEnds(n)`: the agent's n-th stretch of speech (1 is the
  greeting) begins to play, or stops (played out or cut off).
- `AgentSays(words)`: the caller has heard these words (spoken after the cue began).
- `AgentEndsIn(words, s)`: s seconds before the end of the speech that says `words`
  (held there until the line sounds).
- `AgentFinishes(words)`: the speech holding `words` has stopped playing (its words can
  reach the caller well before its audio ends on a busy machine: a line meant to follow
  the speech waits for its end, not for its words and a pause).
- `AgentDone()` (the default): the agent has spoken since the caller's previous line,
  has stopped, and stayed quiet for a moment, after more than a phrase that holds the
  line ("One moment, please.").
- `Immediately()`: once the caller's previous line has ended, whatever the agent does.

`delay` adds script seconds after the cue; `duration` defaults to the words at a
conversational pace. An empty `text` is a noise (a cough): heard, never transcribed.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from livekit.agents.tts import TTS

from customer_service.call.wording import FILLERS as HOLDING_PHRASES
from customer_service.testing.earpiece import AgentSpeech, FakeSpeaker
from customer_service.testing.speech_models import FakeTTS

__all__ = [
    "AgentDone",
    "AgentEnds",
    "AgentEndsIn",
    "AgentFinishes",
    "AgentSays",
    "AgentStarts",
    "At",
    "CallView",
    "Cue",
    "HangUp",
    "Immediately",
    "Line",
    "Moment",
    "Utterance",
]

CALLER_WORDS_PER_SECOND = 2.5
RESPONSE_PAUSE = 0.3
"""Script seconds the agent must stay quiet before `AgentDone` counts it as done."""


class CallView(Protocol):
    """What a cue watches: the call as the caller lives it."""

    started_at: float
    """Loop time the call was answered."""
    speaker: FakeSpeaker
    tts: TTS[Any]

    @property
    def speeches(self) -> list[AgentSpeech]: ...

    @property
    def heard(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    def real(self, script_seconds: float) -> float: ...

    def agent_quiet(self) -> bool: ...

    async def until(self, ready: Callable[[], bool], *, deadline: float | None = None) -> None:
        """Returns when `ready()`, the call is closed, or the loop time `deadline`."""


@dataclass(frozen=True, slots=True)
class Moment:
    """Where the call was when a cue began to wait."""

    speeches: int
    heard: int


class Cue(ABC):
    """When a line of the script begins (before its `delay`)."""

    @abstractmethod
    async def wait(self, call: CallView, since: Moment) -> None: ...


@dataclass(frozen=True, slots=True)
class At(Cue):
    """`seconds` after the call was answered."""

    seconds: float

    async def wait(self, call: CallView, since: Moment) -> None:
        await call.until(lambda: False, deadline=call.started_at + call.real(self.seconds))


@dataclass(frozen=True, slots=True)
class Immediately(Cue):
    """As soon as the caller's previous line has ended: with a `delay`, a pause after
    it whatever the agent does meanwhile."""

    async def wait(self, call: CallView, since: Moment) -> None:
        return None


@dataclass(frozen=True, slots=True)
class AgentStarts(Cue):
    """The agent's `number`-th stretch of speech (1 is the greeting) has begun to play."""

    number: int

    async def wait(self, call: CallView, since: Moment) -> None:
        await call.until(lambda: len(call.speeches) >= self.number)


@dataclass(frozen=True, slots=True)
class AgentEnds(Cue):
    """The agent's `number`-th stretch of speech has stopped: played out or cut off."""

    number: int

    async def wait(self, call: CallView, since: Moment) -> None:
        await call.until(
            lambda: len(call.speeches) >= self.number and call.speeches[self.number - 1].ended
        )


def holds_the_line(speech: AgentSpeech) -> bool:
    """Whether `speech` is a filler alone (`wording.FILLERS`): the answer is still to come."""
    return speech.heard.strip() in HOLDING_PHRASES


def _normalized(text: str) -> str:
    return " ".join(text.split()).casefold()


@dataclass(frozen=True, slots=True)
class AgentSays(Cue):
    """The caller has heard `words` (case and spacing aside) since the cue began."""

    words: str

    async def wait(self, call: CallView, since: Moment) -> None:
        wanted = _normalized(self.words)
        await call.until(lambda: wanted in _normalized(call.heard[since.heard :]))


def synthesised(call: CallView, speech: AgentSpeech) -> list[str]:
    """The texts `speech`'s audio was synthesised from, by the timed fakes' voice."""
    if not isinstance(call.tts, FakeTTS):
        raise TypeError("only the timed fakes' voice tells which text a speech says")
    texts = call.tts.texts
    return [texts[number - 1] for number in speech.syntheses if number <= len(texts)]


@dataclass(frozen=True, slots=True)
class AgentEndsIn(Cue):
    """`seconds` before the end of the agent's speech that says `words`: a line begun
    over its last words. The speech stops there until the line sounds, and then plays
    its last `seconds` (`FakeSpeaker.hold_before_end`): on a busy machine the script may
    run late, never the line. The speech is known by the texts its audio was made from
    (the timed fakes' voice), not by its words reaching the caller, which can come after
    its end. `words` must come earlier than `seconds` before the end."""

    words: str
    seconds: float

    async def wait(self, call: CallView, since: Moment) -> None:
        wanted = _normalized(self.words)

        def says_them(speech: AgentSpeech) -> bool:
            return any(wanted in _normalized(text) for text in synthesised(call, speech))

        call.speaker.hold_before_end(call.real(self.seconds), says_them)

        def held() -> bool:
            # It may have begun before the cue (the caller's previous line over it).
            recent = call.speeches[max(0, since.speeches - 1) :]
            return any(says_them(it) and (it.waiting_for_caller or it.ended) for it in recent)

        await call.until(held)


@dataclass(frozen=True, slots=True)
class AgentFinishes(Cue):
    """The agent's speech in which the caller has heard `words` has stopped: played out
    or cut off."""

    words: str

    async def wait(self, call: CallView, since: Moment) -> None:
        await AgentSays(self.words).wait(call, since)
        speech = call.speeches[-1]
        await call.until(lambda: speech.ended)


@dataclass(frozen=True, slots=True)
class AgentDone(Cue):
    """The agent has spoken since the cue began (after the caller's previous line), has
    stopped, and has stayed quiet for `RESPONSE_PAUSE`: its reply is over. A speech that
    only holds the line ("Thanks, let me check.") is not a reply: the caller waits on."""

    async def wait(self, call: CallView, since: Moment) -> None:
        def done() -> bool:
            spoke = len(call.speeches) > since.speeches
            return spoke and call.agent_quiet() and not holds_the_line(call.speeches[-1])

        while not call.closed:
            await call.until(done)
            pause_ends = asyncio.get_running_loop().time() + call.real(RESPONSE_PAUSE)
            await call.until(lambda: not done(), deadline=pause_ends)
            if done():
                return


@dataclass(frozen=True, slots=True)
class Utterance:
    """A line the caller says: `text` for `duration` script seconds, `delay` after `after`."""

    text: str
    after: Cue = AgentDone()
    delay: float = 0.0
    duration: float | None = None

    @property
    def seconds(self) -> float:
        if self.duration is not None:
            return self.duration
        return max(0.6, len(self.text.split()) / CALLER_WORDS_PER_SECOND)


@dataclass(frozen=True, slots=True)
class HangUp:
    """The caller hangs up, `delay` script seconds after `after`."""

    after: Cue = AgentDone()
    delay: float = 0.0


Line = Utterance | HangUp
