"""Runs inside the isolated child: load the learner's file, call it per case, write slots.

Everything here executes next to untrusted code, so nothing it reports is
believed blindly: the judge re-validates each slot and decides time, memory and
crash verdicts from the kernel's records.  The harness exists to give honest
learners precise facts (what came back, which argument was changed).
"""

from __future__ import annotations

import builtins
import linecache
import mmap
import os
import sys
import time
import traceback
from typing import Any

import numpy as np

from judge.sandbox.boundary import wire
from judge.sandbox.boundary.contract import ArgSpec, Call, RunRequest
from judge.sandbox.boundary.outputs import NotAnOutput, pack
from judge.sandbox.boundary.progress import PHASE_DONE, PHASE_LOADING, PHASE_RUNNING, ProgressPage
from judge.sandbox.kernel.linux import memcmp_equal

SUBMISSION_FILENAME = "submission.py"
_NUMERIC_KINDS = "iuf"
_MADV_POPULATE_WRITE = 23
_ndarray = np.ndarray
_type = type


def _describe(value: Any) -> str:
    kind = _type(value)
    if issubclass(kind, _ndarray):  # not isinstance: a property __class__ can claim numpy.ndarray
        shape = _ndarray.shape.__get__(value)  # the real shape, whatever the subclass overrides
        return f"an instance of {kind.__module__}.{kind.__qualname__}, a subclass of numpy.ndarray (shape {shape})"
    if kind in (list, tuple):
        return f"a {kind.__name__} of {len(value)} items"
    return f"a value of type {kind.__module__}.{kind.__qualname__}".replace("builtins.", "")


def _exception_message(exc: BaseException) -> str:
    """The exception and the learner's own frames, harness frames dropped."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == SUBMISSION_FILENAME]
    where = "".join(f"\n  line {f.lineno}, in {f.name}: {(f.line or '').strip()}" for f in frames[-3:])
    text = "".join(traceback.format_exception_only(_type(exc), exc)).strip()
    return f"{text}{where}"


def _exception_types(exc: BaseException) -> list[str]:
    """The raised class and its bases by name, so a case that must raise ValueError accepts subclasses."""
    return [str(k.__name__)[:64] for k in _type(exc).__mro__[:12]]


def _offsets() -> list[int]:
    """Where fds 1 and 2 stand now (output flushed first): the judge splits the capture per call with these."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        return [os.lseek(1, 0, os.SEEK_CUR), os.lseek(2, 0, os.SEEK_CUR)]
    except (OSError, ValueError):  # not seekable, or the learner closed them: no per-call split
        return []


def _spans(before: list[int], after: list[int]) -> list[int]:
    """[stdout before, stdout after, stderr before, stderr after], or [] when unknown."""
    return [before[0], after[0], before[1], after[1]] if before and after else []


def _print_traceback(exc: BaseException) -> None:
    tb = traceback.TracebackException.from_exception(exc)
    tb.stack = traceback.StackSummary.from_list([f for f in tb.stack if f.filename == SUBMISSION_FILENAME])
    sys.stderr.write("".join(tb.format()))
    sys.stderr.flush()


class Harness:
    def __init__(self, request: RunRequest, input_map: mmap.mmap | None, pristine_map: mmap.mmap | None,
                 result_map: mmap.mmap, progress: ProgressPage, source: str | None = None) -> None:
        self.request = request
        self.source = request.source if source is None else source
        self.inputs = input_map
        self.pristine = pristine_map
        self.results = result_map
        self.progress = progress

    def _write(self, call: Call, fields: dict, array: np.ndarray | None = None) -> None:
        offset = call.slot_offset
        if array is not None:
            start = offset + wire.SLOT_HEADER_SIZE
            try:  # map the slot's pages in one call instead of one fault per 4 KiB page
                self.results.madvise(_MADV_POPULATE_WRITE, start - start % mmap.PAGESIZE,
                                     array.nbytes + start % mmap.PAGESIZE)
            except (OSError, ValueError):
                pass
            target = np.ndarray(array.shape, array.dtype, buffer=self.results, offset=offset + wire.SLOT_HEADER_SIZE)
            np.copyto(target, array, casting="no")
        header = wire.encode_header(fields)
        self.results[offset:offset + len(header)] = header

    def _argument(self, spec: ArgSpec) -> Any:
        a = spec.array
        if a is None:
            return spec.scalar
        arr = np.ndarray(a.shape, np.dtype(a.dtype), buffer=self.inputs, offset=a.offset, strides=a.strides)
        if a.readonly:
            arr.flags.writeable = False
        return arr

    def _changed_arguments(self, call: Call) -> list[str]:
        changed: list[str] = []
        if self.inputs is None or self.pristine is None:
            return changed
        base_in = np.frombuffer(self.inputs, np.uint8).ctypes.data
        base_pr = np.frombuffer(self.pristine, np.uint8).ctypes.data
        for spec in call.args:
            a = spec.array
            if a is not None and not memcmp_equal(base_in + a.region, base_pr + a.region, a.nbytes):
                changed.append(spec.name)
        return changed

    def load(self) -> dict | None:
        """Execute the learner's module; the functions by name, or None if it raised."""
        source: str = self.source
        linecache.cache[SUBMISSION_FILENAME] = (len(source), None, source.splitlines(True), SUBMISSION_FILENAME)
        namespace: dict[str, Any] = {"__name__": "submission", "__file__": SUBMISSION_FILENAME,
                                     "__builtins__": builtins}
        self.progress.set(-1, PHASE_LOADING)
        try:
            exec(compile(source, SUBMISSION_FILENAME, "exec"), namespace)
        except BaseException as exc:  # noqa: BLE001 - learner code may raise anything, SystemExit included
            _print_traceback(exc)
            message = "while loading your file: " + _exception_message(exc)
            end = _offsets()
            for call in self.request.calls:
                self._write(call, {"outcome": wire.RAISED, "message": message, "time_ns": 0,
                                   "spans": _spans(end, end)})
            return None
        return namespace

    def run_call(self, namespace: dict, call: Call) -> None:
        function: Any = namespace.get(call.function)  # None if absent: the call raises, as the learner's
        args = {spec.name: self._argument(spec) for spec in call.args}
        self.progress.set(call.case, PHASE_RUNNING)
        before = _offsets()
        start = time.perf_counter_ns()
        try:
            value = function(**args)
        except BaseException as exc:  # noqa: BLE001
            elapsed = time.perf_counter_ns() - start
            _print_traceback(exc)
            fields: dict[str, Any] = {"outcome": wire.RAISED, "message": _exception_message(exc), "time_ns": elapsed,
                      "spans": _spans(before, _offsets()), "exception": _exception_types(exc)}
            fields["changed"] = self._changed_arguments(call)
            self._write(call, fields)
            return
        elapsed = time.perf_counter_ns() - start
        fields = {"time_ns": elapsed, "changed": self._changed_arguments(call),
                                  "spans": _spans(before, _offsets())}
        if call.returns == "array" and _type(value) is not _ndarray:
            fields.update(outcome=wire.RETURNED_OTHER, message=_describe(value))
            self._write(call, fields)
            return
        try:  # a number or a tuple made into one array; an array as it is
            packed = pack(value, call.returns)
        except NotAnOutput as what:
            fields.update(outcome=wire.RETURNED_OTHER, message=str(what)[:500])
            self._write(call, fields)
            return
        except Exception as exc:  # noqa: BLE001 - e.g. a tuple item too large to concatenate
            fields.update(outcome=wire.RETURNED_OTHER, message=f"an output that cannot be read ({_type(exc).__name__})")
            self._write(call, fields)
            return
        value = packed.values
        if packed.parts is not None:
            fields.update(parts=[list(shape) for shape, _ in packed.parts], part_dtypes=[d for _, d in packed.parts])
        fields.update(dtype=value.dtype.str, shape=list(value.shape))
        if value.dtype.kind not in _NUMERIC_KINDS or value.dtype.hasobject:
            fields.update(outcome=wire.RETURNED_OTHER, message=f"a numpy.ndarray of dtype {value.dtype}")
            self._write(call, fields)
        elif value.nbytes > call.slot_capacity:
            fields.update(outcome=wire.TOO_LARGE, nbytes=int(value.nbytes))
            self._write(call, fields)
        else:
            fields.update(outcome=wire.RETURNED_ARRAY, nbytes=int(value.nbytes))
            self._write(call, fields, value)

    def run(self) -> None:
        namespace = self.load()
        if namespace is not None:
            for call in self.request.calls:
                self.run_call(namespace, call)
                sys.stdout.flush()
        self.progress.set(-1, PHASE_DONE)
        sys.stdout.flush()
        sys.stderr.flush()
