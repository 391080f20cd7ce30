"""A bundle made ready to grade against: inputs laid out, expected outputs computed, slots planned.

Built once per bundle version and kept by :class:`judge.Judge`, so a verdict
costs one sandboxed run plus the comparisons, nothing more.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from judge.problem.cache import bundle_cache_dir
from judge.problem.expected import expected_outputs
from judge.problem.inputs import InputFile, build_input_file
from judge.problem.loader import Bundle
from judge.problem.models import CaseSpec, Tolerance
from judge.problem.private_paths import private_paths
from judge.sandbox import Call, RunLimits, RunRequest, wire


@dataclass
class PreparedCase:
    spec: CaseSpec
    expected: np.ndarray
    tolerance: Tolerance
    output_dtypes: list[str]
    wall_seconds: float
    slot_offset: int
    slot_capacity: int
    #: a function returning a tuple: each item's expected shape (``expected`` holds their values one after another)
    parts: tuple[tuple[int, ...], ...] | None = None
    #: what the harness is told the function returns (array, scalar, tuple:<k>)
    returns: str = "array"
    #: the tuple's item names (problem.yaml's ``returns: {tuple: [...]}``), for feedback
    part_names: tuple[str, ...] | None = None

    def item(self, k: int) -> str:
        """The name of tuple item ``k``, as feedback says it."""
        return self.part_names[k] if self.part_names and k < len(self.part_names) else f"item {k}"


@dataclass
class PreparedProblem:
    bundle: Bundle
    inputs: InputFile
    cases: list[PreparedCase]
    result_size: int
    mtimes: tuple[float, ...]
    measure_errors: bool = False  # every compared case records facts.tolerance_ratio (judge verify sets it)
    cached_inputs: Path | None = None  #: the disk cache's copy of the input bytes, when there is one

    #: a phase of another prepared problem (:meth:`phases`): that problem, and which of its cases these are
    parent: PreparedProblem | None = None
    indices: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        self.call_specs = self.calls()
        self.slot_offsets = [c.slot_offset for c in self.cases]
        self.private_paths = private_paths(self.bundle.root)
        self._phases: tuple[PreparedProblem, PreparedProblem] | None = None

    def calls(self) -> tuple[Call, ...]:
        """What the sandboxed harness needs per case: function, arguments, slot and time limit."""
        return tuple(Call(case=i, function=c.spec.function, args=self.inputs.cases[i].wire,
                          slot_offset=c.slot_offset, slot_capacity=c.slot_capacity, wall_seconds=c.wall_seconds,
                          returns=c.returns)
                     for i, c in enumerate(self.cases))

    def run_request(self, source: str) -> RunRequest:
        """The sandbox's request for one run of ``source`` (decoded and statically checked) on every case."""
        limits = self.bundle.spec.limits
        return RunRequest(
            source=source, calls=self.call_specs, input_size=self.inputs.size, result_size=self.result_size,
            limits=RunLimits(cpu_seconds=limits.cpu_seconds, wall_seconds=limits.wall_seconds,
                             memory_bytes=limits.memory_mib << 20, max_processes=limits.processes,
                             output_bytes=limits.output_kib << 10),
            hide=tuple(self.private_paths))

    def bundle_index(self, i: int) -> int:
        """The bundle's index of this problem's case ``i`` (a phase's cases are some of the bundle's): what caches
        of per-case results are keyed by, so that every phase and the whole suite share them."""
        return self.indices[i] if self.parent is not None else i

    def phases(self) -> tuple[PreparedProblem, PreparedProblem] | None:
        """(the public cases, the hidden cases), each a prepared problem of its own whose input file holds its
        own cases' arguments and nothing else; None when the bundle has only one kind (one run grades it).

        A learner sees everything a public case's call prints or raises, and the file can read every argument
        its run was given: a run of public cases that was given no hidden argument cannot show one.  Built once
        per bundle version; the hidden phase's input bytes are cached on disk like the whole suite's."""
        if self.parent is not None:
            return None
        if self._phases is None:
            public = tuple(i for i, c in enumerate(self.cases) if c.spec.visibility == "public")
            hidden = tuple(i for i, c in enumerate(self.cases) if c.spec.visibility != "public")
            if not public or not hidden:
                return None
            self._phases = (self._subset(public, "public"), self._subset(hidden, "hidden"))
        return self._phases

    def _subset(self, indices: tuple[int, ...], name: str) -> PreparedProblem:
        folder = bundle_cache_dir(self.bundle.id, self.bundle.digest)
        if folder is not None:
            try:
                (folder / name).mkdir(exist_ok=True)
                folder = folder / name
            except OSError:
                folder = None
        inputs = build_input_file([self.cases[i].spec for i in indices], folder)
        cases: list[PreparedCase] = []
        offset = 0
        for i in indices:
            cases.append(replace(self.cases[i], slot_offset=offset))
            offset += wire.slot_size(self.cases[i].slot_capacity)
        cached = folder / "inputs.bin" if folder is not None else None
        return PreparedProblem(self.bundle, inputs, cases, offset, self.mtimes, measure_errors=self.measure_errors,
                               cached_inputs=cached if cached is not None and cached.is_file() else None,
                               parent=self, indices=indices)

    def reference(self):  # noqa: ANN201 - the bundle's module
        """The bundle's reference module, imported once (in the judge's process: it is trusted code)."""
        if self.parent is not None:
            return self.parent.reference()
        if getattr(self, "_reference", None) is None:
            from judge.problem.expected import load_reference

            self._reference = load_reference(self.bundle)
        return self._reference

    def close(self) -> None:
        self.inputs.close()
        for phase in self._phases or ():
            phase.close()


def bundle_mtimes(root: Path) -> tuple[float, ...]:
    """The bundle's files' times, its translations' included (a new French message reloads the bundle)."""
    files = [p for p in sorted(root.glob("*")) if p.is_file()] + sorted((root / "translations").glob("*.y*ml"))
    return tuple(os.stat(p).st_mtime_ns for p in files)


def prepare(bundle: Bundle) -> PreparedProblem:
    """Inputs laid out, expected outputs computed (or read from the disk cache), slots planned.  The run is
    written down for the next cold start by :func:`judge.grading.run_plan.prepare_and_plan`."""
    cache_dir = bundle_cache_dir(bundle.id, bundle.digest)
    inputs = build_input_file(bundle.cases.cases, cache_dir)
    expected = expected_outputs(bundle, inputs)
    cases: list[PreparedCase] = []
    offset = 0
    for spec, exp in zip(bundle.cases.cases, expected):
        function = bundle.spec.function(spec.function)
        capacity = max(int(exp.values.nbytes), 4096)
        cases.append(PreparedCase(
            spec=spec, expected=exp.values, tolerance=spec.tolerance or bundle.spec.tolerance,
            output_dtypes=list(spec.output_dtypes or function.output_dtypes),
            wall_seconds=spec.case_wall_seconds or bundle.spec.limits.case_wall_seconds,
            slot_offset=offset, slot_capacity=capacity, parts=exp.parts, returns=function.wire_returns,
            part_names=tuple(function.part_names) if function.part_names else None))
        offset += wire.slot_size(capacity)
    prepared = PreparedProblem(bundle, inputs, cases, offset, bundle_mtimes(bundle.root))
    cached_inputs = cache_dir / "inputs.bin" if cache_dir is not None else None
    prepared.cached_inputs = cached_inputs if cached_inputs is not None and cached_inputs.is_file() else None
    return prepared
