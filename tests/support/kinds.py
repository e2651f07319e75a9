"""Which tests are the slow kinds that `make check` leaves to `make test`: the marks that
`tests/conftest.py` gives each test when it is collected.

- `voice`: a test under `tests/voice/`, or one whose code drives a voice call
  (`voice_call_session`): it runs on a clock that a real call's pauses still pace.
- `concurrency`: a test under `tests/concurrency/`: many calls at once, in processes.
- `subprocess`: a test whose code, or a fixture it asks for, starts another process
  (`subprocess`, `asyncio.create_subprocess_*`, `os.fork`, `pty.fork`, ...; the
  library's `local_call_speech`, whose caller's voice says each line in a new process):
  most start a new interpreter that imports the framework.

As in `support.backends`, the code is read from its syntax tree, following the functions
and classes of the test suite that it names, as deep as they go; what the tree cannot
show (a process started by a library) the conftest catches when the test runs: a test
that starts a process without its mark fails and says to mark it.
"""

from __future__ import annotations

import ast
import asyncio
import multiprocessing
import os
import pty
import subprocess
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

from customer_service.testing.local_speech import KeptVoice, local_call_speech
from customer_service.testing.voice import voice_call_session
from support.backends import namespace_of, of_the_suite, syntax_of

VOICE = "voice"
CONCURRENCY = "concurrency"
SUBPROCESS = "subprocess"
"""The marks `make check` deselects (pyproject.toml registers them)."""

_TESTS = Path(__file__).resolve().parents[1]
_FOLDERS = {_TESTS / "voice": VOICE, _TESTS / "concurrency": CONCURRENCY}

PROCESS_STARTERS: frozenset[object] = frozenset(
    {
        subprocess.Popen,
        subprocess.run,
        subprocess.call,
        subprocess.check_call,
        subprocess.check_output,
        subprocess.getoutput,
        subprocess.getstatusoutput,
        asyncio.create_subprocess_exec,
        asyncio.create_subprocess_shell,
        os.fork,
        os.forkpty,
        os.system,
        os.posix_spawn,
        os.posix_spawnp,
        pty.fork,
        pty.spawn,
        multiprocessing.Process,
        multiprocessing.get_context,
        # The library's: a test caller's kept voice says each line in a new process.
        KeptVoice,
        local_call_speech,
    }
)
VOICE_CALLS: frozenset[object] = frozenset({voice_call_session})


def kinds_of(path: Path, code: Iterable[Callable[..., Any]]) -> set[str]:
    """The slow kinds of the test in the file at `path` whose code (the test function and
    the fixtures it asks for) is `code`."""
    kinds = {kind for folder, kind in _FOLDERS.items() if path.is_relative_to(folder)}
    functions = list(code)
    if any(_calls(function, VOICE_CALLS, set()) for function in functions):
        kinds.add(VOICE)
    if any(_calls(function, PROCESS_STARTERS, set()) for function in functions):
        kinds.add(SUBPROCESS)
    return kinds


def _calls(thing: object, callees: frozenset[object], seen: set[int]) -> bool:
    """Whether `thing`, or a function or class of the suite that it names, calls one of
    `callees` (by a name or a module attribute that its module resolves to one)."""
    if id(thing) in seen:
        return False
    seen.add(id(thing))
    called, named = _read(thing)
    return not called.isdisjoint(callees) or any(_calls(n, callees, seen) for n in named)


@cache
def _read(thing: object) -> tuple[frozenset[object], tuple[object, ...]]:
    """What `thing`'s code calls, as far as its module resolves the names, and the
    functions and classes of the suite it names: read once per function or class."""
    tree = syntax_of(thing)
    if tree is None:
        return frozenset(), ()
    namespace = namespace_of(thing)
    called: set[object] = set()
    named: list[object] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called.add(_resolved(node.func, namespace))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            thing_named = namespace.get(node.id)
            if of_the_suite(thing_named):
                named.append(thing_named)
    return frozenset(called), tuple(named)


def _resolved(function: ast.expr, namespace: dict[str, Any]) -> object:
    """What `f` or `module.f` names in `namespace`, or None when the tree cannot tell."""
    if isinstance(function, ast.Name):
        return _hashable(namespace.get(function.id))
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
        owner = namespace.get(function.value.id)
        return _hashable(getattr(owner, function.attr, None))
    return None


def _hashable(thing: object) -> object:
    try:
        hash(thing)
    except TypeError:
        return None
    return thing
