"""Running `python src/agent.py` as a user would: another directory, a clean environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dotenv import dotenv_values

from customer_service.settings import PROJECT_ROOT, Settings, env_files

AGENT = PROJECT_ROOT / "src" / "agent.py"


def child_environment(tmp_path: Path) -> dict[str, str]:
    """The environment of a fresh machine: no LiveKit variables, no home configuration.

    The agent also reads .env files from the project root; a developer's own LiveKit
    values there are masked with empty strings, which the env files never override.
    """
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("LIVEKIT_") and name.lower() not in Settings.model_fields
    }
    for path in env_files(cwd=tmp_path):
        for name in dotenv_values(path):
            if name.startswith("LIVEKIT_"):
                env[name] = ""
    env["HOME"] = str(tmp_path)
    env["HF_HOME"] = str(tmp_path / "hf")
    env.pop("PYTHONPATH", None)  # the package must come from the installed environment
    return env


def run_agent(
    tmp_path: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs the script from a directory other than the project's, as a user might."""
    workdir = tmp_path / "elsewhere"
    workdir.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, str(AGENT), *args],
        cwd=workdir,
        env=child_environment(tmp_path),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
