"""Materialises the cases' arguments: seeded arrays laid out in one sealed memfd.

Every array argument of every case gets a region of the input file holding its
*base* buffer (for a strided layout, the larger array it is a view of).  The
child maps the file copy-on-write, so nothing it does can change what the judge
or the next submission sees; the judge keeps the file sealed and read-only.
"""

from __future__ import annotations

import fcntl
import mmap
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judge.problem.models import ArrayArg, CaseSpec, Generate
from judge.sandbox.wire import align


@dataclass
class CaseInputs:
    """One case's arguments: the judge's own (read-only) view and the child's description."""

    values: dict[str, Any]
    wire: list[tuple[str, dict]]


@dataclass
class InputFile:
    """All cases' array arguments in one sealed memfd, plus per-case argument sets."""

    fd: int | None
    size: int
    cases: list[CaseInputs] = field(default_factory=list)
    _map: mmap.mmap | None = None

    def close(self) -> None:
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:
                pass  # arrays still view it; released with them
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def generate(spec: Generate) -> np.ndarray:
    rng = np.random.default_rng(spec.seed)
    shape = tuple(spec.shape)
    if spec.distribution == "normal":
        arr = rng.standard_normal(shape) * spec.scale
    elif spec.distribution == "uniform":
        arr = rng.uniform(-spec.scale, spec.scale, shape)
    elif spec.distribution == "ones":
        arr = np.ones(shape) * spec.scale
    elif spec.distribution == "zeros":
        arr = np.zeros(shape)
    else:
        arr = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * spec.scale
    return arr.astype(spec.dtype)


def _logical(arg: ArrayArg) -> np.ndarray:
    if arg.generate is not None:
        return generate(arg.generate)
    return np.asarray(arg.literal, dtype=arg.dtype or "float64")


def _base_and_view(arg: ArrayArg) -> tuple[np.ndarray, np.ndarray]:
    """The buffer to store and the view of it the function receives."""
    logical = _logical(arg)
    if arg.layout == "fortran":
        base = np.asfortranarray(logical)
        return base, base
    if arg.layout == "strided" and logical.ndim >= 1:
        shape = logical.shape[:-1] + (logical.shape[-1] * 2,)
        base = np.full(shape, np.nan, dtype=logical.dtype)  # the skipped elements are never valid data
        view = base[..., ::2]
        view[...] = logical
        return base, view
    base = np.ascontiguousarray(logical)
    return base, base


def build_input_file(cases: list[CaseSpec]) -> InputFile:
    """Lay out every case's arrays in one memfd, sealed against any further change."""
    planned: list[list[tuple[str, Any, np.ndarray | None, np.ndarray | None, bool]]] = []
    size = 0
    for case in cases:
        args = []
        for name, value in case.args.items():
            if isinstance(value, ArrayArg):
                base, view = _base_and_view(value)
                args.append((name, size, base, view, value.readonly))
                size = align(size + base.nbytes)
            else:
                args.append((name, value, None, None, False))
        planned.append(args)
    if size == 0:
        return InputFile(None, 0, [CaseInputs({n: v for n, v, *_ in args}, [(n, {"scalar": v}) for n, v, *_ in args])
                                   for args in planned])
    fd = os.memfd_create("judge-inputs", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    with mmap.mmap(fd, size, access=mmap.ACCESS_WRITE) as writable:
        for args in planned:
            for _, offset, base, _, _ in args:
                if base is not None:
                    target = np.ndarray(base.shape, base.dtype, buffer=writable, offset=offset,
                                        strides=base.strides)
                    target[...] = base
                    del target
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
    readable = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
    result = InputFile(fd, size, _map=readable)
    for args in planned:
        values: dict[str, Any] = {}
        wire: list[tuple[str, dict]] = []
        for name, offset, base, view, readonly in args:
            if base is None:
                values[name] = offset
                wire.append((name, {"scalar": offset}))
                continue
            view_offset = offset + (view.__array_interface__["data"][0] - base.__array_interface__["data"][0])
            judge_view = np.ndarray(view.shape, view.dtype, buffer=readable, offset=view_offset, strides=view.strides)
            values[name] = judge_view
            wire.append((name, {"array": {"offset": view_offset, "nbytes": base.nbytes, "dtype": view.dtype.str,
                                          "shape": list(view.shape), "strides": list(view.strides),
                                          "readonly": readonly, "region": offset}}))
        result.cases.append(CaseInputs(values, wire))
    return result
