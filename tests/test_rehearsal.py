"""Rehearsal calls where job processes are forked from (`customer_service.simulation.rehearsal`):
they run the paths calls take, leave nothing running, and never stop the server."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from livekit.agents import llm

from customer_service import server
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import Settings
from customer_service.simulation import rehearsal
from customer_service.simulation.rehearsal import FORKSERVER_MODULE, rehearse

EVERY_PATH = {
    "check_identity",
    "lookup_order",
    "update_address",
    "cancel_order",
    "request_consent",
}
"""A tool of each path the rehearsal is for: identity, an order read, an address change,
a cancellation and a consent."""


# The OpenAI SDK reads the machine's platform (`uname -p`) the first time a process
# sends a request through the plugin's client, as the rehearsal does.
@pytest.mark.subprocess
def test_a_rehearsal_runs_every_path_and_leaves_nothing_running(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[llm.ChatContext] = []
    answer = OfflineLLM.chat

    def noting_each_request(model: OfflineLLM, **request: Any) -> llm.LLMStream:
        asked.append(request["chat_ctx"])
        return answer(model, **request)

    monkeypatch.setattr(OfflineLLM, "chat", noting_each_request)
    threads = set(threading.enumerate())
    done = rehearse(settings)
    assert done.failure is None
    assert set(done.tools_called) >= EVERY_PATH
    # The offline model answered every request the plugin's client sent, and no other.
    assert asked
    assert done.requests_sent == len(asked)
    # The forkserver forks job processes from here: no thread or loop may be left.
    assert set(threading.enumerate()) == threads
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()
    assert logging.root.manager.disable == logging.NOTSET


@pytest.mark.subprocess
def test_a_model_setting_without_its_provider_does_not_stop_the_rehearsal(
    settings: Settings,
) -> None:
    # The offline model never reads LLM_MODEL, so the server runs with it as it is.
    done = rehearse(settings.model_copy(update={"llm_model": "gpt-4.1-mini"}))
    assert done.failure is None
    assert done.requests_sent > 0


def test_a_rehearsal_that_fails_says_what_kind_of_failure_and_goes_no_further(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(rehearsal, "MEMORY_STORE", "mysql://nobody@nowhere/store")
    with caplog.at_level(logging.WARNING, logger=rehearsal.__name__):
        done = rehearse(settings)
    assert done.failure == "StoreMisconfigured"
    assert done.tools_called == []
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert record.__dict__["failure"] == "StoreMisconfigured"
    assert "mysql" not in record.getMessage()  # the kind, never the exception's text
    assert logging.root.manager.disable == logging.NOTSET  # logging is back on


def test_a_thread_the_rehearsal_started_has_ended_when_it_returns(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a closed SQLite connection's driver thread does: it ends a moment after the close.
    async def play_leaving_a_thread(*_: object) -> None:
        threading.Thread(target=time.sleep, args=(0.2,), daemon=True).start()

    monkeypatch.setattr(rehearsal, "_play", play_leaving_a_thread)
    threads = set(threading.enumerate())
    assert rehearse(settings).failure is None
    assert set(threading.enumerate()) == threads


def test_a_thread_that_outlives_the_wait_is_reported(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    release = threading.Event()
    started: list[threading.Thread] = []

    async def play_leaving_a_thread(*_: object) -> None:
        started.append(threading.Thread(target=release.wait, daemon=True))
        started[0].start()

    monkeypatch.setattr(rehearsal, "_play", play_leaving_a_thread)
    monkeypatch.setattr(rehearsal, "THREAD_END_WAIT_S", 0.01)
    try:
        with caplog.at_level(logging.WARNING, logger=rehearsal.__name__):
            rehearse(settings)
    finally:
        release.set()
        started[0].join()
    (record,) = caplog.records
    assert record.getMessage() == "the rehearsal left threads running"
    assert record.__dict__["threads"] == 1


@pytest.mark.subprocess
def test_the_forkserver_rehearses_after_importing_the_agent(tmp_path: Path) -> None:
    preloads = server.PRELOADED_MODULES
    assert FORKSERVER_MODULE == "customer_service.simulation.forkserver_rehearsal"
    assert preloads.index(FORKSERVER_MODULE) > preloads.index("customer_service.server")
    # As the forkserver imports it, in a fresh interpreter of its own environment.
    environment = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "MODEL_PROVIDER": "offline"}
    check = (
        "from customer_service.simulation.forkserver_rehearsal import REHEARSAL as done; "
        "assert done.failure is None, done.failure; print(sorted(set(done.tools_called)))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", check],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env=environment,
    )
    assert completed.returncode == 0, completed.stderr
    assert all(tool in completed.stdout for tool in EVERY_PATH)
