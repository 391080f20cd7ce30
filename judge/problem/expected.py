"""Expected outputs: computed by the bundle's reference in the judge's process, once.

They are cached in memory and on disk, keyed by the bundle's digest and the
numpy version, and loaded memory-mapped: a verdict never recomputes them, and
no process the learner's code runs in ever holds them.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from judge.errors import BundleError
from judge.problem.cache import bundle_cache_dir, write_atomic
from judge.problem.inputs import InputFile
from judge.problem.loader import Bundle
from judge.problem.modules import import_bundle_file, require_callables


def load_reference(bundle: Bundle) -> ModuleType:
    """Import the bundle's reference.py under a private module name (a hand-out's recorded outputs instead)."""
    if bundle.spec.handout is not None:
        from judge.problem.recorded import load_recorded

        path = bundle.root / bundle.spec.handout.recorded
        module = load_recorded(path, "reference")
        require_callables(module, [f.name for f in bundle.spec.functions], path, "the recorded reference")
        return module  # type: ignore[return-value] - it answers like the module, on the public cases
    path = bundle.reference_path
    module = import_bundle_file(path, f"_judge_reference_{bundle.id.replace('-', '_')}", "the reference")
    require_callables(module, [f.name for f in bundle.spec.functions], path, "the reference")
    return module


def raises_expected(exc: BaseException, name: str) -> bool:
    """The exception is ``name`` or a subclass of it (matched by class name along its MRO)."""
    return any(k.__name__ == name for k in type(exc).__mro__)


def _compute(bundle: Bundle, reference: ModuleType, inputs: InputFile, index: int) -> np.ndarray:
    case = bundle.cases.cases[index]
    if case.raises is not None:  # the expected "output" is the exception; an empty array stands for it
        try:
            out = getattr(reference, case.function)(**inputs.cases[index].values)
        except Exception as exc:  # noqa: BLE001
            if raises_expected(exc, case.raises):
                return np.zeros((0,), dtype=np.float64)
            raise BundleError(str(bundle.reference_path), None, f"case {case.id} must raise {case.raises}, but the "
                                                                f"reference raised {type(exc).__name__}: {exc}") from None
        raise BundleError(str(bundle.reference_path), None,
                          f"case {case.id} must raise {case.raises}, but the reference returned {type(out).__name__}")
    try:
        out = getattr(reference, case.function)(**inputs.cases[index].values)
    except Exception as exc:  # noqa: BLE001
        raise BundleError(str(bundle.reference_path), None,
                          f"the reference raised {type(exc).__name__} on case {case.id}: {exc}") from None
    if type(out) is not np.ndarray or out.dtype.kind not in "iuf":
        raise BundleError(str(bundle.reference_path), None, f"case {case.id}: the reference did not return a numeric ndarray")
    if not np.isfinite(out).all():
        raise BundleError(str(bundle.reference_path), None, f"case {case.id}: the reference returned NaN or inf")
    return np.ascontiguousarray(out, dtype=np.float64)


def expected_outputs(bundle: Bundle, inputs: InputFile, use_disk: bool = True) -> list[np.ndarray]:
    """One float64, C-contiguous expected array per case, from the disk cache when it is current."""
    folder = bundle_cache_dir(bundle.id, bundle.digest) if use_disk else None
    reference: ModuleType | None = None
    outputs = []
    for index, case in enumerate(bundle.cases.cases):
        path = folder / f"expected-{index:04d}-{case.id}.npy" if folder else None
        if path is not None and path.is_file():
            try:
                outputs.append(np.load(path, mmap_mode="r", allow_pickle=False))
                continue
            except (OSError, ValueError):
                pass  # a damaged cache file is recomputed
        if reference is None:
            reference = load_reference(bundle)
        out = _compute(bundle, reference, inputs, index)
        if path is not None:
            try:
                write_atomic(path, lambda f, out=out: np.save(f, out, allow_pickle=False))
                out = np.load(path, mmap_mode="r", allow_pickle=False)
            except OSError:
                pass
        outputs.append(out)
    return outputs
