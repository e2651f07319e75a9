"""What the report page calls each thing the reports name in code, and how it colours
an outcome.

The reports and the text summary keep the code's names (`verify_identity_task`,
`llm_ttft_s`): scripts read them. The page is for an operator, so it shows the plain
name (a specialist's is its registration's), with a sentence where the name alone does
not say what is measured, and lists both side by side so either can be looked up from
the other.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from customer_service.call.registration import SpecialistRegistration


@dataclass(frozen=True)
class Name:
    label: str
    explanation: str | None = None


NAMES: dict[str, Name] = {
    # The timed steps (`turns.STEPS`), in seconds.
    "end_of_utterance_delay_s": Name(
        "End of turn",
        "From the end of the caller's speech to the agent deciding they had finished.",
    ),
    "transcription_delay_s": Name(
        "Transcription",
        "From the end of the caller's speech to the final transcript of their words.",
    ),
    "llm_ttft_s": Name(
        "Model's first token",
        "From a request to the language model to the first token (word piece) of its reply.",
    ),
    "tts_ttfb_s": Name(
        "Voice's first audio",
        "From the reply's text reaching speech synthesis to its first audio.",
    ),
    "caller_to_agent_audio_s": Name(
        "Caller's wait",
        "From the caller's last word to the agent's first sound: the pause the caller hears.",
    ),
    "tool_s": Name(
        "Tool call",
        "A lookup or change made in code (a read or write of the store), "
        "from its call to its result.",
    ),
    "specialist_s": Name(
        "Specialist run",
        "A specialist's whole sub-conversation with the caller, from its start to its result.",
    ),
    # How a call ended (`collect.Outcome`).
    "resolved": Name("Resolved", "The caller heard about their order or had a change made."),
    "transferred": Name("Transferred", "Put through to a colleague on the phone."),
    "abandoned": Name("Abandoned", "The call ended with nothing done for the caller."),
    "locked": Name("Locked", "Identity checks failed until verification locked for the call."),
    "ended_for_silence": Name("Ended for silence", "The caller stopped answering."),
    "escalated": Name("Escalated", "Handed to a colleague: the caller asked for a person."),
    # How a specialist's run ended (`DelegationOutcome`).
    "completed": Name("Completed", "It returned its result."),
    "failed": Name("Failed", "The caller gave up, or its own limit of attempts was reached."),
    "timed_out": Name("Timed out", "It ran longer than SPECIALIST_TIME_LIMIT_S."),
    "cancelled": Name("Cancelled", "The call ended while it ran."),
    "left": Name("Left", "The caller asked for something else before it finished."),
    # Usage, per model.
    "llm": Name("Language model"),
    "stt": Name("Speech to text"),
    "tts": Name("Speech synthesis"),
    "input_tokens": Name("Input tokens", "Tokens (word pieces) sent to the language model."),
    "output_tokens": Name("Output tokens", "Tokens the language model replied with."),
    "characters": Name("Characters spoken", "Characters of text sent to speech synthesis."),
    "audio_s": Name("Audio (s)", "Seconds of audio transcribed or synthesised."),
}
"""Every name the page shows, by the name the reports give it; the specialists' are
their registrations' (`specialist_names`)."""

_SUFFIXES = ("_task", "_s")


def names_of(registrations: Iterable[SpecialistRegistration]) -> dict[str, Name]:
    """Each specialist's plain name, by the id its task runs under, as its registration
    gives it (`plain_name`, `explains`)."""
    return {
        entry.task_id: Name(entry.plain_name, entry.explains)
        for entry in registrations
        if entry.plain_name is not None
    }


@functools.cache
def specialist_names() -> dict[str, Name]:
    """The registered specialists' plain names (`names_of`)."""
    from customer_service.specialists import SPECIALISTS

    return names_of(SPECIALISTS)


def name_of(name: str) -> Name:
    """The entry for `name`; a name without one still reads as words: "gift_card_task"
    is "Gift card"."""
    if name in NAMES:
        return NAMES[name]
    if name in (specialists := specialist_names()):
        return specialists[name]
    for suffix in _SUFFIXES:
        name = name.removesuffix(suffix)
    return Name(name.replace("_", " ").strip().capitalize() or "-")


def plain(name: str) -> str:
    return name_of(name).label


class Tone(enum.Enum):
    GOOD = "good"
    BAD = "bad"
    NEUTRAL = "neutral"


TONES = {
    "resolved": Tone.GOOD,
    "completed": Tone.GOOD,
    "failed": Tone.BAD,
    "timed_out": Tone.BAD,
}
"""How a reader takes an outcome; every other outcome is neutral."""

GOOD_COLOUR = "#2e7d32"
BAD_COLOUR = "#c62828"
NEUTRAL_COLOURS = ("#78909c", "#bdbdbd", "#455a64", "#9e9e9e", "#b0bec5", "#616161")
"""Greys and slates, told apart from each other but never read as good or bad."""


def tone(outcome: str) -> Tone:
    return TONES.get(outcome, Tone.NEUTRAL)


def outcome_colours(outcomes: list[str]) -> tuple[str, ...]:
    """A colour for each outcome in turn, for the series of one chart: green for good,
    red for bad, and a different neutral shade for each of the others."""
    neutral = iter(NEUTRAL_COLOURS * (1 + len(outcomes) // len(NEUTRAL_COLOURS)))
    colours = {Tone.GOOD: GOOD_COLOUR, Tone.BAD: BAD_COLOUR}
    return tuple(colours.get(tone(outcome)) or next(neutral) for outcome in outcomes)
