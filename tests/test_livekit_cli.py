"""The LiveKit command lines: the server LiveKit's own tools find in src/agent.py, the help
that lists every command, the check that a LiveKit server can be reached, and the line
that says how rooms get the agent."""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer.core
import typer.main
from livekit.agents import AgentServer, JobContext
from livekit.agents.__main__ import _discover_server
from livekit.agents.cli import _legacy
from livekit.agents.cli.discover import get_import_data

import customer_service.server
from customer_service.entry import (
    MISCONFIGURED_EXIT_CODE,
    host_and_port,
    unreachable_server_problem,
)
from customer_service.log_privacy import LogPrivacyFilter, uninstall_log_privacy
from customer_service.server import AUTOMATIC_DISPATCH, announce_dispatch, dispatch_line
from customer_service.settings import IGNORE_ENV_FILES_VARIABLE, Settings
from customer_service.store_commands import STORE_COMMANDS
from support.agent_process import AGENT, child_environment

PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY")
DUMMY_CREDENTIALS = {
    "LIVEKIT_API_KEY": "APIdummy",
    "LIVEKIT_API_SECRET": "dummy-secret-0123456789abcdef0123456789",
}


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks go straight to the URL's host unless a test sets a proxy itself."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def closed_port() -> int:
    """A local port nothing listens on: bound, then released."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def listening_port() -> Iterator[int]:
    """A local port that accepts connections (the kernel's backlog does the accepting)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port: int = listener.getsockname()[1]
        yield port


def server_settings(url: str) -> Settings:
    return Settings.model_validate(
        {"livekit_url": url, "livekit_api_key": "APIdummy", "livekit_api_secret": "secret"}
    )


def agent_environment(tmp_path: Path, **variables: str) -> dict[str, str]:
    env = child_environment(tmp_path)
    for name in PROXY_VARIABLES:
        env.pop(name, None)
    env.update(variables)
    return env


# What `lk agent dev|console|start` and `python -m livekit.agents ... src/agent.py` find


@pytest.fixture
def discovered_entry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Lets the framework's discovery import src/agent.py as it does (the module `agent`,
    with src/ put first on sys.path), and undoes it afterwards."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield
    sys.modules.pop("agent", None)
    uninstall_log_privacy()


@pytest.mark.usefixtures("discovered_entry")
def test_the_frameworks_discovery_finds_the_module_level_server() -> None:
    import_data = get_import_data(path=AGENT)
    assert import_data.import_string == "agent:server"
    assert _discover_server(str(AGENT)) is customer_service.server.server


@pytest.mark.usefixtures("discovered_entry")
def test_the_discovered_entry_has_installed_log_privacy() -> None:
    _discover_server(str(AGENT))
    # The handler the framework's logging setup adds later gets the filter.
    handler = logging.NullHandler()
    logging.getLogger().addHandler(handler)
    try:
        assert any(isinstance(item, LogPrivacyFilter) for item in handler.filters)
    finally:
        logging.getLogger().removeHandler(handler)


def test_the_discovered_server_reads_the_livekit_url_from_env_local(tmp_path: Path) -> None:
    # `python -m livekit.agents start src/agent.py`, run without --url, relies on the
    # server having read LIVEKIT_URL when it was created: .env.local must be loaded first.
    (tmp_path / ".env.local").write_text("LIVEKIT_URL=ws://from-env-local.invalid:7880\n")
    env = agent_environment(tmp_path)
    env.pop(IGNORE_ENV_FILES_VARIABLE, None)
    script = (
        "import sys\n"
        "from livekit.agents.__main__ import _discover_server\n"
        "print(_discover_server(sys.argv[1])._ws_url)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(AGENT)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ws://from-env-local.invalid:7880"


# --help


def framework_commands() -> set[str]:
    group = typer.main.get_command(_legacy._build_cli(AgentServer()))
    assert isinstance(group, typer.core.TyperGroup)
    return set(group.commands)


def test_help_lists_chat_store_commands_and_every_command_of_the_frameworks_cli(
    tmp_path: Path,
) -> None:
    result = subprocess.run(
        [sys.executable, str(AGENT), "--help"],
        cwd=tmp_path,
        env=agent_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    listed = {line.split()[0] for line in result.stdout.splitlines() if line.startswith("  ")}
    assert listed == {"chat", "report"} | STORE_COMMANDS | framework_commands()
    assert "lk agent dev" in result.stdout
    assert "Warning" not in result.stderr


# A LiveKit server that cannot be reached


def test_url_host_and_port_follow_the_scheme() -> None:
    assert host_and_port("wss://acme.livekit.cloud") == ("acme.livekit.cloud", 443)
    assert host_and_port("ws://localhost:7880") == ("localhost", 7880)
    assert host_and_port("https://acme.livekit.cloud/") == ("acme.livekit.cloud", 443)
    assert host_and_port("http://127.0.0.1") == ("127.0.0.1", 80)
    assert host_and_port("localhost:7880") is None
    assert host_and_port("wss://") is None
    assert host_and_port("ws://localhost:port") is None


@pytest.mark.parametrize("command", ["dev", "start", "connect"])
def test_a_server_that_accepts_connections_passes(command: str, listening_port: int) -> None:
    settings = server_settings(f"ws://127.0.0.1:{listening_port}")
    assert unreachable_server_problem([command], settings) is None


def test_a_closed_port_is_named_with_the_variable(closed_port: int) -> None:
    url = f"ws://127.0.0.1:{closed_port}"
    assert unreachable_server_problem(["start"], server_settings(url)) == (
        f"LIVEKIT_URL={url} cannot be reached: nothing accepts connections on "
        f"127.0.0.1:{closed_port}. Check the URL and that the LiveKit server is running, or "
        "use `python src/agent.py chat` to talk to the agent offline."
    )


def test_a_host_that_does_not_resolve_is_named() -> None:
    problem = unreachable_server_problem(["dev"], server_settings("wss://nowhere.invalid"))
    assert problem is not None
    assert problem.startswith("LIVEKIT_URL=wss://nowhere.invalid cannot be reached: ")
    assert "the host name nowhere.invalid does not resolve" in problem


def test_a_url_without_a_scheme_is_refused_before_any_connection() -> None:
    problem = unreachable_server_problem(["start"], server_settings("localhost:7880"))
    assert problem is not None
    assert problem.startswith("LIVEKIT_URL=localhost:7880 is not a LiveKit server URL")


def test_the_url_option_wins_over_the_setting_and_is_named(
    closed_port: int, listening_port: int
) -> None:
    settings = server_settings(f"ws://127.0.0.1:{listening_port}")
    url = f"ws://127.0.0.1:{closed_port}"
    for argv in (["start", "--url", url], ["start", f"--url={url}"]):
        problem = unreachable_server_problem(argv, settings)
        assert problem is not None
        assert problem.startswith(f"--url={url} cannot be reached")
    assert unreachable_server_problem(["start", "--url", settings.livekit_url], settings) is None


@pytest.mark.parametrize("command", ["chat", "console", "download-files", "--help"])
def test_other_commands_do_not_reach_for_the_server(command: str) -> None:
    assert unreachable_server_problem([command], server_settings("wss://nowhere.invalid")) is None


def test_through_a_proxy_the_proxy_is_checked_without_its_password(
    monkeypatch: pytest.MonkeyPatch, closed_port: int, listening_port: int
) -> None:
    settings = server_settings("wss://nowhere.invalid")
    monkeypatch.setenv("HTTPS_PROXY", f"http://user:hunter2@127.0.0.1:{listening_port}")
    assert unreachable_server_problem(["start"], settings) is None

    monkeypatch.setenv("HTTPS_PROXY", f"http://user:hunter2@127.0.0.1:{closed_port}")
    problem = unreachable_server_problem(["start"], settings)
    assert problem is not None
    assert f"through the proxy at 127.0.0.1:{closed_port}" in problem
    assert "hunter2" not in problem


@pytest.mark.parametrize("command", ["start", "dev"])
def test_the_script_stops_with_status_2_when_the_server_port_is_closed(
    tmp_path: Path, closed_port: int, command: str
) -> None:
    url = f"ws://127.0.0.1:{closed_port}"
    result = run_script(tmp_path, command, LIVEKIT_URL=url)
    assert result.returncode == MISCONFIGURED_EXIT_CODE, result.stderr
    assert f"LIVEKIT_URL={url} cannot be reached" in result.stderr
    assert result.stdout == ""


def test_the_script_stops_with_status_2_when_the_host_does_not_resolve(tmp_path: Path) -> None:
    result = run_script(tmp_path, "start", LIVEKIT_URL="wss://agents.nowhere.invalid")
    assert result.returncode == MISCONFIGURED_EXIT_CODE, result.stderr
    assert "LIVEKIT_URL=wss://agents.nowhere.invalid cannot be reached" in result.stderr
    assert "does not resolve" in result.stderr


def run_script(tmp_path: Path, command: str, **variables: str) -> subprocess.CompletedProcess[str]:
    # The offline model needs no turn-detector files: the URL is the only thing wrong.
    env = agent_environment(tmp_path, **DUMMY_CREDENTIALS, MODEL_PROVIDER="offline", **variables)
    return subprocess.run(
        [sys.executable, str(AGENT), command],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


# Automatic or explicit dispatch, said once


def test_dispatch_line_says_which_dispatch() -> None:
    assert dispatch_line("") == AUTOMATIC_DISPATCH
    assert dispatch_line("") == (
        "automatic dispatch: every new room gets this agent (Agent Playground)"
    )
    assert dispatch_line("customer-service") == (
        "explicit dispatch as AGENT_NAME=customer-service: rooms get this agent only through "
        "a dispatch rule or API"
    )


def a_server(agent_name: str) -> AgentServer:
    server = AgentServer()

    @server.rtc_session(agent_name=agent_name)
    async def entrypoint(ctx: JobContext) -> None:
        pass

    return server


@pytest.mark.parametrize("agent_name", ["", "customer-service"])
def test_the_line_is_logged_once_when_the_server_first_registers(
    caplog: pytest.LogCaptureFixture, agent_name: str
) -> None:
    server = a_server(agent_name)
    announce_dispatch(server)
    announce_dispatch(server)  # every path that loads the entry may call it
    caplog.set_level(logging.INFO, logger="customer_service.server")
    assert caplog.messages == []
    server.emit("worker_registered", "AW_one", None)
    server.emit("worker_registered", "AW_one", None)  # a reconnection registers again
    assert caplog.messages == [dispatch_line(agent_name)]


@pytest.mark.parametrize(
    ("agent_name", "expected"),
    [
        ("", AUTOMATIC_DISPATCH),
        ("customer-service", dispatch_line("customer-service")),
    ],
)
def test_the_entry_file_announces_the_dispatch_of_agent_name(
    tmp_path: Path, agent_name: str, expected: str
) -> None:
    # A fresh process: the framework's discovery imports the entry, then the server
    # registers twice (as after a reconnection).
    script = (
        "import logging, sys\n"
        "from livekit.agents.__main__ import _discover_server\n"
        "server = _discover_server(sys.argv[1])\n"
        "logging.basicConfig(level=logging.INFO, format='%(name)s: %(message)s',"
        " stream=sys.stdout)\n"
        "server.emit('worker_registered', 'AW_one', None)\n"
        "server.emit('worker_registered', 'AW_one', None)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(AGENT)],
        cwd=tmp_path,
        env=agent_environment(tmp_path, AGENT_NAME=agent_name),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"customer_service.server: {expected}"]
