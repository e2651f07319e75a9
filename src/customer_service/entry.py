"""Checks `python src/agent.py <command>` makes before the LiveKit framework starts.

Without them, `dev` with no LIVEKIT_URL logs `ws_url is required` and exits with status 0,
`start` with an unreachable LIVEKIT_URL retries for minutes and then exits with status 0
too, and a missing turn-detector model only shows when the first call fails. The store's
commands are in `store_commands.py`.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Sequence
from urllib.parse import urlsplit

import huggingface_hub.constants

from customer_service.console_requirements import console_problem
from customer_service.pipeline import DOWNLOAD_FILES_COMMAND, turn_detector_files_problem
from customer_service.settings import Settings

logger = logging.getLogger(__name__)

SERVER_COMMANDS = frozenset({"dev", "start", "connect"})
"""Commands that register with a LiveKit server and need its URL and credentials."""

VOICE_COMMANDS = SERVER_COMMANDS | {"console"}
"""Commands that build the voice pipeline, turn detector included."""

CREDENTIAL_OPTIONS = {
    "--url": "LIVEKIT_URL",
    "--api-key": "LIVEKIT_API_KEY",
    "--api-secret": "LIVEKIT_API_SECRET",
}
"""Command-line options of `dev`/`start`/`connect` that stand in for the variables."""

MISCONFIGURED_EXIT_CODE = 2

DOWNLOAD_FAILED_EXIT_CODE = 1
"""`download-files`'s status when a download fails, as the framework's downloader's."""


def command_of(argv: Sequence[str]) -> str | None:
    """The sub-command in `argv` (the arguments after the script name), if any."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def missing_server_settings(argv: Sequence[str], settings: Settings) -> list[str]:
    """The LiveKit variables a server command needs that neither the settings nor its
    command-line options provide; empty for every other command."""
    if command_of(argv) not in SERVER_COMMANDS:
        return []
    given = {
        CREDENTIAL_OPTIONS[option]
        for arg in argv
        for option in CREDENTIAL_OPTIONS
        if arg == option or arg.startswith(f"{option}=")
    }
    return [name for name in settings.missing_server_settings() if name not in given]


def missing_settings_message(missing: Sequence[str]) -> str:
    names = ", ".join(missing)
    verb = "is" if len(missing) == 1 else "are"
    return (
        f"{names} {verb} not set. Set them in the environment or in .env.local "
        "(see .env.example), or use `python src/agent.py chat` to talk to the agent offline."
    )


def preflight(argv: Sequence[str], settings: Settings) -> str | None:
    """What stops `argv` from working with `settings`, as a message for the user, or None."""
    missing = missing_server_settings(argv, settings)
    if missing:
        return missing_settings_message(missing)
    if command_of(argv) in VOICE_COMMANDS and (
        files := turn_detector_files_problem(settings.turn_detection)
    ):
        return files
    if command_of(argv) == "console":
        return console_problem(argv, settings)
    return None


# Reaching the LiveKit server

REACHABILITY_TIMEOUT_S = 5.0
"""How long a server command waits for LiveKit's host to accept a connection."""

DEFAULT_PORTS = {"ws": 80, "http": 80, "wss": 443, "https": 443}
"""The schemes a LiveKit URL may have (the framework turns http(s) into ws(s)), with the
port each implies."""


def option_value(argv: Sequence[str], option: str) -> str | None:
    """The value of `option` in `argv` (`--url X` or `--url=X`, the last one winning)."""
    value = None
    for position, arg in enumerate(argv):
        if arg == option and position + 1 < len(argv):
            value = argv[position + 1]
        elif arg.startswith(f"{option}="):
            value = arg.partition("=")[2]
    return value


def server_url(argv: Sequence[str], settings: Settings) -> tuple[str, str]:
    """The LiveKit URL a server command uses, and where it comes from (for messages)."""
    given = option_value(argv, "--url")
    if given is not None:
        return given, "--url"
    return settings.livekit_url, "LIVEKIT_URL"


def host_and_port(url: str) -> tuple[str, int] | None:
    """Where a connection to `url` goes: its host, and its port or the scheme's. None when
    `url` is not a ws://, wss://, http:// or https:// URL with a host."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:  # not a number, or out of range
        return None
    return parts.hostname, DEFAULT_PORTS[scheme] if port is None else port


def connection_failure(host: str, port: int, timeout: float) -> str | None:
    """Why no TCP connection to `host`:`port` opens within `timeout` seconds, name
    resolution included, in a few words; None when one does (it is closed at once)."""
    outcome: list[OSError | None] = []

    def connect() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                outcome.append(None)
        except OSError as error:
            outcome.append(error)

    # Name resolution has no timeout of its own: it runs in a daemon thread, which is left
    # behind when it takes too long (the process is about to exit then).
    attempt = threading.Thread(target=connect, name="livekit-url-check", daemon=True)
    attempt.start()
    attempt.join(timeout)
    if not outcome:
        return f"no answer from {host}:{port} within {timeout:g} s"
    error = outcome[0]
    if error is None:
        return None
    if isinstance(error, socket.gaierror):
        return f"the host name {host} does not resolve"
    if isinstance(error, ConnectionRefusedError):
        return f"nothing accepts connections on {host}:{port}"
    if isinstance(error, TimeoutError):
        return f"no answer from {host}:{port} within {timeout:g} s"
    return f"{host}:{port}: {error.strerror or error}"


def unreachable_server_problem(
    argv: Sequence[str], settings: Settings, *, timeout: float = REACHABILITY_TIMEOUT_S
) -> str | None:
    """Why the LiveKit server of a server command (`dev`, `start`, `connect`) cannot be
    reached, as a one-line message for the user, or None (also for every other command).

    Left alone, the framework retries for about two minutes and then exits with status 0.
    This opens one TCP connection the way the framework's would go (`request_failure`). A
    server that answers but refuses the credentials is the framework's to report.
    """
    if command_of(argv) not in SERVER_COMMANDS:
        return None
    url, source = server_url(argv, settings)
    if not url:
        return None  # missing_server_settings names it
    target = host_and_port(url)
    if target is None:
        return (
            f"{source}={url} is not a LiveKit server URL: it starts with wss:// "
            "(LiveKit Cloud: wss://<project>.livekit.cloud) or ws:// (a local server: "
            "ws://localhost:7880)."
        )
    failure = request_failure(*target, timeout)
    if failure is None:
        return None
    return (
        f"{source}={url} cannot be reached{failure}. Check the URL and that the LiveKit "
        "server is running, or use `python src/agent.py chat` to talk to the agent offline."
    )


def request_failure(host: str, port: int, timeout: float) -> str | None:
    """Why a request to `host`:`port` cannot leave this machine, as the end of a sentence
    (": the host name ... does not resolve", " through the proxy at ...: ..."), or None
    when a TCP connection opens the way it would go: to the host, or to the proxy in
    HTTPS_PROXY or HTTP_PROXY, which the framework's and the model hub's clients use when
    set. None too for a proxy this check cannot follow: the request will tell."""
    proxy = os.environ.get("HTTPS_PROXY") or os.environ.get("HTTP_PROXY")
    through = ""
    if proxy:
        proxy_target = host_and_port(proxy)
        if proxy_target is None:
            return None
        host, port = proxy_target
        # Host and port only: a proxy URL may carry a password.
        through = f" through the proxy at {host}:{port}"
    failure = connection_failure(host, port, timeout)
    return None if failure is None else f"{through}: {failure}"


# Reaching the model hub (`download-files`)


def model_hub_problem(*, timeout: float = REACHABILITY_TIMEOUT_S) -> str | None:
    """Why `download-files` cannot reach the model hub, as one line for the user, or None
    when a connection opens (or the hub client is told to stay offline, HF_HUB_OFFLINE,
    which it reports itself).

    Left alone, the framework's downloader retries every file with growing pauses: about
    a hundred lines over a hundred seconds before it gives up."""
    if huggingface_hub.constants.HF_HUB_OFFLINE:
        return None
    endpoint = huggingface_hub.constants.ENDPOINT
    target = host_and_port(endpoint)
    if target is None:
        return None  # an HF_ENDPOINT this check cannot follow: the downloader will tell
    failure = request_failure(*target, timeout)
    if failure is None:
        return None
    return (
        f"The model host {endpoint} cannot be reached{failure}, so the turn-detector model "
        f"files cannot be downloaded. Run `{DOWNLOAD_FILES_COMMAND}` again with internet "
        "access, or set TURN_DETECTION=livekit (the default), local, vad or stt, which need no "
        "download."
    )
