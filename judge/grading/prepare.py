"""A bundle made ready to grade against: inputs laid out, expected outputs computed, slots planned.

Built once per bundle version and kept by :class:`judge.Judge`, so a verdict
costs one sandboxed run plus the comparisons, nothing more.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
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

    def __post_init__(self) -> None:
        self.call_specs = self.calls()
        self.slot_offsets = [c.slot_offset for c in self.cases]
        self.private_paths = private_paths(self.bundle.root)

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

    def reference(self):  # noqa: ANN201 - the bundle's module
        """The bundle's reference module, imported once (in the judge's process: it is trusted code)."""
        if getattr(self, "_reference", None) is None:
            from judge.problem.expected import load_reference

            self._reference = load_reference(self.bundle)
        return self._reference

    def close(self) -> None:
        self.inputs.close()


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
