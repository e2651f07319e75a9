"""What the evals run on: the model under test and its judge, or why they cannot run.

The model under test is `LLM_MODEL`, served as the agent serves it (LiveKit Inference
with LiveKit credentials, else the OpenAI plugin, on `OPENAI_BASE_URL` when set). The
judge is `EVAL_JUDGE_MODEL`, served the same way, and never the model under test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from livekit.agents import AgentSession, llm
from livekit.agents.evals import (
    EvaluationResult,
    Evaluator,
    JudgeGroup,
    safety_judge,
    task_completion_judge,
)

from customer_service.call.state import CallState
from customer_service.pipeline import build_models, judge_llm, llm_only
from customer_service.settings import Settings

NO_PROVIDER = (
    "no model provider configured: evals need LIVEKIT_URL, LIVEKIT_API_KEY and "
    "LIVEKIT_API_SECRET, or OPENAI_API_KEY (with OPENAI_BASE_URL for a local "
    "OpenAI-compatible server)"
)
NO_JUDGE = "EVAL_JUDGE_MODEL is not set: the evals need a judge other than LLM_MODEL"


@dataclass(frozen=True)
class EvalModels:
    settings: Settings
    under_test: llm.LLM[Any]
    judge: llm.LLM[Any]


def eval_models(settings: Settings) -> EvalModels | str:
    """The models the evals run with, or the reason they are skipped, naming the setting
    that is missing. A judge that is the model under test is a configuration error."""
    served = llm_only(settings)
    if served is None:
        return NO_PROVIDER
    if not settings.eval_judge_model:
        return NO_JUDGE
    settings = served
    return EvalModels(
        settings=settings,
        under_test=build_models(settings, vad=None, text_only=True).llm,
        judge=judge_llm(settings),
    )


async def judged(
    session: AgentSession[CallState],
    judge: llm.LLM[Any],
    *judges: Evaluator,
) -> EvaluationResult:
    """The whole call judged for task completion and safety, plus the flow's own judges;
    fails the eval when any judge fails, with every judge's reasoning."""
    group = JudgeGroup(llm=judge, judges=[task_completion_judge(), safety_judge(), *judges])
    result = await group.evaluate(session.history.copy())
    reasons = "\n".join(
        f"{name}: {judgment.verdict} - {judgment.reasoning}"
        for name, judgment in result.judgments.items()
    )
    assert len(result.judgments) == len(group.judges), f"a judge did not answer:\n{reasons}"
    assert result.none_failed, f"judged as failing:\n{reasons}"
    return result
