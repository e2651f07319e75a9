"""`python src/agent.py`: what it checks before the framework starts, and where it hands over."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import huggingface_hub.constants
import pytest
from dotenv import dotenv_values

from customer_service.entry import (
    MISCONFIGURED_EXIT_CODE,
    command_of,
    missing_server_settings,
    missing_settings_message,
    preflight,
)
from customer_service.log_privacy import uninstall_log_privacy
from customer_service.pipeline import DOWNLOAD_FILES_COMMAND
from customer_service.settings import PROJECT_ROOT, Settings, TurnDetection, get_settings
from support.agent_process import AGENT, run_agent

LIVEKIT_VARIABLES = ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET")
DUMMY_LIVEKIT = {
    "livekit_url": "wss://example.invalid",
    "livekit_api_key": "APIdummy",
    "livekit_api_secret": "dummy-secret-0123456789abcdef0123456789",
}


def make_settings(**values: Any) -> Settings:
    return Settings.model_validate(values)


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith("LIVEKIT_") or name.lower() in Settings.model_fields:
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    yield
    # Loading the agent script installs log privacy on this process's root logger.
    uninstall_log_privacy()


# The script, as a user runs it (each run spends seconds importing the framework)


@pytest.mark.parametrize("command", ["dev", "start"])
def test_server_command_without_livekit_settings_stops_with_the_names(
    tmp_path: Path, command: str
) -> None:
    result = run_agent(tmp_path, command)
    assert result.returncode == MISCONFIGURED_EXIT_CODE, result.stderr
    assert "LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET are not set" in result.stderr
    assert "python src/agent.py chat" in result.stderr
    assert result.stdout == ""


def test_help_works_from_another_directory(tmp_path: Path) -> None:
    result = run_agent(tmp_path, "--help")
    assert result.returncode == 0, result.stderr
    for command in (
        "chat",
        "console",
        "dev",
        "start",
        "connect",
        "download-files",
        "migrate",
        "seed-demo",
        "identity-release",
    ):
        assert command in result.stdout


# The checks


def test_command_is_the_first_argument_that_is_not_an_option() -> None:
    assert command_of(["dev", "--log-level", "debug"]) == "dev"
    assert command_of(["--help"]) is None
    assert command_of([]) is None


@pytest.mark.parametrize("command", ["dev", "start", "connect"])
def test_server_commands_need_all_three_livekit_settings(command: str) -> None:
    assert missing_server_settings([command], make_settings()) == list(LIVEKIT_VARIABLES)
    assert missing_server_settings([command], make_settings(**DUMMY_LIVEKIT)) == []


@pytest.mark.parametrize(
    "command", ["chat", "console", "download-files", "migrate", "seed-demo", "--help"]
)
def test_other_commands_need_no_livekit_settings(command: str) -> None:
    assert missing_server_settings([command], make_settings()) == []


def test_both_option_spellings_are_recognised() -> None:
    argv = ["start", "--url=wss://example.invalid", "--api-key", "APIdummy"]
    assert missing_server_settings(argv, make_settings()) == ["LIVEKIT_API_SECRET"]


def test_message_names_the_variables_and_the_way_out() -> None:
    assert missing_settings_message(["LIVEKIT_URL"]) == (
        "LIVEKIT_URL is not set. Set them in the environment or in .env.local "
        "(see .env.example), or use `python src/agent.py chat` to talk to the agent offline."
    )


def test_preflight_passes_with_livekit_settings_and_no_model_files_needed() -> None:
    settings = make_settings(**DUMMY_LIVEKIT, turn_detection=TurnDetection.LOCAL)
    assert preflight(["dev"], settings) is None
    assert preflight(["start", "--log-level", "info"], settings) is None


def test_preflight_asks_for_download_files_when_the_model_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty"))
    settings = make_settings(**DUMMY_LIVEKIT, turn_detection=TurnDetection.MULTILINGUAL)
    for command in ("dev", "start", "console"):
        problem = preflight([command], settings)
        assert problem is not None
        assert DOWNLOAD_FILES_COMMAND in problem


def test_preflight_checks_model_files_for_the_offline_model_only_when_it_speaks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty"))
    # The offline model speaks with local speech in console, and its turns end by the
    # turn detector like any other's; the text chat needs none.
    offline = make_settings(turn_detection=TurnDetection.MULTILINGUAL)
    problem = preflight(["console"], offline)
    assert problem is not None
    assert DOWNLOAD_FILES_COMMAND in problem
    assert preflight(["chat"], make_settings(**DUMMY_LIVEKIT)) is None


# Where agent.py hands over


def load_agent_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("customer_service_agent_script", AGENT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_chat_hands_the_remaining_arguments_to_the_chat_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    received: list[list[str]] = []

    def fake_main(argv: list[str] | None = None) -> int:
        received.append(list(argv or []))
        return 7

    monkeypatch.setitem(sys.modules, "customer_service.chat", SimpleNamespace(main=fake_main))
    assert load_agent_script().main(["chat", "--some-option"]) == 7
    assert received == [["--some-option"]]


@pytest.mark.parametrize("argv", [[], ["--help"], ["-h"]])
def test_help_is_the_scripts_own(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    module = load_agent_script()
    assert module.main(argv) == 0
    assert capsys.readouterr().out == module.HELP


@pytest.mark.parametrize("argv", [["bogus"], ["bogus", "--help"], ["Chat"]])
def test_an_unknown_command_gets_the_scripts_command_list(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_agent_script()
    assert module.main(argv) == MISCONFIGURED_EXIT_CODE
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == f"Unknown command {argv[0]!r}.\n\n{module.HELP}"


def test_an_unknown_command_run_as_a_script_is_not_the_frameworks(tmp_path: Path) -> None:
    result = run_agent(tmp_path, "bogus")
    assert result.returncode == MISCONFIGURED_EXIT_CODE, result.stderr
    assert result.stderr.startswith("Unknown command 'bogus'.")
    assert "seed-demo" in result.stderr
    assert "No such command" not in result.stderr


def test_store_commands_run_without_livekit_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    get_settings.cache_clear()
    try:
        module = load_agent_script()
        assert module.main(["migrate"]) == 0
        assert "created the store's tables at schema revision" in capsys.readouterr().out
        assert module.main(["seed-demo"]) == 0
        assert "added 3 demo customers and 5 demo orders" in capsys.readouterr().out
    finally:
        get_settings.cache_clear()


# The configuration template the messages point to


def test_env_example_lists_every_setting_with_its_default() -> None:
    example = PROJECT_ROOT / ".env.example"
    text = example.read_text()
    values = dotenv_values(example)
    # DATABASE_URL's default depends on the home directory: shown in a comment only.
    assert "\n# DATABASE_URL=" in text
    assert {*values, "DATABASE_URL"} == {name.upper() for name in Settings.model_fields}
    # Copied as it is, the file changes nothing.
    copied = {name.lower(): value or "" for name, value in values.items()}
    assert Settings.model_validate(copied) == Settings()
