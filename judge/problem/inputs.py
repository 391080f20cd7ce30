"""Materialises the cases' arguments: seeded arrays laid out in one input file.

Every array argument of every case gets a region of the input file holding its
*base* buffer (for a strided layout, the wider array it is a view of).  The
layout is planned from the case specs alone; the bytes are generated once and
cached on disk beside the expected outputs, so a cold start maps them instead of
drawing ~30 MB of random numbers again.  Runs get the bytes as a sealed,
read-only memfd, which the child maps copy-on-write, so nothing it does can
change what the judge or the next submission sees.
"""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from judge.problem.cache import write_atomic
from judge.problem.models import ArrayArg, CaseSpec, Generate
from judge.sandbox import ArgSpec, ArrayRef, memfd
from judge.sandbox import wire as slot_layout  # "wire" is a local name below: the arguments as they cross


@dataclass
class CaseInputs:
    """One case's arguments: the judge's own (read-only) view and the child's description."""

    values: dict[str, Any]
    wire: tuple[ArgSpec, ...]


@dataclass
class InputFile:
    """All cases' array arguments in one file, plus per-case argument sets.

    Runs get a sealed memfd (:attr:`fd`).  When the bytes come from the disk cache, the judge's own view maps
    the cache file, and the memfd is made only when a run first needs it: a cold start whose early run
    already brought the bytes (:mod:`judge.grading.run_plan`) then never copies ~30 MB into a memfd of its own,
    nor frees one afterwards.  The cache file is only ever replaced, never written in place
    (:func:`judge.problem.cache.write_atomic`), and the memfd is copied from the very file the view maps."""

    size: int
    cases: list[CaseInputs] = field(default_factory=list)
    _map: mmap.mmap | None = None
    _fd: int | None = None  #: the sealed memfd, once made
    _source: int | None = None  #: the open cache file _map maps, which the memfd is copied from

    @property
    def fd(self) -> int | None:
        """The sealed, read-only memfd runs map (None: no array inputs)."""
        if self._fd is None and self._source is not None:
            self._fd = memfd.sealed_copy("judge-inputs", self._source, self.size)
        return self._fd

    def same_bytes(self, fd: int | None) -> bool:
        """Whether the file behind ``fd`` holds exactly this input file's bytes (None: no array inputs)."""
        if fd is None or self._map is None:
            return fd is None and self._map is None
        if os.fstat(fd).st_size != self.size:
            return False
        with mmap.mmap(fd, self.size, access=mmap.ACCESS_READ) as other:
            return bool(np.array_equal(np.frombuffer(other, np.uint8), np.frombuffer(self._map, np.uint8)))

    def close(self) -> None:
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:
                pass  # arrays still view it; released with them
        for fd in (self._fd, self._source):
            if fd is not None:
                os.close(fd)
        self._fd = self._source = None


@dataclass(frozen=True)
class _Placed:
    """Where one array argument lives in the input file, and how the function sees it."""

    region: int  # offset of the base buffer
    nbytes: int  # size of the base buffer
    dtype: np.dtype
    shape: tuple[int, ...]  # of the view the function receives
    strides: tuple[int, ...]
    view_offset: int  # from region start to the view's first element
    readonly: bool
    arg: ArrayArg


def generate(spec: Generate) -> np.ndarray:
    rng = np.random.default_rng(spec.seed)
    shape = tuple(spec.shape)
    arr: np.ndarray
    # Generate's validator pairs each distribution with its parameters (low and high, p): never None below.
    if spec.distribution == "normal":
        arr = rng.standard_normal(shape) * spec.scale
    elif spec.distribution == "uniform":
        arr = rng.uniform(-spec.scale, spec.scale, shape) if spec.low is None \
            else rng.uniform(spec.low, spec.high, shape)  # type: ignore[arg-type]
    elif spec.distribution == "ones":
        arr = np.ones(shape) * spec.scale
    elif spec.distribution == "zeros":
        arr = np.zeros(shape)
    elif spec.distribution == "integers":
        arr = rng.integers(int(spec.low), int(spec.high), shape)  # type: ignore[arg-type]
    elif spec.distribution == "bernoulli":
        arr = rng.random(shape) < spec.p  # type: ignore[operator]
    elif spec.distribution == "tril":
        arr = np.broadcast_to(np.tri(shape[-2], shape[-1], dtype=bool), shape).copy()
    else:
        arr = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * spec.scale
    return arr.astype(spec.dtype, copy=False)


def _logical(arg: ArrayArg) -> np.ndarray:
    if arg.generate is not None:
        return generate(arg.generate)
    return np.asarray(arg.literal, dtype=arg.dtype or "float64")


def materialize(args: dict[str, Any]) -> dict[str, Any]:
    """Arguments in case syntax as the values a call gets (arrays in C order: layouts do not change values)."""
    out = {}
    for name, value in args.items():
        if isinstance(value, ArrayArg):
            out[name] = _logical(value)
        elif isinstance(value, dict) and ("literal" in value or "generate" in value):
            out[name] = _logical(ArrayArg.model_validate(value))
        else:
            out[name] = value
    return out


def _place(arg: ArrayArg, region: int) -> _Placed:
    if arg.generate is not None:
        shape, dtype = tuple(arg.generate.shape), np.dtype(arg.generate.dtype)
    else:
        probe = np.asarray(arg.literal, dtype=arg.dtype or "float64")
        shape, dtype = probe.shape, probe.dtype
    size = dtype.itemsize
    count = int(np.prod(shape, dtype=np.int64))
    c_strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) * size for i in range(len(shape)))
    if arg.layout == "fortran" and shape:
        strides = tuple(int(np.prod(shape[:i], dtype=np.int64)) * size for i in range(len(shape)))
        return _Placed(region, count * size, dtype, shape, strides, 0, arg.readonly, arg)
    if arg.layout == "strided" and shape:
        wide = shape[:-1] + (shape[-1] * 2,)
        wide_strides = tuple(int(np.prod(wide[i + 1:], dtype=np.int64)) * size for i in range(len(wide)))
        strides = wide_strides[:-1] + (2 * size,)
        return _Placed(region, count * 2 * size, dtype, shape, strides, 0, arg.readonly, arg)
    return _Placed(region, count * size, dtype, shape, c_strides, 0, arg.readonly, arg)


def _fill(buffer: mmap.mmap, placed: _Placed) -> None:
    base = np.ndarray(placed.nbytes // placed.dtype.itemsize, placed.dtype, buffer=buffer, offset=placed.region)
    if placed.arg.layout == "strided":
        base[...] = np.nan  # the skipped elements are never valid data
    view = np.ndarray(placed.shape, placed.dtype, buffer=buffer, offset=placed.region + placed.view_offset,
                      strides=placed.strides)
    view[...] = _logical(placed.arg)


def _open_cached(path: Path, size: int) -> int | None:
    """The cache file at ``path``, open for reading, if it holds ``size`` bytes; else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    if os.fstat(fd).st_size != size:
        os.close(fd)
        return None
    return fd


def build_input_file(cases: list[CaseSpec], cache_dir: Path | None = None) -> InputFile:
    """Lay out every case's arrays in one file: the disk cache's, else a memfd filled now (see :class:`InputFile`)."""
    planned: list[list[tuple[str, Any]]] = []
    size = 0
    for case in cases:
        args: list[tuple[str, Any]] = []
        for name, value in case.args.items():
            if isinstance(value, ArrayArg):
                placed = _place(value, size)
                args.append((name, placed))
                size = slot_layout.align(size + placed.nbytes)
            else:
                args.append((name, value))
        planned.append(args)
    if size == 0:
        return InputFile(0, [CaseInputs(dict(args), tuple(ArgSpec(n, scalar=v) for n, v in args)) for args in planned])
    cached = cache_dir / "inputs.bin" if cache_dir is not None else None
    source = _open_cached(cached, size) if cached is not None else None
    if source is not None:
        result = InputFile(size, _map=mmap.mmap(source, size, access=mmap.ACCESS_READ), _source=source)
    else:
        fd = memfd.create("judge-inputs", size)
        with mmap.mmap(fd, size, access=mmap.ACCESS_WRITE) as writable:
            for args in planned:
                for _, placed in args:
                    if isinstance(placed, _Placed):
                        _fill(writable, placed)
        if cached is not None:
            try:
                write_atomic(cached, lambda f: os.sendfile(f.fileno(), fd, 0, size))
            except OSError:
                pass
        memfd.seal_read_only(fd)
        result = InputFile(size, _map=mmap.mmap(fd, size, access=mmap.ACCESS_READ), _fd=fd)
    readable = result._map
    for args in planned:
        values: dict[str, Any] = {}
        wire: list[ArgSpec] = []
        for name, placed in args:
            if not isinstance(placed, _Placed):
                values[name] = placed
                wire.append(ArgSpec(name, scalar=placed))
                continue
            offset = placed.region + placed.view_offset
            values[name] = np.ndarray(placed.shape, placed.dtype, buffer=readable, offset=offset,
                                      strides=placed.strides)
            wire.append(ArgSpec(name, array=ArrayRef(
                offset=offset, nbytes=placed.nbytes, dtype=placed.dtype.str, shape=tuple(placed.shape),
                strides=tuple(placed.strides), readonly=placed.readonly, region=placed.region)))
        result.cases.append(CaseInputs(values, tuple(wire)))
    return result
