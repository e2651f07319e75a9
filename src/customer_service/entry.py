"""Checks `python src/agent.py <command>` makes before the LiveKit framework starts.

Without them, `dev` with no LIVEKIT_URL logs `ws_url is required` and exits with status 0,
`start` with an unreachable LIVEKIT_URL retries for minutes and then exits with status 0
too, and a missing turn-detector model only shows when the first call fails. The store's
commands (`migrate`, `seed-demo`, `identity-release`) live here too: they need no LiveKit
settings.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import getpass
import logging
import os
import socket
import sys
import threading
import uuid
from collections.abc import Sequence
from urllib.parse import urlsplit

from customer_service.console_requirements import console_problem
from customer_service.pipeline import turn_detector_files_problem
from customer_service.settings import ModelProvider, Settings
from customer_service.store import StoreMisconfigured, StoreUnavailable
from customer_service.store.errors import shown_url, store_problem
from customer_service.store.schema import FIRST_REVISION, Upgrade, migrate_database
from customer_service.store.shared import StoreConfig

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
    if (
        command_of(argv) in VOICE_COMMANDS
        and settings.resolved_model_provider is not ModelProvider.OFFLINE
        and (files := turn_detector_files_problem(settings.turn_detection))
    ):
        return files
    if command_of(argv) == "console":
        return console_problem(argv, settings)
    return None


# The store

RELEASE_COMMAND = "identity-release"

STORE_COMMANDS = frozenset({"migrate", "seed-demo", RELEASE_COMMAND})
"""Commands that only work on the store (DATABASE_URL)."""

STORE_COMMAND_DESCRIPTIONS = {
    "migrate": "Bring the database at DATABASE_URL to the latest schema.",
    "seed-demo": "Add the demo customers and orders (README) that the store at DATABASE_URL "
    "lacks; changes nothing that is there, and adds nothing next to other customers unless "
    "--force.",
    RELEASE_COMMAND: "Release a held account: clear the failed identity checks counted "
    "against it, so its owner can verify by phone again. The audit log keeps what was "
    "cleared and who cleared it.",
}


OPERATOR_MAX_CHARS = 64
"""The longest operator name, and login name, an `identity-release` audit event keeps."""


class UnknownCustomer(Exception):
    """`identity-release` named an account the store does not have."""


def store_startup_problem(argv: Sequence[str], settings: Settings) -> str | None:
    """Why the store cannot serve the calls of a voice command (`console`, `dev`, `start`,
    `connect`), as a one-line message for the user, or None (also for other commands).

    Opens the store as every call will (migrating and seeding only where the settings
    say), so a missing driver, an unreachable server or a database that is behind stops
    the command here instead of failing each call. `chat` opens its own store and says
    the same.
    """
    if command_of(argv) not in VOICE_COMMANDS:
        return None
    config = StoreConfig.from_settings(settings)

    async def open_and_close() -> None:
        store = await config.open()
        await store.close()

    try:
        asyncio.run(open_and_close())
    except (StoreUnavailable, StoreMisconfigured) as error:
        return store_problem(error, config.database_url)
    return None


def run_store_command(argv: list[str], settings: Settings) -> int:
    """`migrate`, `seed-demo` or `identity-release CUSTOMER_ID`: prints what it did in one
    line, or the problem on stderr and returns MISCONFIGURED_EXIT_CODE."""
    command = command_of(argv)
    parser = argparse.ArgumentParser(
        prog=f"agent.py {command}",
        description=STORE_COMMAND_DESCRIPTIONS.get(command or "", ""),
    )
    if command == "seed-demo":
        parser.add_argument(
            "--force",
            action="store_true",
            help="add them even to a database that holds other customers (their details "
            "are public: for test databases only)",
        )
    if command == RELEASE_COMMAND:
        parser.add_argument("customer_id", metavar="CUSTOMER_ID", help="for example C-1001")
        parser.add_argument(
            "--operator",
            type=operator_name,
            metavar="NAME",
            help=f"who releases it, for the audit log (1 to {OPERATOR_MAX_CHARS} printable "
            "characters); the login name is recorded beside it, and alone without it",
        )
    arguments = parser.parse_args(argv[argv.index(command) + 1 :] if command else [])
    config = StoreConfig.from_settings(settings)
    try:
        if command == "migrate":
            report = migrated(asyncio.run(migrate_database(settings.database_url)))
        elif command == RELEASE_COMMAND:
            report = asyncio.run(
                _release_identity_hold(
                    config, arguments.customer_id.strip(), released_by(arguments.operator)
                )
            )
        else:
            report = asyncio.run(_seed_demo(config, force=arguments.force))
    except (StoreUnavailable, StoreMisconfigured) as error:
        print(store_problem(error, settings.database_url), file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE
    except UnknownCustomer as error:
        print(f"{shown_url(settings.database_url)}: {error}", file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE
    print(f"{shown_url(settings.database_url)}: {report}")
    return 0


def migrated(upgrade: Upgrade) -> str:
    """What `migrate` did, for its one line."""
    if upgrade.adopted:
        then = "" if upgrade.after == FIRST_REVISION else f", then migrated to {upgrade.after}"
        return (
            f"recorded its tables from before migrations at schema revision {FIRST_REVISION}"
            f"{then} (the latest)."
        )
    if upgrade.before == upgrade.after:
        return f"already at the latest schema revision, {upgrade.after}."
    if upgrade.before is None:
        return f"created the store's tables at schema revision {upgrade.after} (the latest)."
    return f"migrated from schema revision {upgrade.before} to {upgrade.after} (the latest)."


async def _seed_demo(config: StoreConfig, *, force: bool) -> str:
    # Opened as calls open it, less their seeding (SEED_DEMO_DATA's), then seeded here.
    store = await dataclasses.replace(config, seed_demo_data=False).open()
    try:
        added = await store.seed_demo_data(force=force)
    finally:
        await store.close()
    if not added.customers and not added.orders:
        return "the demo data is already there."
    return f"added {added.customers} demo customers and {added.orders} demo orders."


async def _release_identity_hold(config: StoreConfig, customer_id: str, operator: str) -> str:
    # Opened as calls open it, less their seeding: a release never adds customers.
    store = await dataclasses.replace(config, seed_demo_data=False).open()
    try:
        release = await store.release_identity_hold(
            customer_id,
            call_id=f"{RELEASE_COMMAND}-{uuid.uuid4().hex[:12]}",
            released_by=operator,
        )
    finally:
        await store.close()
    if release is None:
        raise UnknownCustomer(f"no customer has the id {customer_id!r}; nothing was released.")
    if release.last_failed_at is None:
        return f"{customer_id} had no failed identity checks to clear; the release is recorded."
    checks = "check" if release.failures == 1 else "checks"
    return (
        f"released {customer_id}: cleared {release.failures} failed identity {checks} (the "
        f"latest at {release.last_failed_at:%Y-%m-%d %H:%M} UTC), kept in the audit log; "
        "the customer can verify by phone again."
    )


def operator_name(given: str) -> str:
    """`--operator NAME` as the audit log keeps it: its spaces collapsed, refused when it
    is empty, longer than OPERATOR_MAX_CHARS or holds a character that does not print
    (a line break or a terminal escape would forge or hide lines where it is read)."""
    name = given.strip()
    if not name.isprintable():
        name = ""
    name = " ".join(name.split())
    if not 0 < len(name) <= OPERATOR_MAX_CHARS:
        raise argparse.ArgumentTypeError(f"1 to {OPERATOR_MAX_CHARS} printable characters")
    return name


def login_name() -> str:
    """The login name the command runs under (LOGNAME, USER, ... or the password
    database), each character that does not print as '?', cut to OPERATOR_MAX_CHARS: the
    environment may hold anything."""
    try:
        login = getpass.getuser()
    except (OSError, KeyError):  # no login name and no passwd entry (some containers)
        return "unknown"
    shown = "".join(char if char.isprintable() else "?" for char in login).strip()
    return shown[:OPERATOR_MAX_CHARS] or "unknown"


def released_by(operator: str | None) -> str:
    """Who released a hold, for its audit event: the operator named and the login name,
    or the login name alone when none was named."""
    login = login_name()
    return login if operator is None else f"{operator} (login {login})"


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
    This opens one TCP connection the way the framework's would go: to the URL's host, or
    to the proxy in HTTPS_PROXY or HTTP_PROXY, which the framework uses when set. A server
    that answers but refuses the credentials is the framework's to report.
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
    through = ""
    proxy = os.environ.get("HTTPS_PROXY") or os.environ.get("HTTP_PROXY")
    if proxy:
        proxy_target = host_and_port(proxy)
        if proxy_target is None:
            return None  # a proxy this check cannot follow: the framework will tell
        target = proxy_target
        # Host and port only: a proxy URL may carry a password.
        through = f" through the proxy at {proxy_target[0]}:{proxy_target[1]}"
    failure = connection_failure(*target, timeout)
    if failure is None:
        return None
    return (
        f"{source}={url} cannot be reached{through}: {failure}. Check the URL and that the "
        "LiveKit server is running, or use `python src/agent.py chat` to talk to the agent "
        "offline."
    )
