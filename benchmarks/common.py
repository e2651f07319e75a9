"""What every benchmark shares: the measuring model, statistics, tables, the machine."""

from __future__ import annotations

import functools
import gc
import json
import logging
import math
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession, APIConnectOptions, llm
from livekit.agents.llm import ChatContext, Tool
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, NotGivenOr

from customer_service.call.wording import (
    BOUND_APOLOGY,
    LLM_FAILURE_APOLOGY,
    REPEATED_CALL,
    RESULT_UNUSABLE,
    STORE_APOLOGY,
    UNEXPECTED_APOLOGY,
)
from customer_service.settings import ModelProvider, Settings
from support.scripted_llm import Decision, Say, ScriptedLLM, Turn

PROJECT_ROOT = Path(__file__).resolve().parents[1]

CHARS_PER_TOKEN = 4
TOKENIZER_NOTE = (
    "prompt tokens are approximate: characters / 4 of each request as an OpenAI chat "
    "request would carry it (messages + tool schemas as JSON); no tokenizer is installed"
)

APOLOGIES = (
    BOUND_APOLOGY,
    LLM_FAILURE_APOLOGY,
    REPEATED_CALL,
    RESULT_UNUSABLE,
    STORE_APOLOGY,
    UNEXPECTED_APOLOGY,
)
"""The call-wide apologies: a caller who hears one met an error, not a policy outcome."""


def spoken_lines(session: AgentSession[Any]) -> list[str]:
    """What the agent said, in order (any session, whatever its userdata)."""
    return [
        item.text_content or ""
        for item in session.history.items
        if isinstance(item, llm.ChatMessage) and item.role == "assistant"
    ]


def apologies_in(lines: Iterable[str]) -> list[str]:
    return [line for line in lines if any(apology in line for apology in APOLOGIES)]


def bench_settings(**overrides: Any) -> Settings:
    """The defaults with the offline model, whatever the developer's environment says."""
    return Settings.model_validate({"model_provider": ModelProvider.OFFLINE, **overrides})


@functools.cache
def process_bench_settings() -> Settings:
    """`bench_settings()` read once per process, as the server reads its own
    (`get_settings`, cached, and read before the forkserver forks any job process): a
    call's figures then hold the call's work, not the settings' parsing."""
    return bench_settings()


# --- the measuring model ---------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One LLM request: which tools it offered, its size, and the caller turn it served."""

    tool_names: frozenset[str]
    chars: int
    caller_turn: int

    @property
    def tokens(self) -> int:
        return math.ceil(self.chars / CHARS_PER_TOKEN)


def request_chars(chat_ctx: ChatContext, tools: Sequence[Tool]) -> int:
    """Characters of the request an OpenAI chat model would receive: the messages and
    the tool schemas, as JSON."""
    messages, _ = chat_ctx.to_provider_format("openai")
    schemas = llm.ToolContext(list(tools)).parse_function_tools("openai") if tools else []
    return len(json.dumps(messages, ensure_ascii=False)) + len(
        json.dumps(schemas, ensure_ascii=False)
    )


class MeasuredLLM(ScriptedLLM):
    """A zero-latency scripted model driven by one rule, which records every request.

    `measure=False` skips sizing the requests (for timing runs, where it would add
    its own cost). More than `max_requests` requests in one conversation mean the rule
    and the agent disagree: the model says so and marks itself overrun.
    """

    def __init__(
        self,
        rule: Callable[[Turn], Decision],
        *,
        measure: bool = True,
        max_requests: int = 60,
    ) -> None:
        super().__init__(then=self._bounded(rule))
        self.measure = measure
        self.max_requests = max_requests
        self.requests: list[Request] = []
        self.caller_turn = 0
        """Set by the conversation before each caller turn."""

    def _bounded(self, rule: Callable[[Turn], Decision]) -> Callable[[Turn], Decision]:
        def decide(turn: Turn) -> Decision:
            if len(self.turns) > self.max_requests:
                self.overran = True
                return Say("(the benchmark model stopped: too many requests)")
            return rule(turn)

        return decide

    @property
    def round_trips(self) -> int:
        return len(self.turns)

    @property
    def prompt_tokens(self) -> int:
        return sum(request.tokens for request in self.requests)

    def chat(
        self,
        *,
        chat_ctx: ChatContext,
        tools: list[Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: NotGivenOr[bool] = NOT_GIVEN,
        tool_choice: NotGivenOr[llm.ToolChoice] = NOT_GIVEN,
        extra_kwargs: NotGivenOr[dict[str, Any]] = NOT_GIVEN,
    ) -> llm.LLMStream:
        offered = frozenset(tool.id for tool in tools or [])
        if self.measure:
            self.requests.append(
                Request(
                    tool_names=offered,
                    chars=request_chars(chat_ctx, tools or []),
                    caller_turn=self.caller_turn,
                )
            )
        return super().chat(
            chat_ctx=chat_ctx,
            tools=tools,
            conn_options=conn_options,
            parallel_tool_calls=parallel_tool_calls,
            tool_choice=tool_choice,
            extra_kwargs=extra_kwargs,
        )


# --- statistics and tables -------------------------------------------------------------


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (p95: the value 95% of the samples are at or below)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


def ms(seconds: float) -> str:
    return "n/a" if math.isnan(seconds) else f"{seconds * 1000:.1f}"


def print_table(title: str, headers: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """A plain table: the first column left-aligned, the others right-aligned."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [len(header) for header in headers]
    for row in cells:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))

    def line(row: Sequence[str]) -> str:
        first, *rest = row
        parts = [first.ljust(widths[0])]
        parts += [cell.rjust(width) for cell, width in zip(rest, widths[1:], strict=True)]
        return "  ".join(parts).rstrip()

    print(f"\n## {title}\n")
    print(line(list(headers)))
    print("  ".join("-" * width for width in widths))
    for row in cells:
        print(line(row))
    sys.stdout.flush()


def verdict(met: bool) -> str:
    return "MET" if met else "MISSED"


# --- the machine and the process -------------------------------------------------------


def git_state() -> str:
    """The commit measured, and whether the working tree differed from it."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (no git)"
    return f"{commit}{' (working tree dirty)' if dirty else ''}"


def machine() -> str:
    return (
        f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}, git {git_state()}"
    )


def settle_heap() -> None:
    """Before a call: what a job process does before its one call (`server.prewarm`),
    collect and freeze what survived. One benchmark process plays many calls; without
    this, a full collection of what earlier calls left behind lands inside a measured
    turn, where the voice seam's speed multiplies its pause."""
    gc.collect()
    gc.freeze()


def rss_bytes() -> int:
    """Resident memory of this process now (not its peak)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        # Without /proc, the best available figure is the peak (kilobytes on Linux).
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class ErrorCounter(logging.Handler):
    """Counts the log records that mean something went wrong: any at ERROR and above
    (exceptions the framework caught and logged), and the agent's own warnings (an audit
    event not stored, a guardrail tripped), none of which a completed flow should log."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.count = 0
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < logging.ERROR and not record.name.startswith("customer_service"):
            return
        self.count += 1
        if len(self.messages) < 20:
            self.messages.append(f"{record.name}: {record.getMessage()}")


ERRORS = ErrorCounter()


def quiet_logs(verbose: bool) -> None:
    """Log lines would bury the tables: warnings and errors are shown only with
    --verbose; they are always counted (`ERRORS`)."""
    root = logging.getLogger()
    if verbose:
        logging.basicConfig(level=logging.WARNING)
    else:
        root.addHandler(logging.NullHandler())
    root.setLevel(logging.WARNING)
    root.addHandler(ERRORS)
