"""The plain names the report page gives what the reports name in code: every step,
specialist, outcome and amount has one, so a new one cannot reach the page raw."""

from __future__ import annotations

from livekit.agents.utils import misc

from customer_service.call.state import DelegationOutcome
from customer_service.reports.collect import Outcome
from customer_service.reports.names import (
    NAMES,
    Name,
    Tone,
    name_of,
    plain,
    specialist_names,
    tone,
)
from customer_service.reports.summary import USAGE_AMOUNTS
from customer_service.reports.turns import STEPS
from customer_service.specialists import SPECIALISTS


def test_every_specialist_registers_its_plain_name() -> None:
    assert [entry.name for entry in SPECIALISTS if entry.plain_name is None] == []
    specialists = specialist_names()
    for entry in SPECIALISTS:
        assert entry.task_id == misc.camel_to_snake_case(entry.task.__name__)
        assert name_of(entry.task_id) == Name(entry.plain_name or "", entry.explains)
    assert set(specialists).isdisjoint(NAMES)


def test_every_specialist_step_outcome_and_amount_has_a_plain_name() -> None:
    specialists = [entry.task_id for entry in SPECIALISTS]
    named = [
        *specialists,
        *STEPS,
        *(outcome.value for outcome in Outcome),
        *(outcome.value for outcome in DelegationOutcome),
        *USAGE_AMOUNTS,
        "llm",
        "stt",
        "tts",
    ]
    every = {**NAMES, **specialist_names()}
    assert [name for name in named if name not in every] == []
    labels = [every[name].label for name in named]
    # Two names may share a label only when they mean the same ("escalated").
    assert len(set(labels)) == len(set(named))


def test_a_name_without_an_entry_still_reads_as_words() -> None:
    assert plain("gift_card_balance_task") == "Gift card balance"
    assert plain("queue_wait_s") == "Queue wait"


def test_the_tone_of_an_outcome_is_what_the_framework_counts() -> None:
    assert tone(Outcome.RESOLVED) is Tone.GOOD
    for outcome in DelegationOutcome:
        expected = (
            Tone.BAD
            if outcome.is_failure
            else Tone.GOOD
            if outcome is DelegationOutcome.COMPLETED
            else Tone.NEUTRAL
        )
        assert tone(outcome) is expected, outcome
    assert tone(Outcome.LOCKED) is Tone.NEUTRAL
