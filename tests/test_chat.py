"""`make chat`: the terminal conversation, in process and as the real command with piped input."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from customer_service.chat import converse
from customer_service.offline_llm import OfflineLLM
from customer_service.specialists.identity import VERIFICATION_LOCKED
from customer_service.testing import sqlite_url
from support.agent_process import run_agent

DEMO_INPUT = "Where is my order 100101?\nJordan Lee, 94107, jordan.lee@example.com\n"


def test_piped_chat_command_tells_the_caller_the_order_shipped(tmp_path: Path) -> None:
    result = run_agent(tmp_path, "chat", stdin=DEMO_INPUT)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Model: offline stand-in model")
    assert lines[1] == "Agent: Hello, thanks for calling. How can I help you today?"
    assert lines[2] == "Caller: Where is my order 100101?"
    assert lines[3].startswith("Agent: Before I can help with that, I need to verify")
    assert lines[4] == "Caller: Jordan Lee, 94107, jordan.lee@example.com"
    assert lines[5].startswith("Agent: Order 1 0 0, 1 0 1")
    assert (
        "has shipped with UPS, tracking number 1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" in lines[5]
    )
    # Input that runs out ends the call as Ctrl-D at the prompt does.
    assert lines[6:] == [
        "Agent: Is there anything else I can help you with?",
        "Agent: Thank you for calling. Goodbye!",
    ]
    # The default store was created under the (temporary) home directory.
    assert (tmp_path / ".local/share/customer-service-agent/store.sqlite3").is_file()


@pytest.mark.parametrize(
    ("provider", "missing"),
    [
        ("inference", "LIVEKIT_API_KEY and LIVEKIT_API_SECRET must be set"),
        ("plugins", "OPENAI_API_KEY must be set"),
    ],
)
def test_a_provider_without_its_keys_is_one_line_naming_them(
    tmp_path: Path, provider: str, missing: str
) -> None:
    result = run_agent(tmp_path, "chat", stdin=DEMO_INPUT, env={"MODEL_PROVIDER": provider})
    assert result.returncode == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(missing)
    assert f"(MODEL_PROVIDER={provider})" in line


async def chat(tmp_path: Path, text: str) -> list[str]:
    out = io.StringIO()
    status = await converse(
        OfflineLLM(),
        database_url=sqlite_url(tmp_path / "store.sqlite3"),
        lines=io.StringIO(text),
        out=out,
        echo_caller=True,
    )
    assert status == 0
    return out.getvalue().splitlines()


async def test_recent_orders_walkthrough(tmp_path: Path) -> None:
    lines = await chat(
        tmp_path,
        "I'd like to check an order\n"
        "Priya Natarajan, 10001, priya.n@example.com\n"
        "I don't know the number\n"
        "the yoga mat\n",
    )
    said = [line for line in lines if line.startswith("Agent: ")]
    assert "First, order 2 0 0, 2 0 2: three Stainless steel water bottles" in said[3]
    assert "Second, order 2 0 0, 2 0 1: a Cork yoga mat and one other item" in said[3]
    # Picked by what is in it, as a caller of `make chat` would.
    assert said[4].startswith("Agent: Order 2 0 0, 2 0 1")
    assert "was delivered on" in said[4]


async def test_lockout_walkthrough_offers_a_colleague(tmp_path: Path) -> None:
    wrong = "Jordan Lee, 90210, jordan.lee@example.com\n"
    lines = await chat(tmp_path, "Where is my order 100101?\n" + wrong * 3)
    said = [line for line in lines if line.startswith("Agent: ")]
    assert "1 attempt left" in said[-2]
    assert "can't verify your identity" in said[-1]
    assert "colleague" in said[-1]
    assert not any("1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" in line for line in lines)


async def test_the_right_details_after_a_lockout_hear_the_lockout(tmp_path: Path) -> None:
    wrong = "Jordan Lee, 90210, jordan.lee@example.com\n"
    right = "Jordan Lee, 94107, jordan.lee@example.com\n"
    lines = await chat(tmp_path, "Where is my order 100101?\n" + wrong * 3 + right)
    said = [line.removeprefix("Agent: ") for line in lines if line.startswith("Agent: ")]
    assert said[-1] == said[-2] == VERIFICATION_LOCKED


async def test_goodbye_ends_the_chat_before_input_runs_out(tmp_path: Path) -> None:
    lines = await chat(tmp_path, "bye\nthis line is never read\n")
    assert lines[-1] == "Agent: Thank you for calling. Goodbye!"
    assert "Caller: this line is never read" not in lines
