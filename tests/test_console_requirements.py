"""`python src/agent.py console` stops in one line when it could talk to no one, and every
command's `--help` prints its options whatever the settings."""

from __future__ import annotations

import ctypes.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from customer_service.console_requirements import (
    NO_PORTAUDIO,
    console_problem,
)
from customer_service.entry import MISCONFIGURED_EXIT_CODE
from customer_service.settings import Settings
from support.agent_process import run_agent

PROVIDER_KEYS = {
    "DEEPGRAM_API_KEY": "dummy-deepgram",
    "OPENAI_API_KEY": "dummy-openai",
    "CARTESIA_API_KEY": "dummy-cartesia",
}


def settings(**values: Any) -> Settings:
    return Settings.model_validate(values)


def without_portaudio(name: str) -> ModuleType:
    # What importing sounddevice raises where the library is missing.
    raise OSError("PortAudio library not found")


def with_portaudio(name: str) -> ModuleType:
    return ModuleType(name)


def test_without_keys_console_needs_only_portaudio() -> None:
    # The offline model with local speech: no provider key, no LiveKit credential.
    assert console_problem(["console"], settings(), import_module=with_portaudio) is None
    assert console_problem(["console"], settings(), import_module=without_portaudio) == (
        NO_PORTAUDIO
    )


def test_without_portaudio_console_says_to_install_it() -> None:
    keys = settings(**{name.lower(): value for name, value in PROVIDER_KEYS.items()})
    assert console_problem(["console"], keys, import_module=without_portaudio) == NO_PORTAUDIO
    assert "libportaudio2" in NO_PORTAUDIO
    assert console_problem(["console"], keys, import_module=with_portaudio) is None


def test_listing_devices_needs_portaudio_but_no_models() -> None:
    argv = ["console", "--list-devices"]
    assert console_problem(argv, settings(), import_module=with_portaudio) is None
    assert console_problem(argv, settings(), import_module=without_portaudio) == NO_PORTAUDIO


# The script, as a user runs it


@pytest.mark.skipif(
    ctypes.util.find_library("portaudio") is not None, reason="PortAudio is installed here"
)
@pytest.mark.parametrize("keys", [PROVIDER_KEYS, {}], ids=["provider keys", "no keys"])
def test_console_without_portaudio_stops_in_one_line(tmp_path: Path, keys: dict[str, str]) -> None:
    # The bundled turn detector: no model files to download before the audio check.
    result = run_agent(tmp_path, "console", env=keys | {"TURN_DETECTION": "local"})
    assert result.returncode == MISCONFIGURED_EXIT_CODE, result.stderr
    assert result.stderr == NO_PORTAUDIO + "\n"
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("command", "option"),
    [
        ("dev", "--log-level"),
        ("start", "--log-level"),
        ("connect", "--room"),
        ("console", "--text"),
        ("download-files", "--help"),
    ],
)
def test_a_commands_help_needs_no_settings(tmp_path: Path, command: str, option: str) -> None:
    result = run_agent(tmp_path, command, "--help")
    assert result.returncode == 0, result.stderr
    assert "sage: agent.py " + command in result.stdout
    assert option in result.stdout
    assert result.stderr == ""
