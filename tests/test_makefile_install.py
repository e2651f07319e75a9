"""`make install` says what it is doing before each long step, on stderr (the output of
`make chat`, which installs first, stays the conversation alone)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from customer_service.settings import PROJECT_ROOT

# A stand-in for Python, at the project's interpreter and inside the virtualenv: it
# notes each run on stderr, runs the version check for real, and makes a virtualenv
# of itself. pip itself never runs: no package is fetched.
STAND_IN_PYTHON = """\
#!/bin/sh
echo "python $*" >&2
case "$1" in
  -c) exec {python} "$@" ;;
esac
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  for last in "$@"; do :; done
  mkdir -p "$last/bin" && cp "$0" "$last/bin/python"
fi
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_each_long_install_step_is_announced_on_stderr(tmp_path: Path) -> None:
    python = tmp_path / "python3"
    python.write_text(STAND_IN_PYTHON.format(python=sys.executable))
    python.chmod(0o755)
    venv = tmp_path / "venv"
    result = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-C",
            str(PROJECT_ROOT),
            "install",
            f"PYTHON={python}",
            f"VENV={venv}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert (venv / ".installed").is_file()
    lines = result.stderr.splitlines()
    long_steps = [
        position
        for position, line in enumerate(lines)
        if line.startswith("python -m venv")
        or (line.startswith("python -m pip") and " install " in line)
    ]
    # The virtualenv, pip's upgrade, the locked dependencies, the project.
    assert len(long_steps) == 4, lines
    for position in long_steps:
        announced = lines[position - 1]
        assert not announced.startswith("python "), lines
        assert announced.endswith("..."), lines
    assert not lines[-1].startswith("python "), lines  # and the end is said
