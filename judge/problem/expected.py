"""Expected outputs: computed by the bundle's reference in the judge's process, once.

They are cached in memory and on disk, keyed by the bundle's digest and the
numpy version, and loaded memory-mapped: a verdict never recomputes them, and
no process the learner's code runs in ever holds them.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from pathlib import Path
from types import ModuleType

import numpy as np

from judge.errors import BundleError
from judge.problem.inputs import InputFile
from judge.problem.loader import Bundle

CACHE_SCHEMA = "1"


def cache_root() -> Path:
    base = os.environ.get("JUDGE_CACHE_DIR") or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                              os.path.expanduser("~/.cache"), "numpy-judge")
    return Path(base) / "expected"


def load_reference(bundle: Bundle) -> ModuleType:
    """Import the bundle's reference.py under a private module name."""
    path = bundle.reference_path
    spec = importlib.util.spec_from_file_location(f"_judge_reference_{bundle.id.replace('-', '_')}", path)
    if spec is None or spec.loader is None:
        raise BundleError(str(path), None, "cannot import the reference solution")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - a broken bundle is reported, not raised
        raise BundleError(str(path), None, f"the reference raised {type(exc).__name__}: {exc}") from None
    for f in bundle.spec.functions:
        if not callable(getattr(module, f.name, None)):
            raise BundleError(str(path), None, f"the reference does not define {f.name}()")
    return module


def _compute(bundle: Bundle, reference: ModuleType, inputs: InputFile, index: int) -> np.ndarray:
    case = bundle.cases.cases[index]
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


def _save_atomic(path: Path, array: np.ndarray) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, array, allow_pickle=False)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def expected_outputs(bundle: Bundle, inputs: InputFile, use_disk: bool = True) -> list[np.ndarray]:
    """One float64, C-contiguous expected array per case, from the disk cache when it is current."""
    folder = cache_root() / f"{bundle.id}-{bundle.digest}-np{np.__version__}-v{CACHE_SCHEMA}"
    reference: ModuleType | None = None
    outputs = []
    disk_ok = use_disk
    if disk_ok:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            disk_ok = False
    for index, case in enumerate(bundle.cases.cases):
        path = folder / f"{index:04d}-{case.id}.npy"
        if disk_ok and path.is_file():
            try:
                outputs.append(np.load(path, mmap_mode="r", allow_pickle=False))
                continue
            except (OSError, ValueError):
                pass  # a damaged cache file is recomputed
        if reference is None:
            reference = load_reference(bundle)
        out = _compute(bundle, reference, inputs, index)
        if disk_ok:
            try:
                _save_atomic(path, out)
                out = np.load(path, mmap_mode="r", allow_pickle=False)
            except OSError:
                pass
        outputs.append(out)
    return outputs
