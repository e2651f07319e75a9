"""The documents say what is: every make target, agent command, module, setting, path and
count they name in code exists and matches."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from customer_service.settings import PROJECT_ROOT, Settings
from test_caller_phrasings import ROWS

DOCUMENTS = [
    PROJECT_ROOT / "README.md",
    *sorted((PROJECT_ROOT / "docs").glob("*.md")),
    *[path for path in [PROJECT_ROOT / "AGENTS.md"] if path.exists()],
]
NOT_SETTINGS = {
    "ACCOUNTS_ADDRESSES": "src/customer_service/specialists/default_address.py",
    "CUSTOMER_ID": "a placeholder for an id on a command line",
    "FULL_SUPERVISOR": "tests/support/offline_chat.py",
    "OFFLINE_CHAT": "tests/support/own_tests.py",
    "TEST_NOW": "tests/support/clock.py",
    "PASS_ORDER_ID": "src/customer_service/call/registration.py",
    "REQUIRE_POSTGRES_TESTS": "tests/conftest.py",
    "TEST_POSTGRES_URL": "tests/support/databases.py",
    "TEST_WORKERS": "Makefile",
    **{
        name: "src/customer_service/telemetry/exporters.py"
        for name in (
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_SERVICE_NAME",
            "OTEL_SDK_DISABLED",
            "OTEL_METRICS_EXPORTER",
        )
    },
}
"""Names in capitals the documents quote that are not settings, and where each lives."""
PATH_ROOTS = ("src/", "tests/", "benchmarks/", "docs/", "examples/", "scripts/", ".ci/")


def code_in(document: Path) -> list[str]:
    """The document's code: each inline span (which may run over a line break) and each
    fenced block."""
    text = document.read_text(encoding="utf-8")
    blocks = re.findall(r"```[^\n]*\n(.*?)```", text, re.DOTALL)
    prose = re.sub(r"```[^\n]*\n.*?```", "", text, flags=re.DOTALL)
    spans = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]
    return spans + blocks


def named(pattern: str) -> list[tuple[str, str]]:
    """(document, name) for every match of `pattern`'s group in the documents' code."""
    return sorted(
        {
            (document.name, found)
            for document in DOCUMENTS
            for code in code_in(document)
            for found in re.findall(pattern, code)
        }
    )


def make_targets() -> set[str]:
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*):", makefile, re.MULTILINE))


def agent_commands() -> set[str]:
    source = (PROJECT_ROOT / "src" / "agent.py").read_text(encoding="utf-8")
    listing = source.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r"^  ([a-z][\w-]*)", listing, re.MULTILINE))


@pytest.mark.parametrize(("document", "target"), named(r"\bmake ([a-z][\w-]*)"))
def test_every_make_target_named_exists(document: str, target: str) -> None:
    assert target in make_targets(), f"{document} names `make {target}`"


@pytest.mark.parametrize(("document", "command"), named(r"python src/agent\.py ([a-z][\w-]*)"))
def test_every_agent_command_named_exists(document: str, command: str) -> None:
    assert command in agent_commands(), f"{document} names `python src/agent.py {command}`"


@pytest.mark.parametrize(("document", "module"), named(r"python -m ([a-z_][\w.]*)"))
def test_every_module_named_runs(document: str, module: str) -> None:
    spec = importlib.util.find_spec(module)
    assert spec is not None, f"{document} names `python -m {module}`"
    assert spec.submodule_search_locations is None or importlib.util.find_spec(
        f"{module}.__main__"
    ), f"{module} is a package without __main__"


@pytest.mark.parametrize(
    ("document", "name"), named(r"(?<![\w.])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b")
)
def test_every_setting_named_is_a_setting(document: str, name: str) -> None:
    settings = {field.upper() for field in Settings.model_fields}
    if name in NOT_SETTINGS:
        where = NOT_SETTINGS[name]
        assert "/" not in where or name in (PROJECT_ROOT / where).read_text(encoding="utf-8")
        return
    assert name in settings, f"{document} names {name}, which is no setting"


@pytest.mark.parametrize(
    ("document", "path"),
    named(
        r"(?<![\w/.-])((?:"
        + "|".join(re.escape(root) for root in PATH_ROOTS)
        + r")[\w./-]*\w)(?![\w<])"
    ),
)
def test_every_path_named_exists(document: str, path: str) -> None:
    assert "<" not in path
    assert (PROJECT_ROOT / path).exists(), f"{document} names {path}"


def test_the_counts_said_are_the_counts() -> None:
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    contributing = (PROJECT_ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    assert f"lists {len(ROWS)} everyday caller phrasings" in " ".join(readme.split())
    evals = [
        node
        for path in (PROJECT_ROOT / "tests" / "evals").glob("test_*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    ]
    assert f"holds {len(evals)} evals" in " ".join(contributing.split())


def test_no_document_tells_history() -> None:
    history = re.compile(
        r"\b(issue \d+|used to|no longer|previously|before the work|now work)\b", re.IGNORECASE
    )
    told = [
        f"{document.name}: {found.group()}"
        for document in DOCUMENTS
        for found in history.finditer(document.read_text(encoding="utf-8"))
    ]
    assert told == []
