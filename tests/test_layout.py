"""The package's floor plan: folders that name concerns, files that hold one thing,
and imports that run one way."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "customer_service"
MAX_LINES = 400
MAX_TOP_LEVEL_MODULES = 14
FOLDERS = {"call", "specialists", "addresses", "pipeline", "store", "offline_llm"}
SPECIALISTS = PACKAGE / "specialists"
MAX_SPECIALIST_LINES = 250
"""A specialist's file reads top to bottom as one capability; past this it is two, and
the specialist becomes a folder of its own files, split along its seams."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _runtime_imports(tree: ast.Module) -> Iterator[ast.ImportFrom | ast.Import]:
    """Every import, except those only type checkers see."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for inner in node.body for child in ast.walk(inner))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skipped:
            yield node


def _every_import(tree: ast.Module) -> Iterator[ast.ImportFrom | ast.Import]:
    """Every import, those only type checkers see included."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def imported_modules(name: str, *, type_only_too: bool = False) -> set[str]:
    tree = ast.parse(MODULES[name].read_text())
    found: set[str] = set()
    for node in (_every_import if type_only_too else _runtime_imports)(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            # `from package import module` names a module; `from module import name` not.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        found.update(target for target in targets if target in MODULES and target != name)
    return found


@pytest.mark.parametrize("type_only_too", [False, True], ids=["at-runtime", "type-only-too"])
def test_no_module_imports_itself_through_others(type_only_too: bool) -> None:
    # A circle only type checkers see is still two modules that cannot be read apart.
    graph = {name: imported_modules(name, type_only_too=type_only_too) for name in MODULES}
    visiting: list[str] = []
    done: set[str] = set()
    cycles: list[list[str]] = []

    def visit(name: str) -> None:
        if name in done:
            return
        if name in visiting:
            cycles.append([*visiting[visiting.index(name) :], name])
            return
        visiting.append(name)
        for target in sorted(graph[name]):
            visit(target)
        visiting.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)
    assert cycles == []


@pytest.mark.parametrize("path", sorted(MODULES.values()), ids=lambda path: path.name)
def test_no_source_file_passes_the_size_that_means_it_holds_two_things(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= MAX_LINES


@pytest.mark.parametrize(
    "path",
    sorted(SPECIALISTS.rglob("*.py")),
    ids=lambda path: str(path.relative_to(SPECIALISTS)),
)
def test_a_specialist_file_holds_one_capability(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_SPECIALIST_LINES, f"{path.name} has {lines} lines: split it"


def test_the_top_level_is_folders_that_name_concerns_and_a_few_modules() -> None:
    top_level = [path.name for path in PACKAGE.glob("*.py")]
    assert len(top_level) <= MAX_TOP_LEVEL_MODULES, top_level
    assert {path.name for path in PACKAGE.iterdir() if path.is_dir()} >= FOLDERS


def test_offline_model_module_names_do_not_shadow_product_modules() -> None:
    offline = {path.stem for path in (PACKAGE / "offline_llm").glob("*.py")} - {"__init__"}
    product = {
        name.rsplit(".", 1)[-1]
        for name in MODULES
        if not name.startswith("customer_service.offline_llm")
    }
    assert offline & product == set()


def _parts_of(module: str) -> list[str]:
    """The modules of a specialist that is a folder: its own files."""
    return [name for name in MODULES if name.startswith(f"{module}.")]


def test_each_specialist_file_holds_its_task_its_result_and_their_check() -> None:
    from customer_service.specialists import SPECIALISTS

    for registration in SPECIALISTS:
        module = registration.tool.__module__
        assert registration.task.__module__ == module
        # The caller's order is the one result the supervisor also lends to other
        # specialists (`Desk.callers_order`): it is a record of the call's. A specialist
        # that is a folder may keep its result in a file of its own there.
        shared = registration.result.__module__ == "customer_service.call.order_view"
        own = registration.result.__module__ in (module, *_parts_of(module))
        assert own or shared, module
        assert registration.result.__name__.endswith("Result"), module


def test_a_specialist_that_writes_keeps_no_copy_of_run_check_retry_write() -> None:
    """Running the task, checking its result, asking again and writing once are
    `call.run_check_write`'s; a specialist that changes something keeps only its own
    check, write and sentences."""
    from customer_service.specialists import SPECIALISTS

    copies = {"validated_with_retries", "store_with", "model_validate", "ValidationError"}
    for registration in SPECIALISTS:
        if registration.writes is None:
            continue
        tree = ast.parse(MODULES[registration.tool.__module__].read_text())
        names = {
            node.attr if isinstance(node, ast.Attribute) else node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name | ast.Attribute)
        }
        names |= {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        assert names & copies == set(), registration.name
