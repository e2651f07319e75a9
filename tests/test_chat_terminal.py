"""`make chat` at a terminal, as a person uses it: Ctrl-C and Ctrl-D end the chat at
once, cleanly, with the prompt's line ended."""

from __future__ import annotations

import json
from pathlib import Path

from customer_service.terminal_input import INTERRUPTED_EXIT_CODE
from support.terminal import AgentAtTerminal

CTRL_C = b"\x03"
CTRL_D = b"\x04"


def started_chat(tmp_path: Path, env: dict[str, str] | None = None) -> AgentAtTerminal:
    terminal = AgentAtTerminal(tmp_path, "chat", env=env)
    terminal.wait_for("Agent: Hello, thanks for calling. How can I help you today?")
    terminal.wait_for("Caller: ")
    return terminal


def test_ctrl_c_at_the_prompt_ends_the_chat_at_once(tmp_path: Path) -> None:
    terminal = started_chat(tmp_path)
    terminal.press(CTRL_C)
    # No Enter is pressed: the chat ends on the key alone, as a command Ctrl-C ended.
    assert terminal.wait_for_exit() == INTERRUPTED_EXIT_CODE
    assert "Traceback" not in terminal.screen
    assert terminal.screen.endswith("Caller: ^C\r\n")


def test_a_second_ctrl_c_adds_nothing(tmp_path: Path) -> None:
    terminal = started_chat(tmp_path)
    terminal.press(CTRL_C + CTRL_C)
    assert terminal.wait_for_exit() == INTERRUPTED_EXIT_CODE
    assert "Traceback" not in terminal.screen
    assert "KeyboardInterrupt" not in terminal.screen
    # Both keys are echoed where the kernel handles them, before or after the chat's
    # line ending: the chat ends the prompt's line once and writes nothing else.
    after_prompt = terminal.screen.rpartition("Caller: ")[2]
    assert after_prompt.count("^C") == 2, after_prompt
    assert after_prompt.replace("^C", "") == "\r\n", after_prompt


def test_ctrl_c_during_the_agents_turn_ends_the_chat(tmp_path: Path) -> None:
    terminal = started_chat(tmp_path)
    terminal.press(b"Where is my order 100101?\r")
    terminal.wait_for("Agent: Before I can help with that")
    terminal.press(CTRL_C)
    assert terminal.wait_for_exit() == INTERRUPTED_EXIT_CODE
    assert "Traceback" not in terminal.screen


def test_ctrl_c_leaves_the_calls_report_as_quit_does(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    terminal = started_chat(tmp_path, env={"REPORT_DIR": str(reports)})
    terminal.press(b"Where is my order 100101?\r")
    terminal.wait_for("Agent: Before I can help with that")
    terminal.wait_for("Caller: ")
    terminal.press(CTRL_C)
    assert terminal.wait_for_exit() == INTERRUPTED_EXIT_CODE
    assert "Traceback" not in terminal.screen
    [report] = reports.glob("*.json")
    content = json.loads(report.read_text())
    # The call as far as it went: the caller's turn, and the identity check it started.
    assert content["user_turns"] == 1
    assert [run["specialist"] for run in content["specialists"]] == ["verify_identity_task"]


def test_ctrl_d_says_goodbye_on_a_line_of_its_own(tmp_path: Path) -> None:
    terminal = started_chat(tmp_path)
    terminal.press(CTRL_D)
    assert terminal.wait_for_exit() == 0
    assert terminal.screen.endswith("Caller: \r\nAgent: Thank you for calling. Goodbye!\r\n")


def test_the_prompt_is_the_callers_as_in_the_readme(tmp_path: Path) -> None:
    terminal = started_chat(tmp_path)
    terminal.press(b"Where is my order 100101?\r")
    terminal.wait_for("Agent: Before I can help with that")
    assert "Caller: Where is my order 100101?\r\n" in terminal.screen
    terminal.press(b"/quit\r")
    assert terminal.wait_for_exit() == 0
