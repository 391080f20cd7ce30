"""The core of the service reaches the learner side only through its hook (judge.service.learner_hooks).

The worker and the rejudge are the core; the learner side (``judge.service.lti``) is built on them.  Only the
two places where a process starts (the app, ``judge worker``) name the learner side, to register its hooks."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICE = Path(__file__).resolve().parents[2] / "judge" / "service"
#: Where a process starts: they assemble the service, so they may name the learner side to register it.
ENTRIES = {"app.py", "celery_app.py"}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def test_the_core_does_not_import_the_learner_side():
    reaching = {str(p.relative_to(SERVICE)): sorted(m for m in _imports(p) if m.startswith("judge.service.lti"))
                for p in SERVICE.rglob("*.py") if "lti" not in p.relative_to(SERVICE).parts
                and p.name not in ENTRIES}
    assert {k: v for k, v in reaching.items() if v} == {}


def test_registering_the_learner_side_gives_the_core_its_hooks():
    """(That ``LtiHooks`` meets the contract is mypy's check: ``register`` passes it where the protocol is due.)"""
    from judge.service import learner_hooks
    from judge.service.lti.hooks import LtiHooks, register

    before = learner_hooks.registered()
    try:
        register()
        assert isinstance(learner_hooks.registered(), LtiHooks)
    finally:
        learner_hooks.register(before)
