"""A folder of call reports with known figures, for the summary and its page."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def at(moment: str) -> float:
    """A report's time (seconds since the epoch) from "YYYY-MM-DD HH:MM:SS", in UTC."""
    return datetime.strptime(moment, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp()


def turn(number: int, **steps: float) -> dict[str, Any]:
    return {"turn": number, "tools": [], **steps}


def report(
    call_id: str,
    outcome: str,
    *,
    started: str,
    duration_s: float,
    turns: list[dict[str, Any]],
    specialists: list[tuple[str, str, int]],
    usage: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "report_version": 1,
        "call_id": call_id,
        "started_at": at(started),
        "ended_at": at(started) + duration_s,
        "duration_ms": duration_s * 1000,
        "outcome": outcome,
        "turns": turns,
        "specialists": [
            {"specialist": name, "outcome": result, "duration_ms": ms, "result": None}
            for name, result, ms in specialists
        ],
        "usage": usage,
    }


def llm(input_tokens: int, output_tokens: int, cost: float | None) -> dict[str, Any]:
    return {
        "kind": "llm",
        "provider": "openai",
        "model": "gpt-4.1-mini",
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cost_usd": cost,
    }


REPORTS = [
    report(
        "call-1",
        "resolved",
        started="2025-03-04 09:15:00",
        duration_s=95.5,
        turns=[
            turn(1, llm_ttft_s=0.1, end_of_utterance_delay_s=0.5),
            {**turn(2, llm_ttft_s=0.2), "tools": [{"name": "lookup_order", "duration_s": 0.7}]},
        ],
        specialists=[("verify_identity_task", "completed", 2000)],
        usage=[llm(1000, 100, 0.25)],
    ),
    report(
        "call-2",
        "resolved",
        started="2025-03-05 14:02:30",
        duration_s=190,
        turns=[turn(1, llm_ttft_s=0.3), turn(2, llm_ttft_s=0.4)],
        specialists=[
            ("verify_identity_task", "completed", 4000),
            ("address_update_task", "completed", 30000),
        ],
        usage=[llm(3000, 300, 0.5)],
    ),
    report(
        "call-3",
        "locked",
        started="2025-03-03 17:45:10",
        duration_s=42,
        turns=[turn(1, llm_ttft_s=1.0, end_of_utterance_delay_s=0.9)],
        specialists=[("verify_identity_task", "failed", 6000)],
        usage=[llm(500, 50, 0.125)],
    ),
]
REPORTS[0]["chat_history"] = [
    {"type": "message", "role": "user", "content": ["My card ends in [card number]"]},
]
REPORTS[0]["transcript_included"] = True
"""Five time-to-first-token samples (0.1 to 1.0: median 0.3, 95th percentile 1.0), four
specialist runs, three calls' usage; started on three days, the last of the files first
(call-3, 2025-03-03 17:45:10 UTC) and the second last (call-2, 2025-03-05 14:02:30 UTC);
the first with its (masked) transcript."""


def write_reports(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for content in REPORTS:
        (directory / f"{content['call_id']}.json").write_text(json.dumps(content))
    (directory / "notes.json").write_text('{"not": "a report"}')
    (directory / "README.txt").write_text("not json")
    return directory
