"""Expected outputs: computed by the bundle's reference in the judge's process, once.

They are cached in memory and on disk, keyed by the bundle's digest and the
numpy version, and loaded memory-mapped: a verdict never recomputes them, and
no process the learner's code runs in ever holds them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from judge.errors import BundleError
from judge.problem.cache import bundle_cache_dir, write_atomic
from judge.problem.inputs import InputFile
from judge.problem.loader import Bundle
from judge.problem.models import FunctionSpec
from judge.problem.modules import import_bundle_file, require_callables
from judge.sandbox import NotAnOutput, Packed, pack


@dataclass(frozen=True)
class Expected:
    """A case's expected output as the judge compares it: float64 values (a tuple's items one after another, see
    :mod:`judge.sandbox.boundary.outputs`) and, for a function returning a tuple, each item's shape."""

    values: np.ndarray
    parts: tuple[tuple[int, ...], ...] | None = None


def packed_output(function: FunctionSpec, value: Any) -> Packed:
    """What ``function`` returned, as the harness packs a learner's value (:func:`judge.sandbox.boundary.outputs.pack`):
    the reference's and the bank's outputs are compared in the same form.  Raises NotAnOutput."""
    return pack(value, function.wire_returns)


def load_reference(bundle: Bundle) -> ModuleType:
    """Import the bundle's reference.py under a private module name (a hand-out's recorded outputs instead)."""
    if bundle.spec.handout is not None:
        from judge.problem.recorded import load_recorded

        path = bundle.root / bundle.spec.handout.recorded
        recorded = load_recorded(path, "reference")
        require_callables(recorded, [f.name for f in bundle.spec.functions], path, "the recorded reference")
        return recorded  # type: ignore[return-value]  # it answers like the module, on the public cases
    path = bundle.reference_path
    module = import_bundle_file(path, f"_judge_reference_{bundle.id.replace('-', '_')}", "the reference")
    require_callables(module, [f.name for f in bundle.spec.functions], path, "the reference")
    return module


def raises_expected(exc: BaseException, name: str) -> bool:
    """The exception is ``name`` or a subclass of it (matched by class name along its MRO)."""
    return any(k.__name__ == name for k in type(exc).__mro__)


def _compute(bundle: Bundle, reference: ModuleType, inputs: InputFile, index: int) -> Expected:
    case = bundle.cases.cases[index]
    if case.raises is not None:  # the expected "output" is the exception; an empty array stands for it
        try:
            out = getattr(reference, case.function)(**inputs.cases[index].values)
        except Exception as exc:  # noqa: BLE001
            if raises_expected(exc, case.raises):
                return Expected(np.zeros((0,), dtype=np.float64))
            raise BundleError(
                str(bundle.reference_path),
                None,
                f"case {case.id} must raise {case.raises}, but the reference raised {type(exc).__name__}: {exc}",
            ) from None
        raise BundleError(str(bundle.reference_path), None,
                          f"case {case.id} must raise {case.raises}, but the reference returned {type(out).__name__}")
    try:
        out = getattr(reference, case.function)(**inputs.cases[index].values)
    except Exception as exc:  # noqa: BLE001
        raise BundleError(str(bundle.reference_path), None,
                          f"the reference raised {type(exc).__name__} on case {case.id}: {exc}") from None
    function = bundle.spec.function(case.function)
    try:
        packed = packed_output(function, out)
    except NotAnOutput as what:
        raise BundleError(
            str(bundle.reference_path),
            None,
            f"case {case.id}: the reference returned {what}; {function.name} returns {function.wire_returns}",
        ) from None
    if not np.isfinite(packed.values).all():
        raise BundleError(str(bundle.reference_path), None, f"case {case.id}: the reference returned NaN or inf")
    return Expected(np.array(packed.values, dtype=np.float64, order="C"), packed.part_shapes)  # 0-d stays 0-d


def _load(path) -> np.ndarray:  # noqa: ANN001 - a Path
    """A cached expected output, memory-mapped; a single value read as it is (numpy maps a 0-d array as shape
    (1,): a function returning one number would then expect an array)."""
    values = np.load(path, mmap_mode="r", allow_pickle=False)
    return np.load(path, allow_pickle=False) if values.size == 1 else values


def _load_cached(path, parts_path, tuple_output: bool) -> Expected | None:  # noqa: ANN001 - Paths
    """A cached expected output (its items' shapes from their own file for a tuple), or None to recompute."""
    try:
        values = _load(path)
        parts = None
        if tuple_output:
            parts = tuple(tuple(int(n) for n in shape) for shape in json.loads(parts_path.read_text()))
            if sum(int(np.prod(s, dtype=np.int64)) for s in parts) != values.size:
                return None
        return Expected(values, parts)
    except (OSError, ValueError, TypeError):
        return None  # a damaged cache file is recomputed


def expected_outputs(bundle: Bundle, inputs: InputFile, use_disk: bool = True) -> list[Expected]:
    """One float64, C-contiguous expected output per case, from the disk cache when it is current."""
    folder = bundle_cache_dir(bundle.id, bundle.digest) if use_disk else None
    reference: ModuleType | None = None
    outputs = []
    for index, case in enumerate(bundle.cases.cases):
        path = folder / f"expected-{index:04d}-{case.id}.npy" if folder else None
        parts_path = folder / f"expected-{index:04d}-{case.id}.parts.json" if folder else None
        tuple_output = bundle.spec.function(case.function).part_names is not None and case.raises is None
        if path is not None and path.is_file():
            cached = _load_cached(path, parts_path, tuple_output)
            if cached is not None:
                outputs.append(cached)
                continue
        if reference is None:
            reference = load_reference(bundle)
        out = _compute(bundle, reference, inputs, index)
        if path is not None:
            try:
                if out.parts is not None and parts_path is not None:
                    write_atomic(parts_path, lambda f, out=out: f.write(json.dumps(out.parts).encode()))  # type: ignore[misc]  # mypy cannot type a lambda with a default
                write_atomic(path, lambda f, out=out: np.save(f, out.values, allow_pickle=False))  # type: ignore[misc]  # mypy cannot type a lambda with a default
                out = Expected(_load(path), out.parts)
            except OSError:
                pass
        outputs.append(out)
    return outputs
