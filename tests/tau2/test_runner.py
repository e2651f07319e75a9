"""`python -m benchmarks.tau2 run`: trials played against the real agent on fresh stores
of the benchmark's database, graded as τ²-bench grades them, summed up as pass^k.

The gold drive is a scripted model that makes a task's gold writes through the agent's
own tools and a user who asks for them (`gold_agent`); the offline run is the offline
model against the scripted user, exactly as `make tau2 ARGS="--offline"` runs it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from benchmarks.tau2.__main__ import main
from benchmarks.tau2.agent_side import text_agent
from benchmarks.tau2.grading import Ending, grade, pass_hat_k
from benchmarks.tau2.run import RunSetup, run_tasks
from benchmarks.tau2.users import ModelUser, ScriptedUser, Usage, scenario_text

from customer_service.offline_llm import OfflineLLM
from customer_service.settings import IdentityPolicy, Settings
from support.scripted_llm import Say, ScriptedLLM, Turn

from .expected import DB, TASKS
from .gold_agent import gold_pair

TASK = {task["id"]: task for task in TASKS}
CANCELLATION = TASK["66"]
"""A train task whose one write cancels one of the caller's two pending orders."""
CANCELLED, OTHER_PENDING = "#W3361211", "#W3586556"


def gold_setup(settings: Settings, *, order_id: str | None = None) -> RunSetup:
    """The gold drive as a run: its model and its user, for one task; with `order_id`,
    every write made on that order instead."""
    pairs: dict[str, Any] = {}

    def pair(task: dict[str, Any]) -> Any:
        if task["id"] not in pairs:
            model, user = gold_pair(DB, task)
            if order_id is not None:
                for write in user.agent.writes:
                    write.supervisor_arguments["order_id"] = order_id
            pairs[task["id"]] = (model, user)
        return pairs[task["id"]]

    return RunSetup(
        agent_model=lambda task: pair(task)[0],
        user=lambda task: pair(task)[1],
        open_agent=text_agent,
        settings=settings.model_copy(update={"identity_policy": IdentityPolicy.EMAIL_OR_NAME_ZIP}),
        agent_model_name="scripted gold",
        user_model_name="scripted gold",
        split="train",
    )


async def test_a_run_making_the_tasks_gold_writes_passes(settings: Settings) -> None:
    run = await run_tasks(DB, [CANCELLATION], gold_setup(settings))

    [trial] = run.trials
    assert trial.grade is not None
    assert trial.grade.reasons == ()
    assert trial.ending is Ending.USER_STOP
    assert run.passes() == {"66": [True]}


async def test_the_same_writes_on_the_callers_other_order_fail_naming_both_orders(
    settings: Settings,
) -> None:
    run = await run_tasks(DB, [CANCELLATION], gold_setup(settings, order_id=OTHER_PENDING))

    [trial] = run.trials
    assert trial.grade is not None
    assert not trial.grade.passed
    assert not trial.grade.store_passed
    assert trial.grade.reasons == (
        f"order {CANCELLED} differs from the gold store in cancel_reason, payment_history, status",
        f"order {OTHER_PENDING} differs from the gold store in cancel_reason, "
        "payment_history, status",
    )


def records() -> dict[str, Any]:
    return copy.deepcopy({"orders": DB["orders"], "users": DB["users"]})


def test_one_wrong_record_fails_naming_the_order_and_field() -> None:
    left = records()
    left["orders"][CANCELLED]["status"] = "cancelled"

    result = grade(
        CANCELLATION, ending=Ending.USER_STOP, left=left, gold=records(), said=[], transferred=False
    )

    assert result.reasons == (f"order {CANCELLED} differs from the gold store in status",)
    assert not result.store_passed


def test_a_users_record_that_differs_is_named_without_the_users_id() -> None:
    left = records()
    user_id = DB["orders"][CANCELLED]["user_id"]
    left["users"][user_id]["address"] = {**left["users"][user_id]["address"], "zip": "00000"}

    result = grade(
        CANCELLATION, ending=Ending.USER_STOP, left=left, gold=records(), said=[], transferred=False
    )

    assert result.reasons == ("a user's record differs from the gold store in address",)
    assert user_id not in " ".join(result.reasons)


def test_a_fact_the_agent_never_said_fails_and_its_spoken_form_counts() -> None:
    task = TASK["16"]
    [fact] = task["evaluation_criteria"]["communicate_info"]
    assert fact == "8276.23"

    def graded(said: str) -> tuple[str, ...]:
        return grade(
            task,
            ending=Ending.USER_STOP,
            left=records(),
            gold=records(),
            said=["Hello.", said],
            transferred=False,
        ).reasons

    assert graded("Your orders came to a large amount.") == ("the agent never said '8276.23'",)
    assert graded("That comes to $8,276.23 in all.") == ()
    assert graded("That comes to 8,276 dollars and 23 cents in all.") == ()
    store_only = grade(
        task, ending=Ending.USER_STOP, left=records(), gold=records(), said=[], transferred=False
    )
    assert store_only.store_passed  # τ²-bench's retail reward is the store alone
    assert not store_only.passed


def test_a_tracking_number_never_said_is_named_masked() -> None:
    task = TASK["30"]
    [fact] = task["evaluation_criteria"]["communicate_info"]

    result = grade(
        task, ending=Ending.USER_STOP, left=records(), gold=records(), said=[], transferred=False
    )

    assert result.reasons == (f"the agent never said '*******{fact[-4:]}'",)
    assert fact not in " ".join(result.reasons)


def test_a_transfer_where_none_was_due_fails_and_one_that_was_due_passes() -> None:
    undue = grade(
        CANCELLATION,
        ending=Ending.TRANSFER,
        left=records(),
        gold=records(),
        said=[],
        transferred=True,
    )
    assert undue.reasons == ("the agent put the caller through to a person; the task does not",)

    due_task = TASK["10"]
    due = grade(
        due_task, ending=Ending.TRANSFER, left=records(), gold=records(), said=[], transferred=True
    )
    assert due.passed
    missed = grade(
        due_task,
        ending=Ending.USER_STOP,
        left=records(),
        gold=records(),
        said=[],
        transferred=False,
    )
    assert missed.reasons == ("the task puts the caller through to a person; the agent did not",)


def test_a_conversation_cut_off_by_the_turn_limit_fails_whatever_the_store() -> None:
    result = grade(
        CANCELLATION,
        ending=Ending.TURN_LIMIT,
        left=records(),
        gold=records(),
        said=[],
        transferred=False,
    )
    assert result.reasons == ("the conversation did not end as τ²-bench grades it (turn_limit)",)
    assert not result.store_passed


def test_pass_hat_k_on_a_fixed_table() -> None:
    table = {
        "a": [True, True, False, False],  # 2 of 4
        "b": [True, True, True, True],
        "c": [False, False, False, False],
        "d": [True, False, True, True],  # 3 of 4
    }

    found = pass_hat_k(table)

    # Per task C(c, k) / C(n, k): a 2/4, 1/6, 0, 0; b 1; c 0; d 3/4, 3/6, 1/4, 0.
    assert found == pytest.approx(
        {
            1: (0.5 + 1 + 0 + 0.75) / 4,
            2: (1 / 6 + 1 + 0 + 0.5) / 4,
            3: (0 + 1 + 0 + 0.25) / 4,
            4: (0 + 1 + 0 + 0) / 4,
        }
    )


async def test_an_agent_that_ends_the_call_ends_the_conversation_and_it_is_graded(
    settings: Settings,
) -> None:
    class LeavingUser:
        usage = Usage()

        async def reply(self, agent_said: str) -> str:
            return "No, that's all, goodbye."

    read_only = TASK["57"]
    setup = RunSetup(
        agent_model=lambda task: OfflineLLM(),
        user=lambda task: LeavingUser(),
        open_agent=text_agent,
        settings=settings,
        agent_model_name="offline",
        user_model_name="leaving",
        split="train",
    )

    run = await run_tasks(DB, [read_only], setup)

    [trial] = run.trials
    assert (trial.ending, trial.turns) == (Ending.AGENT_STOP, 1)
    assert trial.grade is not None
    assert trial.grade.passed  # nothing was to change, and nothing did


async def test_the_model_user_plays_the_scenario_under_the_guidelines_it_is_given(
    tmp_path: Path,
) -> None:
    guidelines = tmp_path / "guidelines.md"
    guidelines.write_text("Play the customer. Say ###STOP### when done.\n", encoding="utf-8")
    seen: list[Turn] = []

    def play(turn: Turn) -> Say:
        seen.append(turn)
        return Say("I'd like to cancel an order." if len(seen) == 1 else "###STOP###")

    user = ModelUser(ScriptedLLM(then=play), guidelines, CANCELLATION)

    first = await user.reply("Hello, how can I help?")
    second = await user.reply("Which order?")

    assert (first, second) == ("I'd like to cancel an order.", "###STOP###")
    system, *turns = seen[-1].chat_ctx.items
    assert system.text_content == (
        "Play the customer. Say ###STOP### when done.\n\n"
        f"<scenario>\n{scenario_text(CANCELLATION)}\n</scenario>"
    )
    reason = CANCELLATION["user_scenario"]["instructions"]["reason_for_call"]
    assert f"Reason for call:\n\t{reason}" in scenario_text(CANCELLATION)
    # The agent's lines are the model's user turns; its own lines, its assistant turns.
    assert [(item.role, item.text_content) for item in turns] == [
        ("user", "Hello, how can I help?"),
        ("assistant", "I'd like to cancel an order."),
        ("user", "Which order?"),
    ]
    assert user.usage.requests == 2


async def test_the_scripted_user_gives_what_its_scenario_knows_when_asked() -> None:
    user = ScriptedUser(TASK["0"])

    request = await user.reply("Hello, thanks for calling. How can I help you today?")
    identity = await user.reply("Please tell me your email, or your full name and zip code.")
    again = await user.reply("Please tell me your email, or your full name and zip code.")

    assert request.startswith("I received my order #W2378156 and wish to exchange")
    assert identity == "I'm Yusuf Rossi, zip code 19122."
    assert again == "###STOP###"  # the agent repeating itself ends the conversation


def test_the_offline_run_plays_the_split_end_to_end_and_says_what_it_completes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.json"

    status = main(
        ["run", "--offline", "--split", "train", "--task-ids", "0", "10", "57", "--out", str(out)]
    )

    assert status == 0
    printed = capsys.readouterr().out
    result = json.loads(out.read_text(encoding="utf-8"))
    by_task = {trial["task_id"]: trial for trial in result["trials"]}
    assert by_task["57"]["passed"], by_task["57"]["reasons"]
    # Task 10's caller ends by asking for a person, as its gold actions do.
    assert (by_task["10"]["passed"], by_task["10"]["ending"]) == (True, "transfer")
    assert by_task["0"]["reasons"][0].startswith("order #W2378156 differs from the gold store")
    assert result["pass_hat_k"] == {"1": pytest.approx(2 / 3)}
    assert result["agent_model"].startswith("offline")
    assert all(trial["turns"] > 0 and trial["waits_s"] for trial in result["trials"])
    assert "task 57 trial 1: pass" in printed
    assert "pass^1" in printed
    assert "train split, 3 tasks, 1 trial, text" in printed


@pytest.mark.parametrize(
    ("arguments", "environment", "said"),
    [
        ([], {}, "the agent model needs a provider"),
        (["--user-model", "openai/gpt-4.1-mini"], {"OPENAI_API_KEY": "k"}, "must differ"),
        (["--user-model", "openai/gpt-4.1"], {"OPENAI_API_KEY": "k"}, "--user-guidelines"),
        ([], {"OPENAI_API_KEY": "k"}, "--user-model or TAU2_USER_MODEL"),
        (["--offline", "--split", "dev"], {}, "no split 'dev'"),
        (["--offline", "--split", "test", "--task-ids", "0"], {}, "not in the test split: 0"),
        (["--offline", "--trials", "0"], {}, "at least 1"),
        (
            ["--voice", "--user-model", "openai/gpt-4.1"],
            {"OPENAI_API_KEY": "k", "MODEL_PROVIDER": "plugins"},
            "DEEPGRAM_API_KEY",
        ),
    ],
)
def test_a_run_that_cannot_work_says_why_in_one_line(
    arguments: list[str],
    environment: dict[str, str],
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)

    status = main(["run", *arguments])

    error = capsys.readouterr().err
    assert status == 2
    assert said in error
    assert error.count("\n") == 1


@pytest.mark.voice
def test_the_offline_run_over_the_voice_path_is_graded_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.json"

    arguments = ["--offline", "--voice", "--split", "train", "--task-ids", "57", "66"]
    status = main(["run", *arguments, "--out", str(out)])

    assert status == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    by_task = {trial["task_id"]: trial for trial in result["trials"]}
    assert by_task["57"]["passed"], by_task["57"]["reasons"]
    assert by_task["66"]["reasons"][0].startswith(f"order {CANCELLED} differs")
    assert result["line"] == "voice, timed fake speech"
    # Waits over the voice path are the caller's: at least the silence that ends a turn.
    assert all(wait >= 0.5 for trial in result["trials"] for wait in trial["waits_s"])
    assert "1 trial, voice, timed fake speech" in capsys.readouterr().out
