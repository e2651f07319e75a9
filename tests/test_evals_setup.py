"""The evals' configuration, offline: what they run on, and the reason they are skipped."""

from __future__ import annotations

from typing import Any

import pytest
from livekit.agents import llm
from livekit.agents.evals import tool_use_judge
from livekit.plugins import openai

from customer_service.offline_llm import OfflineLLM
from customer_service.pipeline import PipelineError
from customer_service.pipeline.resilience import ApologizingLLM
from customer_service.settings import ModelProvider, Settings
from customer_service.testing import call_session
from support.conversation import JORDAN_SAYS
from support.evals import NO_JUDGE, NO_PROVIDER, EvalModels, eval_models, judged
from support.scripted_llm import Call, ScriptedLLM

LOCAL_SERVER = "http://127.0.0.1:8000/v1"


def configured(**values: Any) -> Settings:
    return Settings.model_validate({"model_provider": ModelProvider.AUTO, **values})


def the_openai_llm(model: llm.LLM[Any]) -> openai.LLM:
    """The plugin LLM inside the session's apology wrapper."""
    if isinstance(model, ApologizingLLM):
        model = model.inner
    assert isinstance(model, openai.LLM)
    return model


def test_without_a_provider_the_evals_are_skipped_naming_the_settings() -> None:
    assert eval_models(configured()) == NO_PROVIDER
    assert "OPENAI_API_KEY" in NO_PROVIDER
    assert "LIVEKIT_API_KEY" in NO_PROVIDER


def test_without_a_judge_the_evals_are_skipped_naming_the_setting() -> None:
    assert eval_models(configured(openai_api_key="sk-test")) == NO_JUDGE
    assert "EVAL_JUDGE_MODEL" in NO_JUDGE


def test_the_model_under_test_never_judges_itself() -> None:
    with pytest.raises(PipelineError, match="EVAL_JUDGE_MODEL must differ from LLM_MODEL"):
        eval_models(configured(openai_api_key="sk-test", eval_judge_model="openai/gpt-4.1-mini"))


def test_an_openai_compatible_server_serves_the_model_under_test_and_the_judge() -> None:
    found = eval_models(
        configured(
            openai_api_key="local",
            openai_base_url=LOCAL_SERVER,
            llm_model="openai/qwen3-8b",
            eval_judge_model="openai/llama-3.3-70b",
        )
    )
    assert isinstance(found, EvalModels)
    judge = the_openai_llm(found.judge)
    under_test = the_openai_llm(found.under_test)
    assert (judge.model, str(judge._client.base_url)) == ("llama-3.3-70b", f"{LOCAL_SERVER}/")
    assert (under_test.model, str(under_test._client.base_url)) == ("qwen3-8b", f"{LOCAL_SERVER}/")


def test_the_judge_is_served_by_livekit_inference_with_livekit_credentials() -> None:
    from livekit.agents import inference

    found = eval_models(
        configured(
            livekit_url="wss://example.livekit.cloud",
            livekit_api_key="key",
            livekit_api_secret="secret",
            eval_judge_model="openai/gpt-4.1",
        )
    )
    assert isinstance(found, EvalModels)
    assert isinstance(found.judge, inference.LLM)
    assert found.judge.model == "openai/gpt-4.1"


async def judge_a_call(verdict: str) -> None:
    """A real offline call, judged by a scripted judge that gives every judge `verdict`."""
    judge = ScriptedLLM(
        then=lambda _turn: Call("submit_verdict", {"verdict": verdict, "reasoning": "r"})
    )
    async with call_session(OfflineLLM()) as session:
        await session.run(user_input="Where is my order 100101?")
        await session.run(user_input=JORDAN_SAYS)
        await judged(session, judge, tool_use_judge())


async def test_a_call_every_judge_passes_passes() -> None:
    await judge_a_call("pass")


async def test_a_call_a_judge_fails_fails_the_eval_with_the_reasoning() -> None:
    with pytest.raises(AssertionError, match="judged as failing"):
        await judge_a_call("fail")
