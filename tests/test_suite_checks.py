"""The suite's own checks (tests/conftest.py) still fail the tests that break its rules
when `make test` spreads the tests over processes (pytest-xdist), where each process
holds only its own share of the state the checks read."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from customer_service.settings import PROJECT_ROOT

MISTAKES = "tests/support/checked_mistakes.py"


def outcomes(junit: Path) -> dict[str, str]:
    """Per test name, what failed it (its failure or error messages), or `passed`."""
    found: dict[str, str] = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        problems = [*case.iter("failure"), *case.iter("error")]
        found[case.attrib["name"]] = (
            " ".join(problem.attrib.get("message", "") for problem in problems) or "passed"
        )
    return found


def test_each_check_fails_its_mistake_when_two_processes_share_the_tests(
    tmp_path: Path,
) -> None:
    junit = tmp_path / "mistakes.xml"
    # Neither this run's worker (PYTEST_XDIST_*) nor its PostgreSQL server: the checks'
    # words are the same on every backend.
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("PYTEST_")
        and name not in {"TEST_POSTGRES_URL", "REQUIRE_POSTGRES_TESTS"}
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            f"--junitxml={junit}",
            "--basetemp",
            str(tmp_path / "runs"),
            MISTAKES,
        ],
        cwd=PROJECT_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "created: 2/2 workers" in result.stdout
    found = outcomes(junit)
    assert (
        "yet runs on SQLite only"
        in found["test_a_call_on_the_default_store_hidden_from_the_reading"]
    )
    assert (
        "never opened a store there"
        in found["test_a_call_on_every_backend_that_never_opens_a_store[sqlite]"]
    )
    assert (
        "is not marked `subprocess`" in found["test_a_process_started_where_the_reading_cannot_see"]
    )
    assert found["test_a_test_that_keeps_the_rules"] == "passed"
