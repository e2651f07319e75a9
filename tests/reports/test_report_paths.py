"""`python src/agent.py report DIR` given a path that is no folder: what is wrong with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from customer_service.entry import MISCONFIGURED_EXIT_CODE
from customer_service.reports.command import NO_REPORTS_EXIT_CODE, main


def test_a_missing_folder_is_said_not_to_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "reports"
    assert main([str(missing)]) == MISCONFIGURED_EXIT_CODE
    output = capsys.readouterr()
    assert output.out == ""
    assert output.err == f"{missing}: no such folder.\n"


def test_a_file_is_said_to_be_no_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "call-1.json"
    report.write_text("{}")
    assert main([str(report)]) == MISCONFIGURED_EXIT_CODE
    output = capsys.readouterr()
    assert output.out == ""
    assert output.err == (
        f"{report} is a file, not a folder: give the folder that holds the call reports "
        f"({tmp_path}).\n"
    )


def test_an_empty_folder_still_holds_no_call_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path)]) == NO_REPORTS_EXIT_CODE
    assert "holds no call report" in capsys.readouterr().err
