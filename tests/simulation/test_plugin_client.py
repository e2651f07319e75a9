"""Another model behind the OpenAI plugin's client (`PluginClientLLM`): the plugin sends
each request and parses the streamed answer, and only the network is a stand-in. The
rehearsal plays its calls through it, and the benchmarks measure calls through it."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx2
import pytest
from benchmarks import job_call, job_process
from benchmarks.callers import Intent, Variant, demo_caller
from benchmarks.conversation import AgentKind, run_flow
from livekit.agents import APIConnectionError, APIConnectOptions, function_tool, llm

from customer_service.simulation.plugin_client import PluginClientLLM
from support.scripted_llm import Call, Parallel, Say, ScriptedLLM

# The OpenAI SDK reads the machine's platform (`uname -p`) the first time it builds a
# request's headers in a process.
pytestmark = pytest.mark.subprocess


@function_tool()
async def lookup_order(order_id: str) -> str:
    """Looks up one of the caller's orders.

    Args:
        order_id: The order's number, as the caller said it.
    """
    return order_id


@function_tool()
async def give_up() -> str:
    """Ends the lookup without an order."""
    return ""


def _request(text: str) -> llm.ChatContext:
    chat_ctx = llm.ChatContext.empty()
    chat_ctx.add_message(role="system", content="You help callers with their orders.")
    chat_ctx.add_message(role="user", content=text)
    return chat_ctx


MODEL = "openai/gpt-4.1-mini"
"""As LLM_MODEL names it; the plugin is given the model's own name."""


async def _answer(model: PluginClientLLM, chat_ctx: llm.ChatContext) -> list[llm.ChatChunk]:
    async with model.chat(chat_ctx=chat_ctx, tools=[lookup_order, give_up]) as stream:
        return [chunk async for chunk in stream]


async def test_words_come_back_through_the_plugin_as_the_model_said_them() -> None:
    scripted = ScriptedLLM([Say("Your order W1 shipped on Monday.")])
    sent: list[httpx2.Request] = []
    model = PluginClientLLM(scripted, model=MODEL, on_request=sent.append)

    chunks = await _answer(model, _request("Where is my order W1?"))

    words = [chunk.delta.content for chunk in chunks if chunk.delta and chunk.delta.content]
    assert "".join(words) == "Your order W1 shipped on Monday."
    assert len(words) == 6  # streamed a word a chunk, as the plugin parses a live answer
    usage = [chunk.usage for chunk in chunks if chunk.usage]
    assert usage
    assert usage[0].completion_tokens == 6
    # What went on the wire is the plugin's rendering of the request: tools and messages.
    (request,) = sent
    body = json.loads(request.content)
    assert [tool["function"]["name"] for tool in body["tools"]] == ["lookup_order", "give_up"]
    assert "order_id" in body["tools"][0]["function"]["parameters"]["properties"]
    assert body["messages"][-1] == {"role": "user", "content": "Where is my order W1?"}
    assert body["stream"] is True
    assert body["model"] == "gpt-4.1-mini"
    # The scripted model saw the request as it sees one answered directly.
    (turn,) = scripted.turns
    assert turn.tool_names == {"lookup_order", "give_up"}
    assert turn.last_user_text == "Where is my order W1?"


async def test_tool_calls_come_back_with_their_arguments_several_in_one_reply() -> None:
    calls = (Call("lookup_order", {"order_id": "#W1"}), Call("give_up"))
    model = PluginClientLLM(ScriptedLLM([Parallel(calls)]), model=MODEL)

    chunks = await _answer(model, _request("Order W1, or never mind."))

    made = [call for chunk in chunks if chunk.delta for call in chunk.delta.tool_calls]
    assert [(call.name, json.loads(call.arguments)) for call in made] == [
        ("lookup_order", {"order_id": "#W1"}),
        ("give_up", {}),
    ]
    assert len({call.call_id for call in made}) == 2


async def test_each_request_is_answered_with_its_own_decision() -> None:
    scripted = ScriptedLLM([Say("First."), Call("give_up"), Say("Third.")])
    model = PluginClientLLM(scripted, model=MODEL)
    streams = [model.chat(chat_ctx=_request(f"turn {n}"), tools=[give_up]) for n in range(3)]

    # Read in reverse order: each answer is tied to its request, not to the order sent.
    answers = []
    for stream in reversed(streams):
        async with stream:
            answers.append([chunk async for chunk in stream])

    said = ["".join(c.delta.content or "" for c in chunks if c.delta) for chunks in answers]
    assert said[0] == "Third."
    assert said[2] == "First."
    assert [call.name for c in answers[1] if c.delta for call in c.delta.tool_calls] == ["give_up"]


@pytest.mark.parametrize("agent", [AgentKind.SUPERVISED, AgentKind.SINGLE])
async def test_a_flow_through_the_client_makes_the_same_requests_and_leaves_the_same_store(
    agent: AgentKind,
) -> None:
    caller = demo_caller(Intent.ADDRESS)
    direct = await run_flow(agent, caller, Intent.ADDRESS, Variant.ASKED)
    through = await run_flow(agent, caller, Intent.ADDRESS, Variant.ASKED, provider_client=True)

    assert direct.succeeded, direct.failure
    assert through.succeeded, through.failure  # the store check passed
    assert through.round_trips == direct.round_trips
    assert through.lines == direct.lines


async def test_a_job_sends_its_requests_through_the_client_unless_told_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import benchmarks.conversation as conversation

    clients: list[PluginClientLLM] = []
    sent: list[httpx2.Request] = []

    class Counted(PluginClientLLM):
        def __init__(self, answering: llm.LLM, *, model: str, **_: Any) -> None:
            super().__init__(answering, model=model, on_request=sent.append)
            clients.append(self)

    monkeypatch.setattr(conversation, "PluginClientLLM", Counted)
    database = await job_call.prepare_store(tmp_path, 1)
    for provider_client in (True, False):
        results = tmp_path / f"results-{provider_client}"
        results.mkdir()
        job = {
            "index": 0,
            "round": 0,
            "pause_s": 0.0,
            "provider_client": provider_client,
            "database": database,
            "results": str(results),
        }
        ctx = SimpleNamespace(
            job=SimpleNamespace(metadata=json.dumps(job)),
            proc=SimpleNamespace(userdata={}),
            shutdown=lambda reason: None,
        )
        await job_call.supervised_call(ctx)
        await ctx.proc.userdata[job_call.STORE_KEY].close()
        figures = json.loads((results / "call-0.json").read_text())
        assert figures["failure"] is None
        assert len(clients) == 1  # the first job's only
    assert sent  # its requests went through the plugin


def test_the_job_process_benchmark_can_compare_with_the_scripted_model_answering_directly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    driven: list[bool] = []
    commands: list[list[str]] = []

    def drive(*_: Any, provider_client: bool, **__: Any) -> dict[str, Any]:
        driven.append(provider_client)
        return {}

    def run(command: list[str], **_: Any) -> SimpleNamespace:
        commands.append(command)
        return SimpleNamespace(returncode=0, stdout="{}\n", stderr="")

    monkeypatch.setattr(job_process, "drive", drive)
    monkeypatch.setattr(job_process.subprocess, "run", run)
    for flags in ([], ["--scripted-model"]):
        job_process.main(["--kind", "this agent", "--calls", "1", *flags])
    assert driven == [True, False]
    capsys.readouterr()
    for provider_client in (True, False):
        job_process._driver(
            "this agent", 1, 0.0, startup=False, rehearsal=True, provider_client=provider_client
        )
    assert ["--scripted-model" in command for command in commands] == [False, True]


async def test_a_closed_model_sends_nothing_more() -> None:
    sent: list[httpx2.Request] = []
    model = PluginClientLLM(ScriptedLLM([Say("Hello.")] * 2), model=MODEL, on_request=sent.append)
    async with model:
        await _answer(model, _request("Hi."))
    once = APIConnectOptions(max_retry=0)
    with pytest.raises(APIConnectionError):
        async with model.chat(chat_ctx=_request("Still there?"), conn_options=once) as stream:
            [chunk async for chunk in stream]
    assert len(sent) == 1  # its client was closed with it: the second request never left
