"""A prepared bundle's run, written down, so that a cold start can begin the learner's run first.

A one-shot ``judge grade``, and every packaged platform run (each submission a
cold start), spends ~0.3 s importing numpy, pydantic and the grading code and
loading the bundle before it can say what to run.  Yet the run's request
depends only on the prepared bundle: which functions, where each argument lies
in the input file, the result slots, the limits.  So whenever the judge
prepares a bundle it also writes that request, without a source, into the disk
cache (:func:`write_plan`).  A cold start reads it back with light imports only
(:func:`read_plan`), checks the learner's file statically, and sends the run to
the zygote as soon as the zygote is ready (:class:`EarlyRun`); its own imports
and the bundle's loading then happen while the learner's code runs.

A plan is a guess, never trusted: once the bundle is loaded the regular way,
the judge rebuilds the request and the input file, and uses the early run only
when both are identical to what ran (:meth:`EarlyRun.adopt`); otherwise it
waits for the early run to end and runs the submission again.  A stale, damaged
or missing plan costs time, never a wrong verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judge._version import __version__
from judge.problem.cache import cache_dir, write_atomic
from judge.problem.timescale import ENV as TIME_SCALE_ENV
from judge.sandbox import InBackground, RunReport, RunRequest, memfd

if TYPE_CHECKING:
    from judge.grading.prepare import PreparedProblem
    from judge.problem.loader import Bundle
    from judge.sandbox import SandboxBackend

PLAN_SCHEMA = 1
MAX_FINGERPRINTED = 8 << 20  # a bundle folder holding a larger file gets no plan (its hashing would cost more)


def fingerprint(root: Path) -> str | None:
    """A hash of the names and bytes of every file of the bundle folder: what a plan was made from.

    By content, not path or time: PrairieLearn mounts the bundle afresh for every job
    (``/grade/tests``), where the plan made while its image was built must still apply."""
    digest = hashlib.sha256()
    try:
        for path in sorted(root.iterdir()):
            if not path.is_file():
                continue
            data = path.read_bytes() if path.stat().st_size <= MAX_FINGERPRINTED else None
            if data is None:
                return None
            digest.update(f"{path.name}\0{len(data)}\0".encode())
            digest.update(hashlib.sha256(data).digest())
    except OSError:
        return None
    return digest.hexdigest()[:32]


def plan_path(key: str) -> Path | None:
    """Where the plan of bundle files with fingerprint ``key`` lives, in the judge's private cache (None when
    there is none: a plan from a folder others can write would choose the run)."""
    base = cache_dir()
    return base / "plans" / f"{key}.json" if base is not None else None


@dataclass(frozen=True)
class RunPlan:
    """What :func:`read_plan` found: the request's fields, the static check's rules, the input file."""

    root: Path  #: the bundle folder it was read for (hidden from the sandbox uid in mode reduced)
    request: dict  #: RunRequest.to_wire() without its source
    functions: list[str]
    allowed_imports: list[str]
    source_bytes: int
    inputs: Path | None  #: the cached input bytes the prepared bundle was copied from

    def request_for(self, source: str) -> RunRequest:
        """The run of ``source``; the paths to hide are those of the bundle where it is now (PrairieLearn mounts it
        elsewhere than where the plan was written)."""
        from judge.problem.private_paths import private_paths

        return RunRequest.from_wire({**self.request, "source": source, "hide": private_paths(self.root)})


def prepare_and_plan(bundle: Bundle) -> PreparedProblem:
    """:func:`judge.grading.prepare.prepare`, and the run written down for the next cold start."""
    from judge.grading.prepare import prepare

    prepared = prepare(bundle)
    # A cold start grades in phases (learner-facing doors: public cases first, in a run given no hidden
    # argument): its first run is the public phase's, where the bundle has both kinds.
    phases = prepared.phases()
    first = phases[0] if phases is not None else prepared
    write_plan(first, first.cached_inputs)
    return prepared


def write_plan(prepared: PreparedProblem, inputs: Path | None) -> None:
    """Record ``prepared``'s run (``inputs``: the cache file its input bytes came from); best effort:
    a plan that cannot be written only makes the next cold start take the regular path."""
    bundle = prepared.bundle
    spec = bundle.spec
    key = fingerprint(bundle.root)
    if key is None:
        return
    request = prepared.run_request("").to_wire()
    del request["source"], request["hide"]
    text = json.dumps({
        "schema": PLAN_SCHEMA, "judge": __version__, "time_scale": os.environ.get(TIME_SCALE_ENV, ""),
        "request": request, "functions": [f.name for f in spec.functions],
        "allowed_imports": list(spec.imports.allowed), "source_bytes": spec.limits.source_kib * 1024,
        "inputs": str(inputs) if inputs is not None else None,
    }, sort_keys=True)
    path = plan_path(key)
    if path is None:
        return
    try:
        if path.is_file() and path.read_text() == text:
            return  # e.g. a read-only image whose plan was written when it was built
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, lambda f: f.write(text.encode()))
    except OSError:
        pass


def read_plan(root: Path) -> RunPlan | None:
    """The plan for the bundle at ``root`` if one was made from files with the same names and bytes, by this
    judge version, with the same time scale; else None."""
    key = fingerprint(root)
    path = plan_path(key) if key is not None else None
    if path is None:
        return None
    try:
        data = json.loads(path.read_text())
        if (data.get("schema") != PLAN_SCHEMA or data["judge"] != __version__
                or data["time_scale"] != os.environ.get(TIME_SCALE_ENV, "")):
            return None
        inputs = Path(data["inputs"]) if data["inputs"] is not None else None
        return RunPlan(root=root, request=data["request"], functions=list(data["functions"]),
                       allowed_imports=list(data["allowed_imports"]), source_bytes=int(data["source_bytes"]),
                       inputs=inputs)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


class EarlyRun:
    """The first run of a cold start, begun from a plan on the backend the start-up launched.

    The run goes in a thread, which waits for the zygote's hello, readies the result buffer
    and sends the request; the caller goes on with its imports.  :meth:`adopt` hands the
    report to the judge when the run is the one it would have made; :meth:`close` waits for
    the run in any case (the backend is the early run's until the run is over)."""

    def __init__(self, plan: RunPlan, backend: SandboxBackend, request: RunRequest) -> None:
        self.plan = plan
        self.backend = backend
        self.request = request
        self.inputs_fd: int | None = None  #: the sealed input file, made in the thread (off the start-up's path)
        self.started = time.perf_counter()
        self.adopted: bool | None = None  #: set by adopt(): whether the judge used this run
        self._inputs_ready = threading.Event()  #: set once inputs_fd is made (or could not be)
        self._running = InBackground(self._run, "judge-early-run")

    @classmethod
    def start(cls, backend: SandboxBackend | None, source: str | bytes, problem: str | Path,
              name: str | None = None) -> EarlyRun | None:
        """Begin ``source``'s run on ``backend`` if the bundle has a current plan and the file passes its
        static check; else None (the judge then takes the regular path, which reports any problem).
        ``name``: the file's name, if it has one (a notebook by it, as the judge will decide)."""
        from judge.grading.static_check import check_source, decode_source

        if backend is None or not backend.warm:
            return None  # a backend that starts per run (a container) has nothing to begin early
        try:
            from judge.problem.locate import resolve

            plan = read_plan(resolve(problem))
        except Exception:  # noqa: BLE001 - the regular path says what is wrong with the problem
            return None
        if plan is None:
            return None
        from judge.notebooks import ReaderFailed, read_submission

        try:  # a notebook is graded by the statements its functions reach, as the judge will
            submitted = read_submission(source, plan.functions, name)
        except ReaderFailed:
            return None
        if submitted.refused:
            return None
        source = submitted.source
        text, issue = decode_source(source, plan.source_bytes)
        if text is None or issue is not None or check_source(text, plan.functions, plan.allowed_imports):
            return None
        if plan.request.get("input_size") and plan.inputs is None:
            return None
        return cls(plan, backend, plan.request_for(text))

    def _run(self) -> RunReport:
        try:
            if self.request.input_size and self.plan.inputs is not None:  # with a size, a plan has inputs
                self.inputs_fd = memfd.sealed_copy("judge-inputs", self.plan.inputs, self.request.input_size)
        finally:
            self._inputs_ready.set()
        buffer = self.backend.result_buffer_for(self.request.result_size)
        buffer.start_run([call.slot_offset for call in self.request.calls])
        return self.backend.run(self.request, self.inputs_fd)

    def adopt(self, backend: SandboxBackend, prepared: PreparedProblem, request: RunRequest,
              meanwhile: Callable[[InBackground], None] | None = None, last: bool = True) -> RunReport | None:
        """The early run's report if it ran ``request`` on ``backend`` with ``prepared``'s exact inputs;
        else None, once the run is over (the judge then runs the submission the regular way).  The request
        is compared while the run goes on, the input bytes as soon as the thread has made its copy; once the
        run is known to be the right one, ``meanwhile(run)`` is called while it goes on (the judge judges the
        slots it finishes).  ``last``: no other run of this submission follows (a phased grading's public run
        is followed by its hidden one): the backend may then finish alone."""
        same = (backend is self.backend
                and json.dumps(request.to_wire(), sort_keys=True) == json.dumps(self.request.to_wire(), sort_keys=True))
        if same and request.input_size:
            self._inputs_ready.wait()
            same = self.inputs_fd is not None and prepared.inputs.same_bytes(self.inputs_fd)
        try:
            if same and meanwhile is not None:
                meanwhile(self._running)
        finally:
            self._running.join()
        self.adopted = same
        if not same:
            return None
        report = self._running.result()  # what the run raised is raised here, in the judge's thread
        if last:
            self.backend.retire()  # a one-shot start makes no second run: the zygote may finish alone
        return report

    def close(self) -> None:
        """Wait for the run to end, then release the input file."""
        self._running.join()
        if self.inputs_fd is not None:
            os.close(self.inputs_fd)
            self.inputs_fd = None
