"""`python src/agent.py download-files` on a machine that cannot reach the model host."""

from __future__ import annotations

import logging
import runpy
import socket
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from customer_service.entry import DOWNLOAD_FAILED_EXIT_CODE
from customer_service.log_privacy import uninstall_log_privacy
from support.agent_process import AGENT
from support.pipeline_fixtures import empty_hf_cache, put_turn_detector_files

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from livekit.plugins.turn_detector.models import MODEL_REVISIONS


@pytest.fixture(autouse=True)
def hf_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty model-hub cache in place of the machine's."""
    return empty_hf_cache(monkeypatch, tmp_path)


@pytest.fixture
def agent_main() -> Iterator[Callable[[list[str]], int]]:
    """The script's `main`, loaded as `lk agent` loads the file (it installs log privacy
    on this process's root logger, taken off again after the test)."""
    yield runpy.run_path(str(AGENT), run_name="customer_service_agent_script")["main"]
    uninstall_log_privacy()


def test_an_unreachable_model_host_is_one_line_after_one_attempt(
    agent_main: Callable[[list[str]], int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The network's edge: every connection this process opens (the model hub client's
    # included, through its HTTP library) is refused, as on a machine without a network.
    attempts: list[tuple[str, int]] = []

    def refused(address: tuple[str, int], *args: object, **kwargs: object) -> socket.socket:
        attempts.append(address)
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(socket, "create_connection", refused)
    monkeypatch.delenv("HTTPS_PROXY", raising=False)
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    caplog.set_level(logging.INFO)

    assert agent_main(["download-files"]) == DOWNLOAD_FAILED_EXIT_CODE

    assert attempts == [("huggingface.co", 443)]
    output = capsys.readouterr()
    assert output.out == ""
    [line] = output.err.splitlines()
    assert line.startswith("The model host https://huggingface.co cannot be reached: ")
    assert "nothing accepts connections on huggingface.co:443" in line
    assert "TURN_DETECTION=livekit (the default)" in line
    assert [record.getMessage() for record in caplog.records] == []


def test_a_reachable_model_host_leaves_the_download_to_the_framework(
    agent_main: Callable[[list[str]], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    import livekit.agents.__main__ as livekit_agents_main

    opened: list[tuple[str, int]] = []

    def accepted(address: tuple[str, int], *args: object, **kwargs: object) -> socket.socket:
        opened.append(address)
        return socket.socket()  # closed unused by the check, as an answered one is

    received: list[list[str] | None] = []

    def fake_downloader(argv: list[str] | None = None) -> int:
        received.append(argv)
        return 7

    monkeypatch.setattr(socket, "create_connection", accepted)
    monkeypatch.delenv("HTTPS_PROXY", raising=False)
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    monkeypatch.setattr(livekit_agents_main, "main", fake_downloader)
    assert agent_main(["download-files"]) == 7
    assert opened == [("huggingface.co", 443)]
    assert received == [["download-files"]]


def test_files_already_downloaded_are_said_so_without_the_network(
    agent_main: Callable[[list[str]], int],
    hf_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    attempts: list[tuple[str, int]] = []

    def refused(address: tuple[str, int], *args: object, **kwargs: object) -> socket.socket:
        attempts.append(address)
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(socket, "create_connection", refused)
    # One model of the two is not enough: the command still goes for the other.
    put_turn_detector_files(hf_cache, MODEL_REVISIONS["en"])
    assert agent_main(["download-files"]) == DOWNLOAD_FAILED_EXIT_CODE
    assert attempts
    capsys.readouterr()

    attempts.clear()
    put_turn_detector_files(hf_cache, MODEL_REVISIONS["multilingual"])
    assert agent_main(["download-files"]) == 0
    assert attempts == []
    output = capsys.readouterr()
    assert output.out.strip() == (
        "The turn-detector model files are already downloaded; nothing to fetch."
    )
    assert output.err == ""
