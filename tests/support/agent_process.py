"""Running `python src/agent.py` as a user would: another directory, a clean environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from customer_service.settings import PROJECT_ROOT, Settings

AGENT = PROJECT_ROOT / "src" / "agent.py"


def child_environment(tmp_path: Path) -> dict[str, str]:
    """The environment of a fresh machine: no LiveKit variables, no home configuration.

    The suite's own environment (tests/conftest.py) already ignores .env files and the
    developer's settings; the child inherits that, with its home in `tmp_path`.
    """
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("LIVEKIT_") and name.lower() not in Settings.model_fields
    }
    env.pop("XDG_DATA_HOME", None)  # the default store goes under the temporary home
    env["HOME"] = str(tmp_path)
    env["HF_HOME"] = str(tmp_path / "hf")
    env.pop("PYTHONPATH", None)  # the package must come from the installed environment
    return env


def run_agent(
    tmp_path: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs the script from a directory other than the project's, as a user might, with
    `env` added to a fresh machine's environment."""
    workdir = tmp_path / "elsewhere"
    workdir.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, str(AGENT), *args],
        cwd=workdir,
        env=child_environment(tmp_path) | (env or {}),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
