from __future__ import annotations

import asyncio
import inspect
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

# The shared helpers assert too: give their failures pytest's detailed messages.
pytest.register_assert_rewrite("support")

from customer_service.clock import FixedClock  # noqa: E402
from customer_service.settings import (  # noqa: E402 (after the rewrite hook)
    IGNORE_ENV_FILES_VARIABLE,
    ModelProvider,
    Settings,
    get_settings,
)
from customer_service.testing import pinned_clock, scratch_databases  # noqa: E402
from support.backends import of_the_suite, opens_the_default_store  # noqa: E402
from support.clock import TEST_NOW  # noqa: E402
from support.databases import (  # noqa: E402
    BACKENDS,
    POSTGRES_REQUIRED,
    POSTGRES_URL,
    drop_templates,
    new_demo_database,
    postgres_server_url,
)
from support.kinds import SUBPROCESS, kinds_of  # noqa: E402


def _setting_variables() -> set[str]:
    return {name.upper() for name in Settings.model_fields}


@pytest.fixture(scope="session", autouse=True)
def isolated_from_the_developers_world() -> Iterator[Path]:
    """The whole suite, subprocesses included, runs on defaults: no `.env.local` or
    `.env`, no setting from the developer's shell, and a data folder of its own, so it
    can neither be failed by a local configuration nor write to a real store."""
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="customer-service-tests-") as scratch:
        for name in _setting_variables() & set(os.environ):
            del os.environ[name]
        os.environ[IGNORE_ENV_FILES_VARIABLE] = "1"
        os.environ["XDG_DATA_HOME"] = str(Path(scratch) / "data")
        get_settings.cache_clear()
        try:
            yield Path(scratch)
        finally:
            os.environ.clear()
            os.environ.update(saved)
            get_settings.cache_clear()


@pytest.fixture
def clock() -> FixedClock:
    """The test's time, standing at `TEST_NOW` until the test moves it."""
    return FixedClock(TEST_NOW)


@pytest.fixture(autouse=True)
def stores_on_the_tests_clock(clock: FixedClock) -> Iterator[None]:
    """Every store the test seams open runs on the test's `clock`: dates spoken from the
    demo data, time windows and recorded times never depend on the real date."""
    with pinned_clock(clock):
        yield


@pytest.fixture
def settings() -> Settings:
    """Settings independent of the developer's environment: defaults, offline model."""
    return Settings.model_validate({"model_provider": ModelProvider.OFFLINE})


# --- conversation tests on every backend ---------------------------------------------
#
# A conversation test, one whose call opens the default store (`support.backends` says
# which: a `call_session` or `voice_call_session` in its code or its helpers, given no
# `store` or `database_url`), or one that asks for `demo_database_url` or names
# `store_backend` among its arguments, runs once per backend: `test_x[sqlite]` and
# `test_x[postgresql]`. Its calls' stores are then scratch databases on that backend.
# Without a PostgreSQL server (TEST_POSTGRES_URL) they run on SQLite only, and a single
# test, marked `reports_skipped_backends`, skips its PostgreSQL variant to say so; with
# REQUIRE_POSTGRES_TESTS=1 (CI) the PostgreSQL variants run, and fail without a server.
# Every test is checked: one that opens a default store without running on every
# backend fails, and so does one run on every backend that never opens a store.

REPORTS_SKIPPED_BACKENDS = "reports_skipped_backends"
_CALL_REPORT = pytest.StashKey[pytest.TestReport]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{REPORTS_SKIPPED_BACKENDS}: the conversation test whose PostgreSQL variant "
        "runs, or skips saying why, when no server is configured",
    )
    sys.addaudithook(_note_process_starts)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if _runs_on_every_backend(metafunc):
        metafunc.parametrize("store_backend", _conversation_backends(metafunc))


def _runs_on_every_backend(metafunc: pytest.Metafunc) -> bool:
    return (
        "demo_database_url" in metafunc.fixturenames
        or "store_backend" in inspect.signature(metafunc.function).parameters
        or opens_the_default_store(metafunc.function)
    )


def _conversation_backends(metafunc: pytest.Metafunc) -> list[str]:
    if (
        POSTGRES_URL
        or POSTGRES_REQUIRED
        or metafunc.definition.get_closest_marker(REPORTS_SKIPPED_BACKENDS)
    ):
        return list(BACKENDS)
    return ["sqlite"]


@pytest.hookimpl(trylast=True)  # after -k and --deselect: count what runs
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if POSTGRES_URL or POSTGRES_REQUIRED:
        return
    sqlite_only = sum(_backend(item) == "sqlite" for item in items)
    reason = (
        "the conversation tests on PostgreSQL need TEST_POSTGRES_URL (scripts/with-postgres "
        f"starts a server and sets it): {sqlite_only} ran on SQLite only"
    )
    for item in items:
        if _backend(item) == "postgresql":
            item.add_marker(pytest.mark.skip(reason=reason))


def _backend(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("store_backend") if callspec is not None else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Iterator[pytest.TestReport]:
    report: pytest.TestReport = yield
    if report.when == "call":
        item.stash[_CALL_REPORT] = report
    return report


@pytest.fixture
def store_backend() -> str:
    """The backend of the test's stores: each one for a conversation test (the hooks above
    parametrize it), SQLite for any other."""
    return "sqlite"


@pytest.fixture
async def demo_database_url(store_backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A new database on the test's backend with the demo store in it (migrated and
    seeded, as a call opens it), for a test that gives its calls `database_url=` itself:
    calls that share one store, or a look at what a call stored."""
    async with new_demo_database(store_backend, tmp_path) as url:
        yield url


@pytest.fixture(autouse=True)
def calls_store_on_the_tests_backend(
    request: pytest.FixtureRequest, store_backend: str
) -> Iterator[None]:
    """A call given no store of its own opens it in a new database on `store_backend`."""
    every_backend = _backend(request.node) is not None
    if store_backend == "postgresql":
        postgres_server_url()  # fails the test when CI requires a server and there is none
    opened = 0

    @asynccontextmanager
    async def new_scratch_database() -> AsyncIterator[str]:
        nonlocal opened
        opened += 1
        with tempfile.TemporaryDirectory(prefix="customer-service-") as folder:
            async with new_demo_database(store_backend, Path(folder)) as url:
                yield url

    with scratch_databases(new_scratch_database):
        yield
    if opened and not every_backend:
        pytest.fail(
            f"{request.node.nodeid} opened a call on the default store, yet runs on SQLite "
            "only: support.backends found no such call in its code. Name `store_backend` "
            "among its arguments to run it on every backend.",
            pytrace=False,
        )
    report = request.node.stash.get(_CALL_REPORT, None)
    asked = "demo_database_url" in request.fixturenames or (
        "store_backend" in inspect.signature(request.function).parameters
    )
    if every_backend and not opened and report is not None and report.passed and not asked:
        pytest.fail(
            f"{request.node.nodeid} runs on every backend but never opened a store there: "
            "support.backends took a call of its code for one on the default store. Give "
            "that call its store (`store=` or `database_url=`), or leave the call out.",
            pytrace=False,
        )


@pytest.fixture(scope="session", autouse=True)
def demo_database_templates() -> Iterator[None]:
    """The templates `new_demo_database` copies, made on first use, dropped at the end."""
    yield
    asyncio.run(drop_templates())


# --- the slow kinds, which `make check` leaves to `make test` -------------------------
#
# Each test is marked `voice`, `concurrency` or `subprocess` when it is collected, from
# its folder and its code (`support.kinds` says how), so a new test of a slow kind is
# left out of `make check` without anyone listing it. A test that starts a process the
# code reading missed (through a library, say) fails and says to mark it by hand.

_PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn"})
_processes_started: list[str] | None = None
"""While a test's setup and call run, the processes they started; None between tests."""


def _note_process_starts(event: str, arguments: tuple[object, ...]) -> None:
    if _processes_started is not None and event in _PROCESS_EVENTS:
        _processes_started.append(f"{event}{arguments[:2]!r}"[:200])


_kinds: dict[tuple[object, ...], set[str]] = {}
"""The kinds of each test function with its fixtures, read once for all its parameters."""


def pytest_itemcollected(item: pytest.Item) -> None:
    if not isinstance(item, pytest.Function):
        return
    code = [item.function, *_fixture_functions(item)]
    key = (item.path, *code)
    if key not in _kinds:
        _kinds[key] = kinds_of(item.path, code)
    for kind in _kinds[key]:
        item.add_marker(kind)


def _fixture_functions(item: pytest.Function) -> list[Callable[..., object]]:
    """The suite's own fixtures that `item` uses."""
    definitions = getattr(item, "_fixtureinfo", None)
    found: list[Callable[..., object]] = []
    for name in item.fixturenames:
        for definition in getattr(definitions, "name2fixturedefs", {}).get(name, ()):
            if of_the_suite(definition.func):
                found.append(definition.func)
    return found


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    global _processes_started
    _processes_started = []
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    global _processes_started
    try:
        result = yield
    finally:
        started, _processes_started = _processes_started or [], None
    if started and item.get_closest_marker(SUBPROCESS) is None:
        pytest.fail(
            f"{item.nodeid} started a process ({started[0]}) but is not marked "
            f"`{SUBPROCESS}`: support.kinds found no process start in its code. Mark it "
            f"@pytest.mark.{SUBPROCESS}, so that `make check` leaves it out.",
            pytrace=False,
        )
    return result
