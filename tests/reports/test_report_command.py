"""`python src/agent.py report DIR`: whatever the folder holds, the files that are call
reports are summarised, every other one is named with the reason it was left out, and
nothing a report says reaches the terminal as a control sequence."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from reports_folder import REPORTS, write_reports

from customer_service.reports.command import UNWRITABLE_EXIT_CODE, main
from customer_service.reports.summary import MAX_REPORT_BYTES

ESCAPES = "\x1b[2J\x1b[31m"
"""Clears a terminal and turns its text red."""


def run(
    capsys: pytest.CaptureFixture[str], directory: Path, *options: str
) -> tuple[int, str, list[str]]:
    status = main([str(directory), *options])
    captured = capsys.readouterr()
    return status, captured.out, captured.err.splitlines()


def test_files_that_cannot_be_read_as_reports_are_named_with_why_and_the_rest_summarised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_reports(tmp_path / "reports")
    broken = {**REPORTS[0], "call_id": "call-broken"}
    broken["usage"] = [{"kind": "llm", "input_tokens": "many"}]
    (directory / "call-broken.json").write_text(json.dumps(broken))
    (directory / "call-no-outcome.json").write_text(
        json.dumps({"report_version": 1, "turns": "all of them"})
    )
    (directory / "call-cut-short.json").write_text('{"report_version": 1, "outc')
    (directory / "call-binary.json").write_bytes(b"\xff\xfe\x00{")
    (directory / "folder.json").mkdir()

    status, out, err = run(capsys, directory)

    assert status == 0
    assert out.startswith("3 calls\n")
    assert err == [
        "skipped call-binary.json: not UTF-8 text",
        "skipped call-broken.json: not a call report: usage.0.provider: Field required",
        "skipped call-cut-short.json: not JSON: Unterminated string starting at: line 1 "
        "column 23 (char 22)",
        "skipped call-no-outcome.json: not a call report: outcome: Field required",
        "skipped folder.json: not a regular file",
        "skipped notes.json: not a call report: it has no report_version",
    ]


def test_a_fifo_named_like_a_report_is_skipped_without_waiting_for_a_writer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_reports(tmp_path / "reports")
    os.mkfifo(directory / "call-fifo.json")

    status, out, err = run(capsys, directory)

    assert status == 0
    assert out.startswith("3 calls\n")
    assert "skipped call-fifo.json: not a regular file" in err


def test_a_report_larger_than_the_bound_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_reports(tmp_path / "reports")
    with (directory / "call-huge.json").open("wb") as huge:
        huge.truncate(MAX_REPORT_BYTES + 1)  # sparse: no disk space used

    status, out, err = run(capsys, directory)

    assert status == 0
    assert out.startswith("3 calls\n")
    assert f"skipped call-huge.json: larger than {MAX_REPORT_BYTES} bytes" in err


def test_control_characters_in_a_report_are_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_reports(tmp_path / "reports")
    hostile = {**REPORTS[0], "call_id": "call-hostile", "outcome": f"{ESCAPES}resolved"}
    hostile["specialists"] = [
        {"specialist": f"verify\u202e{ESCAPES}", "outcome": "completed", "duration_ms": 1}
    ]
    hostile["usage"] = [{**REPORTS[0]["usage"][0], "model": f"gpt\n{ESCAPES}4"}]
    (directory / "call-hostile.json").write_text(json.dumps(hostile))
    (directory / f"x{ESCAPES}.json").write_text("[]")

    status, out, err = run(capsys, directory)

    assert status == 0
    printed = out + "\n".join(err)
    assert "\x1b" not in printed
    assert "\u202e" not in printed
    assert "\\x1b[2J\\x1b[31mresolved" in out
    assert "verify\\u202e\\x1b[2J\\x1b[31m" in out
    assert "openai/gpt\\n\\x1b[2J\\x1b[31m4" in out
    assert "skipped x\\x1b[2J\\x1b[31m.json: not a call report: it has no report_version" in err


@pytest.mark.parametrize("where", ["missing/summary.html", "."], ids=["missing folder", "folder"])
def test_a_page_that_cannot_be_written_there_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    directory = write_reports(tmp_path / "reports")
    page = tmp_path / where

    status, out, err = run(capsys, directory, "--html", str(page))

    assert status == UNWRITABLE_EXIT_CODE
    assert out.startswith("3 calls\n")
    assert len(err) == 2  # notes.json skipped, then the page
    assert err[-1].startswith(f"--html {page}: the page cannot be written there: ")


def test_a_folders_reports_are_chosen_by_when_they_ended_and_their_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_reports(tmp_path / "reports")

    status, out, _ = run(capsys, directory, "--since", "2025-03-04")
    assert (status, out.splitlines()[0]) == (0, "2 calls")  # call-1 and call-2
    status, out, _ = run(capsys, directory, "--outcome", "locked", "--outcome", "escalated")
    assert (status, out.splitlines()[0]) == (0, "1 call")  # call-3
    status, _, err = run(capsys, directory, "--since", "2025-03-06T00:00:00+00:00")
    assert (status, err[-1]) == (1, "No call report matches --since and --outcome.")


@pytest.mark.parametrize("constant", ["Infinity", "-Infinity", "NaN"])
def test_a_report_holding_a_figure_json_does_not_allow_is_skipped_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], constant: str
) -> None:
    directory = write_reports(tmp_path / "reports")
    infinite = {**REPORTS[0], "call_id": "call-infinite"}
    infinite["turns"] = [{"turn": 1, "tools": [], "llm_ttft_s": float(constant.lower())}]
    (directory / "call-infinite.json").write_text(json.dumps(infinite))
    assert constant in (directory / "call-infinite.json").read_text()

    status, out, err = run(capsys, directory, "--html", str(tmp_path / "summary.html"))

    assert status == 0
    assert out.startswith("3 calls\n")
    assert err == [
        f"skipped call-infinite.json: not JSON: {constant} is not a number JSON allows",
        "skipped notes.json: not a call report: it has no report_version",
    ]
    assert (tmp_path / "summary.html").is_file()
