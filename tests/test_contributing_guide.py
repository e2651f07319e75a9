"""The contributing guide's steps for a new specialist are true of the code: the ranks it
lists are every offline module's, the registration's arguments it names are the
decorator's, the declarations it asks of a test module are the ones the shared suites
read, and the files it says a new specialist touches are the ones its worked example
has, with no specialist named in the shared places it says need no line."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from customer_service.call.registration import supervisor_tool
from customer_service.offline_llm.specialists import registered
from customer_service.settings import PROJECT_ROOT
from customer_service.specialists import SPECIALISTS
from support.own_tests import SPECIALIST_TESTS

GUIDE = PROJECT_ROOT / "docs" / "contributing.md"
WORKED_EXAMPLE = "default_address"
"""The account-level specialist the guide walks through."""


def section() -> str:
    """The guide's "Adding a specialist", its lines joined."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("## Adding a specialist")
    return " ".join(text[start : text.index("\n## ", start + 1)].split())


def ranks_listed(name: str) -> dict[str, int]:
    """The "`module` N" pairs of the parenthesis that follows the guide's `name`."""
    found = re.search(rf"`{name}`[^(]*\(([^)]*)\)", section())
    assert found is not None, f"the guide lists no {name}"
    return {module: int(rank) for module, rank in re.findall(r"`(\w+)`:? (\d+)", found[1])}


def test_the_ranks_listed_are_every_offline_modules() -> None:
    played = registered()
    assert ranks_listed("route_rank") == {s.name: s.route_rank for s in played}
    on_menu = {s.name: s.menu_rank for s in played if s.menu_phrase is not None}
    assert ranks_listed("menu_rank") == on_menu
    asked_apart = {s.name: s.asks_for_rank for s in played if s.asks_for_rank is not None}
    assert ranks_listed("asks_for_rank") == asked_apart


def test_the_registrations_arguments_named_are_the_decorators() -> None:
    named = re.search(r"supervisor_tool\(Task, Result, ([^)]*)\)", section())
    assert named is not None
    listed = re.findall(r"(\w+)=\.\.\.", named[1])
    keywords = [
        parameter.name
        for parameter in inspect.signature(supervisor_tool).parameters.values()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    assert listed == keywords
    # Each is explained in the list that follows.
    for keyword in keywords:
        assert f"`{keyword}`" in section().split("The decorator's arguments:", 1)[1]


def test_the_declarations_asked_of_a_test_module_are_the_ones_the_suites_read() -> None:
    tests = PROJECT_ROOT / "tests"
    read = {
        found
        for path in tests.rglob("*.py")
        for found in re.findall(r'declared\(\s*"([A-Z_]+)"', path.read_text(encoding="utf-8"))
    }
    asked = set(re.findall(r"`([A-Z_]+) = \w+\(\.\.\.\)`", section()))
    assert read  # the suites read some
    assert read <= asked, "a declaration the suites read is missing from the guide"
    # Some specialist's own test module makes each, and the worked example each but the
    # one asked of a swap only (`SwapCase`, tests/support/swaps.py).
    modules = [path.read_text(encoding="utf-8") for path in SPECIALIST_TESTS.glob("test_*.py")]
    assert [name for name in read if not any(f"\n{name} = " in text for text in modules)] == []
    example = (SPECIALIST_TESTS / f"test_{WORKED_EXAMPLE}.py").read_text(encoding="utf-8")
    assert [name for name in read - {"SWAP"} if f"\n{name} = " not in example] == []


def files_a_new_specialist_touches() -> tuple[int, int, list[str]]:
    said = re.search(r"touches these (\d+) files, (\d+) of them its own: (.*?) The ", section())
    assert said is not None
    listed = re.findall(r"\d+\. `([^`]+)`", said[3])
    return int(said[1]), int(said[2]), listed


def test_the_files_a_new_account_level_specialist_touches_are_counted_and_exist() -> None:
    total, own, listed = files_a_new_specialist_touches()
    assert len(listed) == total
    assert section().count("(new);") + section().count("(new).") == own
    for path in listed:
        concrete = PROJECT_ROOT / path.replace("<name>", WORKED_EXAMPLE)
        # A path the worked example has under another name (its store part) has a folder.
        assert concrete.exists() or ("<name>" in path and concrete.parent.is_dir()), (
            f"the guide lists {path}"
        )


BUILT_BY_THE_GUIDE = (WORKED_EXAMPLE, "exchange", "item_change")
"""The specialists the guide says were built by its steps, needing no line elsewhere."""


def references(name: str) -> re.Pattern[str]:
    """A reference in code to a specialist: its module, its file or its tool's name."""
    (entry,) = [entry for entry in SPECIALISTS if entry.name == name]
    return re.compile(
        rf"specialists[./]{name}\b|\b{name}\.py\b|[\"']{entry.tool_name}[\"']|\b{entry.task.__name__}\b"
    )


@pytest.mark.parametrize(
    "shared",
    [
        "src/customer_service/supervisor.py",
        "src/customer_service/specialists/__init__.py",
        "src/customer_service/offline_llm/profiles.py",
        "src/customer_service/offline_llm/routing.py",
        "src/customer_service/reports/names.py",
        "src/customer_service/simulation/state.py",
        "tests/support/confirming.py",
        "tests/support/own_tests.py",
        "tests/specialists/test_misbehaving_models.py",
        "tests/specialists/test_yes_with_a_new_request.py",
        "tests/offline_llm/test_offline_model.py",
    ],
)
def test_the_places_the_guide_says_need_no_line_name_none_it_built(shared: str) -> None:
    text = (PROJECT_ROOT / shared).read_text(encoding="utf-8")
    named = [name for name in BUILT_BY_THE_GUIDE if references(name).search(text)]
    assert named == [], f"{Path(shared).name} names {named}"
