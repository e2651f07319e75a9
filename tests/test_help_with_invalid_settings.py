"""Help works whatever the settings say; a setting out of its range stops the commands that
run, in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from customer_service.entry import MISCONFIGURED_EXIT_CODE
from support.agent_process import run_agent

OUT_OF_RANGE = {"IDENTITY_ACCOUNT_WINDOW_H": "inf"}


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["--help"], "Usage: python src/agent.py COMMAND"),
        ([], "Usage: python src/agent.py COMMAND"),
        (["chat", "--help"], "usage: agent.py chat"),
        (["migrate", "-h"], "usage: agent.py migrate"),
        (["report", "--help"], "usage: agent.py report"),
        (["download-files", "--help"], "usage: agent.py download-files"),
        (["dev", "--help"], "Usage: agent.py dev"),
    ],
)
def test_help_works_with_a_setting_out_of_range(
    tmp_path: Path, argv: list[str], usage: str
) -> None:
    result = run_agent(tmp_path, *argv, env=OUT_OF_RANGE)
    assert result.returncode == 0, result.stderr
    assert usage in result.stdout
    assert "IDENTITY_ACCOUNT_WINDOW_H" not in result.stdout + result.stderr


@pytest.mark.parametrize("argv", [["chat"], ["migrate"], ["dev"]])
def test_a_command_that_runs_names_the_setting_out_of_range(
    tmp_path: Path, argv: list[str]
) -> None:
    result = run_agent(tmp_path, *argv, stdin="", env=OUT_OF_RANGE)
    assert result.returncode == MISCONFIGURED_EXIT_CODE
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("IDENTITY_ACCOUNT_WINDOW_H=inf is not allowed: ")
