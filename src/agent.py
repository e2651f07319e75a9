"""The customer-service agent's command line, and the `AgentServer` LiveKit's own tools run.

python src/agent.py chat             talk to the agent in this terminal (no server)
python src/agent.py console          speak to it through this machine's audio devices
python src/agent.py dev | start      register with a LiveKit server and take calls
python src/agent.py download-files   fetch the older turn-detector plugin's model files
python src/agent.py migrate          bring the database (DATABASE_URL) to the latest schema
python src/agent.py seed-demo        add the demo customers and orders to the database
python src/agent.py import-tau2 DB   load τ²-bench's retail database into the store
python src/agent.py identity-release CUSTOMER_ID [--operator NAME]   release a held account
python src/agent.py report DIR       summarise a folder of call reports (--html FILE: a page)
python src/agent.py report --database-url URL   the same from the store (every server's)
python src/agent.py report --prune [DAYS]       delete the store's older call reports

`lk agent dev|console|start` and `python -m livekit.agents start src/agent.py` import this
file and take the module-level `server` (the framework looks for `app`, `server` or
`agent`); they never call `main()`. So what every path needs happens at import: the
warning filters, the turn detector's registration, the settings (with `.env.local`), the
log privacy filter and the dispatch line. `main()` adds the checks before start-up.
"""

# The warning filters have to come before the imports whose warnings they match.
# ruff: noqa: E402

from __future__ import annotations

import argparse
import signal
import sys
import warnings

from customer_service.terminal_input import INTERRUPTED_EXIT_CODE


def _end_quietly(signum: int, frame: object) -> None:
    raise SystemExit(INTERRUPTED_EXIT_CODE)


if __name__ == "__main__":
    # Ctrl-C while the framework loads (seconds) ends the command without a traceback
    # of whichever import it interrupted. The commands install their own handlers later.
    signal.signal(signal.SIGINT, _end_quietly)

# Deprecations the framework announces that people running this agent can do nothing
# about, each silenced by its own message; every other warning shows as Python decides.
# - The turn-detector plugin points to its successor, `livekit.agents.inference.TurnDetector`,
#   which is the default here (TURN_DETECTION=livekit); the plugin stays importable for
#   TURN_DETECTION=multilingual or english, which a person chooses knowingly.
warnings.filterwarnings(
    "ignore",
    message=r"`livekit\.plugins\.turn_detector` is deprecated",
    category=DeprecationWarning,
)
# - `cli.run_app` ("the built-in Python CLI is deprecated"): `python src/agent.py` stays a
#   documented entry beside `lk agent`, and docs/operating.md shows both.
warnings.filterwarnings(
    "ignore", message="the built-in Python CLI is deprecated", category=DeprecationWarning
)

# The turn-detector plugin registers its inference runners when imported, which has to
# happen on the main thread at module level.
from livekit.plugins import turn_detector  # noqa: F401

from customer_service.entry import (
    DOWNLOAD_FAILED_EXIT_CODE,
    MISCONFIGURED_EXIT_CODE,
    VOICE_COMMANDS,
    command_of,
    model_hub_problem,
    preflight,
    unreachable_server_problem,
)
from customer_service.log_privacy import install_log_privacy
from customer_service.pipeline import plugin_files_downloaded, unregister_unused_plugin_runners
from customer_service.settings import SettingsInvalid, get_settings
from customer_service.store_commands import (
    STORE_COMMANDS,
    run_store_command,
    store_command_parser,
    store_startup_problem,
)

HELP = """\
Usage: python src/agent.py COMMAND [OPTIONS]

The customer-service voice agent.

Commands:
  chat            talk to the agent in this terminal; no server or keys needed
  console         speak to it through this machine's microphone and speaker
  dev             register with a LiveKit server and take calls (development logging)
  start           register with a LiveKit server and take calls (production worker)
  connect         join one room of a LiveKit server directly (--room NAME)
  download-files  fetch the model files of TURN_DETECTION=multilingual or english (once)
  migrate         bring the database at DATABASE_URL to the latest schema
  seed-demo       add the demo customers and orders to the database at DATABASE_URL
  identity-release  CUSTOMER_ID [--operator NAME]: release a held account (audited)
  import-tau2     DB.json [--force]: load τ²-bench's retail database into the store
  export-tau2     OUT.json: write the store as τ²-bench's retail database
  report          DIR or --database-url URL: summarise call reports; --html FILE, --prune DAYS

`python src/agent.py COMMAND --help` lists a command's options.
LiveKit's CLI runs the same agent: `lk agent dev`, `lk agent console`, `lk agent start`.
"""

HELP_OPTIONS = frozenset({"--help", "-h"})

OWN_COMMANDS = frozenset({"chat", "download-files", "report"}) | STORE_COMMANDS
"""Commands this script runs itself; the others in HELP are the framework's."""
COMMANDS = OWN_COMMANDS | VOICE_COMMANDS


def unknown_command(command: str | None) -> bool:
    """Whether `command` is none of HELP's: the framework would answer it with its own
    boxed error, which lists only its commands."""
    return command is not None and command not in COMMANDS


def show_unknown_command(command: str) -> int:
    print(f"Unknown command {command!r}.\n\n{HELP}", end="", file=sys.stderr)
    return MISCONFIGURED_EXIT_CODE


DOWNLOAD_FILES_DESCRIPTION = (
    "Fetch the turn-detector plugin's model files into the Hugging Face cache (once, or at "
    "image build), for TURN_DETECTION=multilingual or english; the default needs none."
)


def asks_for_help(argv: list[str]) -> bool:
    return not argv or bool(HELP_OPTIONS & set(argv))


def show_help(argv: list[str]) -> int:
    """The help `argv` asks for, the script's own or a command's. It reads none of the
    settings, so that one out of its range never hides it."""
    command = command_of(argv)
    if unknown_command(command):
        return show_unknown_command(str(command))
    if command is None:
        # The framework's own help lists only its commands; this one lists them all.
        print(HELP, end="")
        return 0
    options = argv[argv.index(command) + 1 :]
    if command == "chat":
        from customer_service.chat import main as chat_main

        return chat_main(options)
    if command == "report":
        from customer_service.reports.command import main as report_main

        return report_main(options)
    if command == "download-files":
        download_files_parser().parse_args(options)
    elif command in STORE_COMMANDS:
        store_command_parser(command).parse_args(options)
    else:
        # The framework's commands: their options are the framework's, whatever server
        # it would run.
        from livekit.agents import AgentServer, cli

        cli.run_app(AgentServer())
    return 0


def download_files_parser() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog="agent.py download-files", description=DOWNLOAD_FILES_DESCRIPTION
    )


# Help before the settings: a setting out of its range, reported by every command that
# runs, never hides how to run one.
if __name__ == "__main__" and asks_for_help(sys.argv[1:]):
    sys.exit(show_help(sys.argv[1:]))
if __name__ == "__main__" and unknown_command(command_of(sys.argv[1:])):
    sys.exit(show_unknown_command(str(command_of(sys.argv[1:]))))


# First: reading the settings loads .env.local and .env into the environment, where the
# `AgentServer` looks for LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET when it is
# created (`python -m livekit.agents start src/agent.py` passes none of them itself).
# A setting out of its range stops every path here, in one line (help, above, needs none).
# Then log privacy, before the framework adds its log handler, so that the handler gets
# the filter too; installing it again (chat does, with its own level) replaces it.
try:
    install_log_privacy(get_settings())
except SettingsInvalid as invalid:
    print(invalid, file=sys.stderr)
    sys.exit(MISCONFIGURED_EXIT_CODE)

# The worker's inference process runs the turn-detector plugin's models only for the
# modes that use them.
unregister_unused_plugin_runners(get_settings().turn_detection)

from customer_service.server import announce_dispatch, server

__all__ = ["main", "server"]

# One line, when the server has registered: automatic or explicit dispatch.
announce_dispatch(server)


def main(argv: list[str]) -> int:
    if asks_for_help(argv):
        return show_help(argv)
    command = command_of(argv)
    if unknown_command(command):
        return show_unknown_command(str(command))
    if command == "chat":
        from customer_service.chat import main as chat_main

        return chat_main(argv[argv.index("chat") + 1 :])
    if command == "download-files":
        download_files_parser().parse_args(argv[argv.index(command) + 1 :])
        # The turn-detector plugin's models are the only files any plugin here downloads.
        if plugin_files_downloaded():
            print("The turn-detector model files are already downloaded; nothing to fetch.")
            return 0
        problem = model_hub_problem()
        if problem is not None:
            print(problem, file=sys.stderr)
            return DOWNLOAD_FAILED_EXIT_CODE
        # The framework's own downloader (`python -m livekit.agents download-files`):
        # it returns a failing status instead of a traceback when a download fails.
        from livekit.agents.__main__ import main as livekit_agents_main

        return livekit_agents_main(["download-files"])
    if command == "report":
        from customer_service.reports.command import main as report_main

        return report_main(argv[argv.index(command) + 1 :])
    if command in STORE_COMMANDS:
        return run_store_command(argv, get_settings())

    settings = get_settings()
    problem = (
        preflight(argv, settings)
        or store_startup_problem(argv, settings)
        or unreachable_server_problem(argv, settings)
    )
    if problem is not None:
        print(problem, file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE

    from livekit.agents import cli

    cli.run_app(server)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
