"""Checks `python src/agent.py <command>` makes before the LiveKit framework starts.

Without them, `dev` with no LIVEKIT_URL logs `ws_url is required` and exits with status 0,
and a missing turn-detector model only shows when the first call fails.
"""

from __future__ import annotations

from collections.abc import Sequence

from customer_service.pipeline import turn_detector_files_problem
from customer_service.settings import ModelProvider, Settings

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
    ):
        return turn_detector_files_problem(settings.turn_detection)
    return None
