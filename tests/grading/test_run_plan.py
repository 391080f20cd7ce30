"""The run plan (judge.grading.run_plan): a cold start begins the learner's run before its heavy imports.

The plan is a guess: these tests check that a current plan's early run is the one the judge
uses, and that a plan which differs in any way from the prepared bundle (its request, its
input bytes, the bundle's files, the time scale) is never used for a verdict.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support.common import PROBLEM_DIR, SUBMISSIONS, require_sandbox
from tests.support.verdicts import _comparable


@pytest.fixture
def bundle_copy(tmp_path):
    """The sinusoidal-pe bundle in a folder of its own (so its own plan; the disk cache is shared by digest)."""
    root = tmp_path / "sinusoidal-pe"
    shutil.copytree(PROBLEM_DIR, root)
    (root / "notes.txt").write_text(f"a file of this copy's own, so that its plan is its own: {tmp_path}\n")
    yield root
    _plan_file(root).unlink(missing_ok=True)


def _plan_file(root: Path) -> Path:
    from judge.grading.run_plan import fingerprint, plan_path

    return plan_path(fingerprint(root))


def _prepare(root: Path):
    from judge.grading.run_plan import prepare_and_plan
    from judge.problem.loader import load_problem

    return prepare_and_plan(load_problem(root))


def _roundtrip(wire: dict) -> str:
    return json.dumps(json.loads(json.dumps(wire)), sort_keys=True)


def test_preparing_a_bundle_writes_its_plan_and_any_change_makes_it_stale(bundle_copy, monkeypatch):
    from judge.grading.run_plan import read_plan

    monkeypatch.delenv("JUDGE_TIME_SCALE", raising=False)
    prepared = _prepare(bundle_copy)
    try:
        plan = read_plan(bundle_copy)
        assert plan is not None
        phases = prepared.phases()
        assert phases is not None
        first = phases[0]  # a cold start grades in phases: its first run is the public cases'
        assert _roundtrip(plan.request_for("x = 1").to_wire()) == _roundtrip(first.run_request("x = 1").to_wire())
        assert plan.functions == [f.name for f in prepared.bundle.spec.functions]
        assert plan.inputs is not None and plan.inputs.stat().st_size == first.inputs.size
        assert first.inputs.same_bytes(os.open(plan.inputs, os.O_RDONLY))
    finally:
        prepared.close()
    monkeypatch.setenv("JUDGE_TIME_SCALE", "3")  # other limits: the plan is not this judge's
    assert read_plan(bundle_copy) is None
    monkeypatch.delenv("JUDGE_TIME_SCALE")
    assert read_plan(bundle_copy) is not None
    plan_file = _plan_file(bundle_copy)
    good = plan_file.read_text()
    plan_file.write_text("{not json")
    assert read_plan(bundle_copy) is None
    plan_file.write_text(good)
    moved = bundle_copy.rename(bundle_copy.parent / "elsewhere")  # as PrairieLearn mounts it per job
    assert read_plan(moved) is not None, "the plan goes with the files' content, not their folder or times"
    os.utime(moved / "statement.md")
    assert read_plan(moved) is not None
    with open(moved / "statement.md", "a") as f:
        f.write("\n")
    assert read_plan(moved) is None, "a bundle file changed after the plan was made"
    moved.rename(bundle_copy)
    plan_file.unlink()  # the fixture removes the plan of the files as they are now (none)


def _grade_early(root: Path, source: bytes, problem=None):
    """One cold-start grading as judge.oneshot does it, returning the early run for inspection."""
    from judge.engine import Judge
    from judge.grading.run_plan import EarlyRun
    from judge.sandbox.backends.factory import prestarted_factory_for

    with prestarted_factory_for() as factory:
        early = EarlyRun.start(factory.launched, source, root)
        with Judge(backend_factory=factory, phased=True) as judge:
            try:
                verdict = judge.grade(source, root, early=early)
            finally:
                if early is not None:
                    early.close()
    return verdict, early


@pytest.mark.parametrize("example", ["accepted/vectorised.py", "wrong_answer/sin_cos_swapped.py"])
def test_a_current_plan_starts_the_run_early_and_the_verdict_is_the_warm_judges(example, bundle_copy, judge):
    require_sandbox()
    _prepare(bundle_copy).close()
    source = (SUBMISSIONS / example).read_bytes()
    verdict, early = _grade_early(bundle_copy, source)
    assert early is not None and early.adopted is True
    warm = judge.grade(source, bundle_copy)
    assert _comparable(json.loads(verdict.model_dump_json())) == _comparable(json.loads(warm.model_dump_json()))
    assert verdict.status.value == example.split("/")[0]


def test_inputs_from_the_cache_get_their_sealed_memfd_only_when_a_run_needs_it(bundle_copy):
    """A cold start's early run brings its own copy of the input bytes: the prepared bundle maps the cache file
    and makes no memfd of its own unless a regular run asks for one, which is then sealed read-only."""
    import fcntl
    import mmap

    _prepare(bundle_copy).close()  # fills the disk cache
    prepared = _prepare(bundle_copy)
    try:
        inputs = prepared.inputs
        assert inputs.size > 0 and inputs._fd is None
        fd = inputs.fd
        assert fd is not None and inputs.fd == fd and inputs.same_bytes(fd)
        seals = fcntl.fcntl(fd, fcntl.F_GET_SEALS)
        assert seals & fcntl.F_SEAL_WRITE and seals & fcntl.F_SEAL_SHRINK and seals & fcntl.F_SEAL_GROW
        with pytest.raises(PermissionError):
            mmap.mmap(fd, inputs.size, access=mmap.ACCESS_WRITE)
        with pytest.raises(PermissionError):
            os.pwrite(fd, b"x", 0)
    finally:
        prepared.close()


def _edit_plan(root: Path, edit) -> None:
    path = _plan_file(root)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data, sort_keys=True))


def test_an_early_run_on_other_input_bytes_is_never_used(bundle_copy, tmp_path):
    # The plan points at input bytes of the right size with the first array value changed: what ran is not
    # what the bundle asks.  The judge must notice, run again on the real inputs, and accept.
    require_sandbox()
    _prepare(bundle_copy).close()
    from judge.grading.run_plan import read_plan

    forged = tmp_path / "inputs.bin"
    data = bytearray(read_plan(bundle_copy).inputs.read_bytes())
    data[:8] = struct.pack("<d", 12345.0)
    forged.write_bytes(bytes(data))
    _edit_plan(bundle_copy, lambda plan: plan.update(inputs=str(forged)))
    verdict, early = _grade_early(bundle_copy, (SUBMISSIONS / "accepted" / "vectorised.py").read_bytes())
    assert early is not None and early.adopted is False
    assert verdict.accepted, verdict.message


@pytest.mark.parametrize("field", ["limits", "calls"])
def test_an_early_run_of_another_request_is_never_used(field, bundle_copy):
    # A plan whose limits or calls differ from the bundle's (e.g. a bundle edited within the same second):
    # here a memory limit far above the bundle's, or a case missing, either of which would change the verdict.
    require_sandbox()
    _prepare(bundle_copy).close()

    def edit(plan: dict) -> None:
        if field == "limits":
            plan["request"]["limits"]["memory_bytes"] *= 8
        else:
            plan["request"]["calls"] = plan["request"]["calls"][:-1]

    _edit_plan(bundle_copy, edit)
    verdict, early = _grade_early(bundle_copy, (SUBMISSIONS / "memory_limit_exceeded" / "memory_hog.py").read_bytes())
    assert early is not None and early.adopted is False
    assert verdict.status.value == "memory_limit_exceeded", verdict.message


def test_no_plan_or_a_file_failing_the_static_check_starts_no_early_run(bundle_copy):
    require_sandbox()
    verdict, early = _grade_early(bundle_copy, (SUBMISSIONS / "accepted" / "vectorised.py").read_bytes())
    assert early is None and verdict.accepted, "no plan yet: the regular path"
    verdict, early = _grade_early(bundle_copy, (SUBMISSIONS / "compile_error" / "import_os.py").read_bytes())
    assert early is None
    assert verdict.status.value == "compile_error"


def test_only_a_prestarted_zygote_gets_an_early_run(bundle_copy):
    from judge.grading.run_plan import EarlyRun

    _prepare(bundle_copy).close()
    assert EarlyRun.start(None, b"x = 1", bundle_copy) is None  # the container backend: nothing launched ahead
    assert EarlyRun.start(SimpleNamespace(warm=False), b"x = 1", bundle_copy) is None  # a backend started per run
