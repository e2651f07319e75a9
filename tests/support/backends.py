"""Which tests are conversation tests: those that `tests/conftest.py` runs on every backend
because their call opens the default store.

A test is one when its code, or a function or class of the test suite that its code
names, or a method it calls on an object of the suite's (followed as deep as it goes),
calls `call_session` or `voice_call_session` without a `store` or `database_url` of its
own: such a call opens its demo store in a scratch database, which the conftest makes on
the test's backend. The check reads the
syntax tree, so comments, docstrings and strings never count.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import FunctionType
from typing import Any

SESSION_FUNCTIONS = frozenset({"call_session", "voice_call_session"})
OWN_STORE_ARGUMENTS = frozenset({"store", "database_url"})
"""Given either, a call does not open the default store."""
_TESTS = Path(__file__).resolve().parents[1]


def opens_the_default_store(test: Callable[..., Any]) -> bool:
    """Whether `test` (a test function) opens a call on the default store, itself or
    through a helper of the suite."""
    return _opens(test, set())


def _opens(thing: object, seen: set[int]) -> bool:
    if id(thing) in seen:
        return False
    seen.add(id(thing))
    tree = syntax_of(thing)
    if tree is None:
        return False
    namespace = namespace_of(thing)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called_name(node.func) in SESSION_FUNCTIONS:
            # `**options` may hold a store: not counted (the conftest's check catches it).
            if not any(
                keyword.arg is None or keyword.arg in OWN_STORE_ARGUMENTS
                for keyword in node.keywords
            ):
                return True
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            named = namespace.get(node.id)
            if of_the_suite(named) and _opens(named, seen):
                return True
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            # `REQUEST.at_question(...)`: a method of an object of a suite's class.
            method = _method_of(namespace.get(node.value.id), node.attr)
            if method is not None and _opens(method, seen):
                return True
    return False


def _method_of(instance: object, name: str) -> object | None:
    """The method `name` of the class of `instance`, when that class is the suite's."""
    kind = type(instance)
    if inspect.isclass(instance) or not of_the_suite(kind):
        return None
    method = inspect.getattr_static(kind, name, None)
    return method if of_the_suite(method) else None


def _called_name(function: ast.expr) -> str | None:
    """`f` for `f(...)` and `module.f(...)`."""
    if isinstance(function, ast.Name):
        return function.id
    if isinstance(function, ast.Attribute):
        return function.attr
    return None


def syntax_of(thing: object) -> ast.AST | None:
    """The syntax tree of a function or class of the suite, decorators undone."""
    if inspect.isfunction(thing):
        thing = inspect.unwrap(thing)
    try:
        source = inspect.getsource(thing)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return None
    return _parsed(textwrap.dedent(source))


@cache
def _parsed(source: str) -> ast.AST:
    return ast.parse(source)


def namespace_of(thing: object) -> dict[str, Any]:
    """The module globals a function or class looks its names up in: a decorated
    function's own (an `asynccontextmanager`'s wrapper has the library's)."""
    if isinstance(thing, FunctionType):
        return inspect.unwrap(thing).__globals__
    module = sys.modules.get(getattr(thing, "__module__", ""))
    return vars(module) if module is not None else {}


def of_the_suite(thing: object) -> bool:
    """A function or class defined in a module under `tests/`, not in the project's code
    or a library."""
    if not (inspect.isfunction(thing) or inspect.isclass(thing)):
        return False
    module = sys.modules.get(getattr(thing, "__module__", ""))
    file = getattr(module, "__file__", None)
    return file is not None and Path(file).resolve().is_relative_to(_TESTS)
