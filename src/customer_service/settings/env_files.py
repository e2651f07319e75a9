"""Where configuration files are found: `.env.local`, then `.env`, in the current
working directory and in the project root, loaded into the process environment without
overriding it (the framework and its plugins read their own keys from there)."""

from __future__ import annotations

import os
from pathlib import Path

from dotenv import load_dotenv

PROJECT_ROOT = Path(__file__).resolve().parents[3]
ENV_FILE_NAMES = (".env.local", ".env")
IGNORE_ENV_FILES_VARIABLE = "CUSTOMER_SERVICE_IGNORE_ENV_FILES"
"""Set to 1 to read the environment alone: the test suite sets it so that a developer's
`.env.local` can neither fail it nor point it at their store."""


def env_files(cwd: Path | None = None) -> list[Path]:
    """The configuration files that exist, highest priority first (none when
    `CUSTOMER_SERVICE_IGNORE_ENV_FILES=1`)."""
    if os.environ.get(IGNORE_ENV_FILES_VARIABLE) == "1":
        return []
    directories = [cwd or Path.cwd(), PROJECT_ROOT]
    seen: set[Path] = set()
    found = []
    for directory in directories:
        for name in ENV_FILE_NAMES:
            path = (directory / name).resolve()
            if path not in seen and path.is_file():
                seen.add(path)
                found.append(path)
    return found


def load_env_files(cwd: Path | None = None) -> list[Path]:
    """Loads the configuration files into the process environment without overriding it."""
    files = env_files(cwd)
    for path in files:
        load_dotenv(path, override=False)
    return files
