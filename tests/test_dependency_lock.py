"""The locks that every install without uv goes by: requirements-dev.lock (`make install`,
so CI) and requirements.lock (the image). Each pins every dependency, direct and
indirect, at one version with its hashes, agrees with pyproject.toml, and records no
address: no index, no download link, no path of the machine that wrote it."""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from customer_service.settings import PROJECT_ROOT

RUNTIME_LOCK = "requirements.lock"
DEVELOPMENT_LOCK = "requirements-dev.lock"
PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]
LOCKED_EXTRAS = {RUNTIME_LOCK: ("postgres",), DEVELOPMENT_LOCK: ("postgres", "dev")}
"""What each lock holds besides the project's own dependencies: the image's PostgreSQL
driver, and for development the dev tools too."""

PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)")
DOTTED = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+")


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    hashes: tuple[str, ...]


def entries(lock: str) -> list[str]:
    """The lock's requirement entries, each with its continuation lines joined."""
    joined = (PROJECT_ROOT / lock).read_text(encoding="utf-8").replace("\\\n", " ")
    lines = (line.strip() for line in joined.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def pins(lock: str) -> list[Pin]:
    found = []
    for entry in entries(lock):
        pin = PIN.match(entry)
        assert pin is not None, f"{lock}: not an exact pin: {entry[:80]}"
        hashes = tuple(
            word.removeprefix("--hash=") for word in entry.split() if word.startswith("--hash=")
        )
        found.append(Pin(canonicalize_name(pin["name"]), pin["version"], hashes))
    return found


def direct_requirements(lock: str) -> list[Requirement]:
    listed = [*PROJECT["dependencies"]]
    for extra in LOCKED_EXTRAS[lock]:
        listed += EXTRAS[extra]
    return [Requirement(text) for text in listed]


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, DEVELOPMENT_LOCK])
def test_every_entry_is_one_exact_version_with_its_hashes(lock: str) -> None:
    locked = pins(lock)
    assert len(locked) > len(direct_requirements(lock)), "the indirect dependencies are missing"
    for pin in locked:
        assert pin.hashes, f"{lock}: {pin.name} has no hash"
        assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", value) for value in pin.hashes), pin


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, DEVELOPMENT_LOCK])
def test_every_direct_dependency_is_pinned_at_a_version_pyproject_allows(lock: str) -> None:
    locked: dict[str, list[str]] = {}
    for pin in pins(lock):
        locked.setdefault(pin.name, []).append(pin.version)
    for requirement in direct_requirements(lock):
        versions = locked.get(canonicalize_name(requirement.name))
        assert versions, f"{lock} does not pin {requirement.name}, which pyproject.toml needs"
        for version in versions:
            assert requirement.specifier.contains(version, prereleases=True), (
                f"{lock} pins {requirement.name} {version}; pyproject.toml asks {requirement}"
            )


def test_the_image_takes_the_development_versions_without_the_dev_tools() -> None:
    development = {(pin.name, pin.version): pin.hashes for pin in pins(DEVELOPMENT_LOCK)}
    runtime = {(pin.name, pin.version): pin.hashes for pin in pins(RUNTIME_LOCK)}
    assert runtime.keys() <= development.keys(), runtime.keys() - development.keys()
    assert all(runtime[key] == development[key] for key in runtime)

    def names(extra: str) -> set[str]:
        return {canonicalize_name(Requirement(text).name) for text in EXTRAS[extra]}

    dev_tools = names("dev") - names("postgres")
    assert dev_tools & {name for name, _ in runtime} == set()


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, DEVELOPMENT_LOCK])
def test_the_lock_records_no_index_link_or_path(lock: str) -> None:
    text = (PROJECT_ROOT / lock).read_text(encoding="utf-8")
    assert "://" not in text
    # No slash at all: neither a link nor a path of the machine that wrote it.
    assert "/" not in text
    assert "\\" not in text.replace("\\\n", "\n")
    for entry in entries(lock):
        options = {word.split("=")[0] for word in shlex.split(entry) if word.startswith("-")}
        assert options <= {"--hash"}, f"{lock}: {entry[:80]}"
    # What has dots is a version, a file of this project, or a package the lock pins:
    # never a host name.
    allowed = {pin.name for pin in pins(lock)} | {"pyproject.toml", RUNTIME_LOCK, DEVELOPMENT_LOCK}
    for word in DOTTED.findall(text):
        assert (
            re.fullmatch(r"[0-9][0-9a-z.]*", word, re.IGNORECASE)
            or canonicalize_name(word) in allowed
            or word in allowed
        ), f"{lock} names {word!r}"


def test_uv_installs_the_dev_tools_that_pip_users_get_from_the_dev_extra() -> None:
    """`uv sync` installs the default group, `dev`, so `uv run pytest` finds the tools."""
    (group,) = [Requirement(text) for text in PYPROJECT["dependency-groups"]["dev"]]
    assert canonicalize_name(group.name) == canonicalize_name(PROJECT["name"])
    assert group.extras == {"dev"}


@pytest.mark.parametrize(
    ("recipe_file", "lock"), [("Makefile", DEVELOPMENT_LOCK), ("Dockerfile", RUNTIME_LOCK)]
)
def test_every_install_goes_by_its_lock(recipe_file: str, lock: str) -> None:
    """Besides pip itself, each pip install is the lock with its hashes, or the project
    with no dependencies of its own choosing."""
    text = (PROJECT_ROOT / recipe_file).read_text(encoding="utf-8")
    installs = re.findall(r"(?:pip|\$\(PIP\)) install ([^&\n]*)", text)
    assert f"--require-hashes -r {lock}" in [words.strip() for words in installs]
    for words in installs:
        arguments = words.split()
        assert (
            arguments == ["--upgrade", "pip"]
            or arguments == ["--require-hashes", "-r", lock]
            or "--no-deps" in arguments
        ), f"{recipe_file}: pip install {words}"
