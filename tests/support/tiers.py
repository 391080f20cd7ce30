"""Each test's tier, derived from what it uses, not written by hand.

A helper or fixture that needs a kind of machine says so once, with :func:`needs`: ``require_sandbox``
(the real sandbox), ``require_docker`` (a Docker engine), the service support's servers (Redis, PostgreSQL,
``judge serve``), the network namespace hosts of tests/support/hosts.py (the service spread over separate hosts
on one machine; deselected by default, run by .ci/hosts-tier.sh), the browser fixture (Debian's chromium).  At
collection, :func:`derive` follows a test's fixtures and the functions its body calls (its own module's and the
test helpers', transitively, by the names its code uses) and gives it the heaviest tier it reaches; a test that
reaches none is ``unit``.  A tier marker set by hand that disagrees is a collection error, so ``pytest -m unit`` runs
every unit test and nothing else, and CI selects slow tiers with ``-m``.

``vm`` is not a tier: it marks the tests that run inside the cgroup v2 VM (deselected elsewhere).
"""

from __future__ import annotations

import inspect
import sys
import types
from collections.abc import Callable
from typing import Any

#: Lightest first; a test's tier is the heaviest one among what it uses.
TIERS = ("unit", "sandbox", "container", "service", "hosts", "browser")
#: Set by hand only, never derived: the tests that run inside the cgroup v2 VM (deselected elsewhere).
VM = "vm"
#: Parameter values that name an isolation mode: a test parametrized over modes reaches a mode's helper only in
#: the items whose parameters name that mode (see ``needs``).
MODES = ("full", "rootless", "reduced", "container", "none")
_DECLARED: dict[Any, tuple[str, str | None, tuple[str, ...]]] = {}


def needs(tier: str, only_for: str | None = None, among: tuple[str, ...] = MODES) -> Callable:
    """Declare that a helper, fixture function or class needs ``tier``'s machine (see the module's docstring).

    ``only_for``: in a test parametrized over ``among`` (the isolation modes by default), only the items whose
    parameters include ``only_for`` reach it: a ``judge_for(mode)`` helper asks for Docker only for mode
    container; a store fixture starts PostgreSQL only for its "postgresql" parameter."""
    assert tier in TIERS and (only_for is None or only_for in among), (tier, only_for)

    def mark(obj):
        _DECLARED[_key(obj)] = (tier, only_for, tuple(among))
        return obj

    return mark


def _key(obj: Any) -> Any:
    return getattr(obj, "__wrapped__", obj)


def _is_test_helper(obj: Any) -> bool:
    module = getattr(obj, "__module__", "") or ""
    top = module.split(".")[0]
    return top == "tests" or module.startswith("test_") or module in _helper_modules()


def _helper_modules() -> set[str]:
    return {name for name, mod in sys.modules.items()
            if mod is not None and (getattr(mod, "__file__", "") or "").startswith(_TESTS_DIR)}


_TESTS_DIR = __file__.rsplit("/", 2)[0] + "/"  # tests/, this module being tests/support/tiers.py


def _codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _referenced(obj: Any) -> list[Any]:
    """The objects ``obj``'s code names: globals of its module, members of test modules it imports."""
    functions = []
    if inspect.isclass(obj):
        functions = [v for v in vars(obj).values() if inspect.isfunction(v)]
    elif inspect.isfunction(obj) or inspect.ismethod(obj):
        functions = [_key(obj)]
    found = []
    for fn in functions:
        scope = dict(getattr(fn, "__globals__", {}))
        names: set[str] = set()
        for code in _codes(fn.__code__):
            names.update(code.co_names)
        for name in list(names):  # local imports: ``from tests.x import y`` names module "tests.x" and member "y"
            module = sys.modules.get(name)
            if module is not None and (getattr(module, "__file__", "") or "").startswith(_TESTS_DIR):
                scope.update(vars(module))
        for value in scope.values():  # names bound to a test module: its members too
            if isinstance(value, types.ModuleType) and (getattr(value, "__file__", "") or "").startswith(_TESTS_DIR):
                for name in names:
                    if hasattr(value, name):
                        found.append(getattr(value, name))
        found += [scope[name] for name in names if name in scope]
    return found


def derive(test: Any, fixtures: list[Any], params: dict | None = None) -> str:
    """The heaviest tier ``test`` (a function) and ``fixtures`` (their functions) reach, for the item with
    parameters ``params``."""
    values = {v for v in (params or {}).values() if isinstance(v, str)}
    best = 0
    seen: set[int] = set()
    todo = [test, *fixtures]
    while todo:
        obj = _key(todo.pop())
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        declared = _DECLARED.get(obj)
        if declared is not None:
            tier, only_for, among = declared
            if only_for is None or only_for in values or not values & set(among):
                best = max(best, TIERS.index(tier))
        if obj is test or obj in fixtures or _is_test_helper(obj):
            todo.extend(o for o in _referenced(obj) if inspect.isfunction(o) or inspect.isclass(o))
    return TIERS[best]
