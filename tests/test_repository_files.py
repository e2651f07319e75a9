"""The files a newcomer, GitHub or a coding assistant looks for at the top of the
repository: the licence pyproject.toml names, AGENTS.md, the GitHub Actions workflow,
and a .gitignore that keeps what the documents' examples leave out of git."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from sqlalchemy.engine import make_url

from customer_service.settings import PROJECT_ROOT

PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
APACHE_2_0_MD5 = "3b83ef96387f14655fc854ddc3c6bd57"
"""The digest of the Apache Software Foundation's own LICENSE-2.0.txt, unmodified."""
AGENTS_MD = PROJECT_ROOT / "AGENTS.md"
WORKFLOW = PROJECT_ROOT / ".github" / "workflows" / "ci.yml"
PATH_LIKE = re.compile(r"[\w.-]*/[\w./-]*|[\w-]+\.(?:md|py|toml|lock|yml|yaml)")


def make_targets() -> set[str]:
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*):", makefile, re.MULTILINE))


def make_targets_run_by(command: str) -> list[str]:
    return re.findall(r"\bmake ([a-z][\w-]*)", command)


# --- LICENSE ---------------------------------------------------------------------------


def test_the_licence_pyproject_names_is_there_word_for_word() -> None:
    assert PYPROJECT["project"]["license"] == {"text": "Apache-2.0"}
    licence = (PROJECT_ROOT / "LICENSE").read_bytes()
    assert hashlib.md5(licence, usedforsecurity=False).hexdigest() == APACHE_2_0_MD5
    assert b"Apache License\n                           Version 2.0, January 2004" in licence


# --- AGENTS.md -------------------------------------------------------------------------


def agents_md_code() -> list[str]:
    """Every inline code span of AGENTS.md, a span broken over lines joined."""
    text = AGENTS_MD.read_text(encoding="utf-8")
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", text)]


def test_agents_md_is_short() -> None:
    assert len(AGENTS_MD.read_text(encoding="utf-8").splitlines()) <= 80


def test_every_make_target_agents_md_names_exists() -> None:
    named = {target for span in agents_md_code() for target in make_targets_run_by(span)}
    assert {"install", "chat", "check", "test"} <= named
    assert named <= make_targets(), named - make_targets()


def test_every_tool_agents_md_runs_with_uv_is_installed_beside_python() -> None:
    tools = {
        found for span in agents_md_code() for found in re.findall(r"\buv run (\w[\w-]*)", span)
    }
    assert tools
    assert all((Path(sys.executable).parent / tool).exists() for tool in tools), tools


def test_every_path_agents_md_names_exists() -> None:
    paths = {
        word.rstrip(".,:;")
        for span in agents_md_code()
        for word in span.split()
        if PATH_LIKE.fullmatch(word.rstrip(".,:;")) and not word.startswith("...")
    }
    assert "src/customer_service/specialists/" in paths
    missing = sorted(path for path in paths if not (PROJECT_ROOT / path).exists())
    assert missing == []


# --- the GitHub Actions workflow -------------------------------------------------------


def workflow() -> dict[Any, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def the_job() -> dict[str, Any]:
    (job,) = workflow()["jobs"].values()
    return dict(job)


def test_the_workflow_runs_on_pushes_and_pull_requests() -> None:
    # YAML 1.1 reads the key `on` as true.
    triggers = workflow()[True]
    assert {"push", "pull_request"} <= set(triggers)


def test_the_workflow_runs_what_ci_runs_with_commands_that_exist() -> None:
    runs = [step["run"] for step in the_job()["steps"] if "run" in step]
    assert runs[-1].strip() == "make test"
    ci_run = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8").strip()
    assert ci_run.splitlines()[-1].endswith(" make test")
    for command in runs:
        assert set(make_targets_run_by(command)) <= make_targets(), command
    for step in the_job()["steps"]:
        if "uses" in step:
            assert re.fullmatch(r"[\w-]+/[\w-]+@v\d+", step["uses"]), step["uses"]


def test_the_workflow_gives_the_tests_a_postgresql_server_and_requires_it() -> None:
    job = the_job()
    (service,) = job["services"].values()
    assert service["image"].split(":")[0] == "postgres"
    url = make_url(job["env"]["TEST_POSTGRES_URL"])
    assert url.drivername == "postgresql+asyncpg"
    assert url.host in {"127.0.0.1", "localhost"}
    assert f"{url.port}:5432" in service["ports"]
    assert url.password == service["env"]["POSTGRES_PASSWORD"]
    assert job["env"]["REQUIRE_POSTGRES_TESTS"] == "1"
    assert job["env"]["REQUIRE_BROWSER_TESTS"] == "1"


def test_the_workflow_sets_up_a_python_the_project_supports() -> None:
    (setup,) = [
        step
        for step in the_job()["steps"]
        if step.get("uses", "").startswith("actions/setup-python@")
    ]
    version = setup["with"]["python-version"]
    assert version == "3.11"
    assert SpecifierSet(PYPROJECT["project"]["requires-python"]).contains(f"{version}.0")
    assert (PROJECT_ROOT / setup["with"]["cache-dependency-path"]).is_file()


# --- .gitignore ------------------------------------------------------------------------


def ignored(paths: list[str]) -> set[str]:
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", *paths],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in {0, 1}, result.stderr
    return set(result.stdout.splitlines())


@pytest.mark.parametrize(
    "path",
    [
        "reports/chat-1.json",  # REPORT_DIR=reports make chat
        "summary.html",  # python src/agent.py report reports --html summary.html
        "out.json",  # python src/agent.py export-tau2 out.json
        "out.json.gz",  # its compressed form
        "tau2-train.json",  # make tau2 ARGS="... --out tau2-train.json"
        "uv.lock",  # uv sync
    ],
)
def test_what_the_documents_examples_leave_is_ignored(path: str) -> None:
    assert ignored([path]) == {path}


def test_the_project_s_own_files_stay_seen() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--ignored", "--exclude-standard"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert tracked == []
    new_sources = ["src/customer_service/reports/pages.py", "tests/reports/test_pages.py"]
    assert ignored(new_sources) == set()
