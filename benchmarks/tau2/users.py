"""The benchmark's users: a model playing a task's `user_scenario` under τ²-bench's own
user-simulator guidelines, or, offline, a scripted caller who says the scenario's
request and answers what it is asked from what the scenario says it knows.

A user's line that holds one of τ²-bench's stop tokens ends the conversation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from livekit.agents import llm
from livekit.agents.metrics import LLMMetrics

__all__ = [
    "STOP_TOKENS",
    "ModelUser",
    "ScriptedUser",
    "Usage",
    "User",
    "is_stop",
    "scenario_text",
]

STOP = "###STOP###"
STOP_TOKENS = (STOP, "###TRANSFER###", "###OUT-OF-SCOPE###")
"""τ²-bench's user ends the conversation by saying one of these."""


def is_stop(line: str) -> bool:
    return any(token in line for token in STOP_TOKENS)


@dataclass
class Usage:
    """A model's requests and tokens over one conversation."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def count(self, metrics: LLMMetrics) -> None:
        self.requests += 1
        self.prompt_tokens += metrics.prompt_tokens
        self.completion_tokens += metrics.completion_tokens


class User(Protocol):
    """One of the benchmark's users, in one conversation."""

    usage: Usage

    async def reply(self, agent_said: str) -> str:
        """The user's next line, given what the agent last said (its greeting first)."""
        ...


def scenario_text(task: dict[str, Any]) -> str:
    """The task's `user_scenario`, every field the benchmark gives its user, labelled."""
    scenario = task["user_scenario"]
    instructions = scenario["instructions"]
    if isinstance(instructions, str):
        body = instructions
    else:
        labels = {
            "domain": "Domain",
            "reason_for_call": "Reason for call",
            "known_info": "Known info",
            "unknown_info": "Unknown info",
            "task_instructions": "Task instructions",
        }
        body = "\n".join(
            f"{label}:\n\t{instructions[key]}"
            for key, label in labels.items()
            if instructions.get(key) is not None
        )
    persona = scenario.get("persona")
    return f"Persona:\n\t{persona}\n{body}" if persona else body


class ModelUser:
    """A model playing the task's user: its instructions are the guidelines file the
    user of the runner points at (τ²-bench's `simulation_guidelines.md`, or the voice
    one), then the scenario. The agent's lines are its user turns; its own lines are
    its assistant turns."""

    def __init__(self, model: llm.LLM[Any], guidelines: Path, task: dict[str, Any]) -> None:
        self._model = model
        self.usage = Usage()
        model.on("metrics_collected", self.usage.count)
        instructions = (
            f"{guidelines.read_text(encoding='utf-8').strip()}\n\n"
            f"<scenario>\n{scenario_text(task)}\n</scenario>"
        )
        self._context = llm.ChatContext()
        self._context.add_message(role="system", content=instructions)

    async def reply(self, agent_said: str) -> str:
        self._context.add_message(role="user", content=agent_said or "(silence)")
        parts = []
        # τ²-bench's user samples at temperature 0.
        async with self._model.chat(
            chat_ctx=self._context, extra_kwargs={"temperature": 0.0}
        ) as stream:
            async for chunk in stream:
                if chunk.delta is not None and chunk.delta.content:
                    parts.append(chunk.delta.content)
        line = "".join(parts).strip()
        self._context.add_message(role="assistant", content=line)
        return line


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ZIP = re.compile(r"\b\d{5}\b")
_NAME = re.compile(r"\b(?:You are|name is|You name is)\s+([A-Z][a-z]+(?: [A-Z][a-z]+)+)")
_USER_ID_NAME = re.compile(r"\bYou are ([a-z]+)_([a-z]+)_\d+")
_ORDER = re.compile(r"#?W\d{7}")


@dataclass
class ScriptedUser:
    """A deterministic caller for runs without a model: it says the scenario's reason
    for calling in the first person, gives its email, or its name and zip code, when
    asked who it is, an order number when asked for one, its request again when asked
    which (once more), yes to any other question, and stops when offered anything else
    or when the agent repeats itself."""

    task: dict[str, Any]
    usage: Usage = field(default_factory=Usage)
    _said: list[str] = field(default_factory=list, init=False)
    _heard: list[str] = field(default_factory=list, init=False)

    async def reply(self, agent_said: str) -> str:
        heard = agent_said.lower()
        repeated = heard in self._heard
        self._heard.append(heard)
        line = next(self._lines(heard, repeated))
        self._said.append(line)
        return line

    def _lines(self, heard: str, repeated: bool) -> Iterator[str]:
        known = self.task["user_scenario"]["instructions"]
        if not self._said:
            yield _first_person(str(known["reason_for_call"]))
        if repeated or "anything else" in heard:
            yield STOP
        identity = _identity(str(known.get("known_info") or ""))
        if identity and ("email" in heard or "zip" in heard) and identity not in self._said:
            yield identity
        order = _ORDER.search(str(known["reason_for_call"]))
        if order and "order number" in heard:
            yield f"It's order {order.group()}."
        request = _first_person(str(known["reason_for_call"]))
        if "which" in heard and self._said.count(request) < 2:
            yield request
        if heard.rstrip().endswith("?"):
            yield "Yes."
        yield STOP


def _identity(known: str) -> str:
    email = _EMAIL.search(known)
    if email:
        return f"My email is {email.group()}."
    name = _NAME.search(known)
    from_id = _USER_ID_NAME.search(known)
    zip_code = _ZIP.search(known)
    if zip_code is None:
        return ""
    if name:
        return f"I'm {name.group(1)}, zip code {zip_code.group()}."
    if from_id:
        full_name = f"{from_id.group(1).title()} {from_id.group(2).title()}"
        return f"I'm {full_name}, zip code {zip_code.group()}."
    return ""


_PERSON = [
    (re.compile(r"\byou are\b", re.IGNORECASE), "I am"),
    (re.compile(r"\byou're\b", re.IGNORECASE), "I'm"),
    (re.compile(r"\byou've\b", re.IGNORECASE), "I've"),
    (re.compile(r"\byourself\b", re.IGNORECASE), "myself"),
    (re.compile(r"\byours\b", re.IGNORECASE), "mine"),
    (re.compile(r"\byour\b", re.IGNORECASE), "my"),
    (re.compile(r"\byou\b", re.IGNORECASE), "I"),
]


def _first_person(text: str) -> str:
    for pattern, replacement in _PERSON:
        text = pattern.sub(replacement, text)
    return text
