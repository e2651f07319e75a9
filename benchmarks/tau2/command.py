"""`python -m benchmarks.tau2 run`: its arguments, the models and users they name, and
what it prints and writes."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from functools import partial
from pathlib import Path
from typing import Any

from livekit.agents import llm

from benchmarks.tau2.agent_side import text_agent
from benchmarks.tau2.data import DEFAULT_DB, DEFAULT_SPLITS, DEFAULT_TASKS, load_json
from benchmarks.tau2.run import RunSetup, run_tasks, split_tasks
from benchmarks.tau2.trial import OpenAgent, Trial
from benchmarks.tau2.users import ModelUser, ScriptedUser, User
from customer_service.log_privacy import install_log_privacy, uninstall_log_privacy
from customer_service.pipeline import PipelineError, build_models, llm_only, other_llm
from customer_service.settings import IdentityPolicy, ModelProvider, Settings

__all__ = ["add_run_command", "run_command"]

OFFLINE_MODELS = "offline (the rules-based stand-in)"
NEEDS_KEYS = (
    "the agent model needs a provider: set LIVEKIT_URL, LIVEKIT_API_KEY and "
    "LIVEKIT_API_SECRET, or OPENAI_API_KEY (with OPENAI_BASE_URL for another "
    "OpenAI-compatible server); or run with --offline"
)


def add_run_command(commands: Any) -> None:
    run = commands.add_parser(
        "run",
        help="play the benchmark's tasks against the agent and grade them",
        description="Plays each task of the split against the agent (supervisor, "
        "specialists and policy in code, on a fresh store loaded from DB per trial) with "
        "τ²-bench's user simulation, grades each trial as τ²-bench does, and prints "
        "pass^1 … pass^k, the cost and the caller's wait.",
    )
    run.add_argument("--tasks", type=Path, default=DEFAULT_TASKS, help="τ²-bench's tasks.json")
    run.add_argument("--db", type=Path, default=DEFAULT_DB, help="its db.json")
    run.add_argument(
        "--split",
        default="base",
        help="train (for development), test (held out, for reporting) or base (all "
        "tasks, as the leaderboard scores them); default base",
    )
    run.add_argument(
        "--split-file", type=Path, help="its split_tasks.json; default: the one beside TASKS"
    )
    run.add_argument("--task-ids", nargs="+", default=[], help="only these tasks of the split")
    run.add_argument("--trials", type=int, default=1, help="trials per task (pass^k up to k)")
    run.add_argument("--agent-model", help="provider/model of the agent; default LLM_MODEL")
    run.add_argument(
        "--user-model", help="provider/model playing the user; default TAU2_USER_MODEL"
    )
    run.add_argument(
        "--user-guidelines",
        type=Path,
        help="τ²-bench's user-simulator guidelines (data/tau2/user_simulator/ in its "
        "repository: simulation_guidelines.md, or simulation_guidelines_voice.md with "
        "--voice); needed unless --offline",
    )
    run.add_argument("--concurrency", type=int, default=1, help="trials at once; default 1")
    run.add_argument("--max-turns", type=int, default=40, help="user lines before a trial fails")
    run.add_argument("--voice", action="store_true", help="over the voice path")
    run.add_argument(
        "--offline",
        action="store_true",
        help="the offline model as the agent and a scripted user: the plumbing, no keys",
    )
    run.add_argument("--out", type=Path, help="where the per-trial JSON goes")
    run.add_argument(
        "--database-url",
        help="an empty PostgreSQL database to load DB into; SQLite files when not given",
    )


def run_command(arguments: argparse.Namespace, settings: Settings) -> int:
    """Runs `run`; 2 with one line on stderr when the arguments or settings cannot work."""
    try:
        tasks = _tasks(arguments)
        setup = _setup(arguments, settings)
    except (ValueError, OSError, PipelineError) as problem:
        print(f"benchmarks.tau2 run: {problem}", file=sys.stderr)
        return 2
    # Errors only, masked as the agent's logs are: the trials' lines are the output.
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    install_log_privacy(settings, own_level=logging.ERROR)
    try:
        run = asyncio.run(
            run_tasks(
                load_json(arguments.db),
                tasks,
                setup,
                trials=arguments.trials,
                concurrency=arguments.concurrency,
                database_url=arguments.database_url,
                on_trial=_print_trial,
            )
        )
    finally:
        uninstall_log_privacy()
    print()
    print(run.summary())
    if arguments.out is not None:
        arguments.out.write_text(json.dumps(run.as_dict(), indent=1), encoding="utf-8")
        print(f"per trial: {arguments.out}")
    return 0


def _tasks(arguments: argparse.Namespace) -> list[dict[str, Any]]:
    if arguments.trials < 1 or arguments.concurrency < 1 or arguments.max_turns < 1:
        raise ValueError("--trials, --concurrency and --max-turns are at least 1")
    split_file = arguments.split_file or _beside(arguments.tasks)
    tasks = split_tasks(
        load_json(arguments.tasks), load_json(split_file), arguments.split, arguments.task_ids
    )
    if not tasks:
        raise ValueError(f"the {arguments.split} split has no tasks")
    return tasks


def _beside(tasks: Path) -> Path:
    if tasks == DEFAULT_TASKS:
        return DEFAULT_SPLITS
    for name in ("split_tasks.json", "split_tasks.json.gz"):
        if (tasks.parent / name).exists():
            return tasks.parent / name
    raise ValueError(f"no split_tasks.json beside {tasks}: name it with --split-file")


def _setup(arguments: argparse.Namespace, settings: Settings) -> RunSetup:
    # τ²-bench's policy verifies a caller by email, or by name and zip code.
    settings = settings.model_copy(update={"identity_policy": IdentityPolicy.EMAIL_OR_NAME_ZIP})
    open_agent, line = _line(arguments, settings)
    if arguments.offline:
        from customer_service.offline_llm import OfflineLLM

        return RunSetup(
            agent_model=lambda task: OfflineLLM(),
            user=ScriptedUser,
            open_agent=open_agent,
            settings=settings,
            agent_model_name=OFFLINE_MODELS,
            user_model_name="scripted (from each task's scenario)",
            split=arguments.split,
            line=line,
            max_turns=arguments.max_turns,
        )
    agent_model = arguments.agent_model or settings.llm_model
    served = llm_only(settings.model_copy(update={"llm_model": agent_model}))
    if served is None:
        raise ValueError(NEEDS_KEYS)
    settings = served
    user_model = arguments.user_model or settings.tau2_user_model
    if not user_model:
        raise ValueError("name the model playing the user: --user-model or TAU2_USER_MODEL")
    other_llm(settings, "TAU2_USER_MODEL", user_model, "plays its own user")  # checked now
    guidelines = arguments.user_guidelines
    if guidelines is None or not guidelines.is_file():
        raise ValueError(
            "--user-guidelines must name τ²-bench's user-simulator guidelines file "
            "(data/tau2/user_simulator/simulation_guidelines.md in its repository)"
        )
    return RunSetup(
        agent_model=lambda task: build_models(settings, vad=None, text_only=True).llm,
        user=lambda task: _model_user(settings, user_model, guidelines, task),
        open_agent=open_agent,
        settings=settings,
        agent_model_name=agent_model,
        user_model_name=user_model,
        split=arguments.split,
        line=line,
        max_turns=arguments.max_turns,
    )


def _model_user(settings: Settings, model: str, guidelines: Path, task: dict[str, Any]) -> User:
    user_llm: llm.LLM[Any] = other_llm(settings, "TAU2_USER_MODEL", model, "plays its own user")
    return ModelUser(user_llm, guidelines, task)


def _line(arguments: argparse.Namespace, settings: Settings) -> tuple[OpenAgent, str]:
    """How the agent answers, and its name in the summary: a text call; or a voice call
    with the timed fakes (faster than real time for the offline model, which answers at
    once), or with the STT and TTS the settings configure, in real time."""
    if not arguments.voice:
        return text_agent, "text"
    from benchmarks.tau2.voice_side import REAL_TIME, real_call_speech, voice_agent
    from customer_service.testing.voice_timing import DEFAULT_SPEED

    if arguments.offline:
        return partial(voice_agent, speed=DEFAULT_SPEED), "voice, timed fake speech"
    if settings.resolved_model_provider is ModelProvider.OFFLINE:
        return (
            partial(voice_agent, speed=REAL_TIME),
            "voice, timed fake speech (no speech-to-text or text-to-speech keys)",
        )
    real_call_speech(settings)  # a PipelineError names the keys missing, before any trial
    return partial(voice_agent, real_speech=True), (
        f"voice, {settings.stt_model} and {settings.tts_model}"
    )


def _print_trial(trial: Trial) -> None:
    assert trial.grade is not None
    verdict = "pass" if trial.grade.passed else "fail: " + "; ".join(trial.grade.reasons)
    print(f"task {trial.task_id} trial {trial.trial}: {verdict}", flush=True)
