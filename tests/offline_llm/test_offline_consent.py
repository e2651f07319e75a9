"""The consent specialist: a clear yes or no is recorded; anything else hears the question
again, in the same words."""

from __future__ import annotations

import pytest

from customer_service.specialists.consent import CONSENT_WORDING, ConsentTopic
from support.offline_chat import CONSENT, agent, answer, called, said, user

SMS_QUESTION = CONSENT_WORDING[ConsentTopic.ORDER_UPDATES_SMS].question
RECORDING_QUESTION = CONSENT_WORDING[ConsentTopic.CALL_RECORDING].question


@pytest.mark.parametrize(
    ("line", "granted"),
    [
        ("yes", True),
        ("Yes, that's fine", True),
        ("sure, no problem", True),
        ("no", False),
        ("no thanks", False),
        ("I do not agree", False),
        ("please don't", False),
        ("don't record me", False),
        ("yes, go ahead", True),
    ],
)
async def test_consent_clear_answers(line: str, granted: bool) -> None:
    assert called(await answer(CONSENT, user(line))) == ("record_consent", {"granted": granted})
    asked = agent(RECORDING_QUESTION)
    assert called(await answer(CONSENT, asked, user(line))) == (
        "record_consent",
        {"granted": granted},
    )


@pytest.mark.parametrize("line", ["maybe", "I'm not sure", "yes, no, hmm", "what's it for?"])
async def test_consent_unclear_answers(line: str) -> None:
    # Without the question in view, the model can only ask for a clear answer.
    assert said(await answer(CONSENT, user(line))) == "Sorry, I need a clear yes or no."


@pytest.mark.parametrize(
    "line", ["maybe", "what does that cost?", "I don't know", "stop texting me", "hmm"]
)
@pytest.mark.parametrize("question", [SMS_QUESTION, RECORDING_QUESTION])
async def test_unclear_answer_hears_the_same_question_again(line: str, question: str) -> None:
    assert said(await answer(CONSENT, agent(question), user(line))) == question


@pytest.mark.parametrize("line", ["okay", "Okay, thanks.", "great, thank you", "alright"])
async def test_an_acknowledgement_is_no_answer(line: str) -> None:
    assert said(await answer(CONSENT, agent(SMS_QUESTION), user(line))) == SMS_QUESTION


@pytest.mark.parametrize(("line", "granted"), [("okay, yes", True), ("thanks, but no", False)])
async def test_an_answer_with_an_acknowledgement_is_read_without_it(
    line: str, granted: bool
) -> None:
    assert called(await answer(CONSENT, agent(SMS_QUESTION), user(line))) == (
        "record_consent",
        {"granted": granted},
    )


async def test_a_second_unclear_answer_still_hears_the_question() -> None:
    # Ending the task after two unclear answers is the task's own code, not the model's.
    items = [agent(SMS_QUESTION), user("maybe"), agent(SMS_QUESTION), user("perhaps")]
    assert said(await answer(CONSENT, *items)) == SMS_QUESTION
    assert called(await answer(CONSENT, *items[:3], user("yes"))) == (
        "record_consent",
        {"granted": True},
    )


async def test_before_the_caller_answers_the_question_is_the_prompt() -> None:
    assert said(await answer(CONSENT, agent(SMS_QUESTION))) == SMS_QUESTION


@pytest.mark.parametrize("line", ["skip it", "never mind", "let's move on"])
async def test_moving_on_gives_up(line: str) -> None:
    assert called(await answer(CONSENT, agent(SMS_QUESTION), user(line))) == ("give_up", {})
