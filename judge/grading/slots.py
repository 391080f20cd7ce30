"""Turns one sandboxed run (kernel records + result slots) into per-case results.

Process-level facts come only from the supervisor's clock and the kernel
(wait status, rusage, cgroup counters).  Slot contents come from the learner's
process and are validated before use: a forged header can only describe the
learner's own output, which is then compared byte for byte.
"""

from __future__ import annotations

import math
import mmap
import platform
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from judge.sandbox.background import InBackground
from judge.grading.compare import compare_arrays, tolerance_ratio
from judge.grading.prepare import PreparedCase, PreparedProblem
from judge.sandbox import wire
from judge.sandbox.contract import RunReport
from judge.grading.process_end import process_death
from judge.grading.terms import Terms, mismatch_kinds, value_window
from judge.verdict import CaseResult, Status

KEEP_ELEMENTS = 1 << 18  # outputs up to this size are copied for diagnosis when they fail


@dataclass
class Observed:
    """What the learner's call produced, as diagnosis needs it (judge process only)."""

    outcome: str
    message: str = ""
    got: np.ndarray | None = None

_ALLOWED_WIRE_DTYPES = {np.dtype(t).str: t for t in ("float64", "float32", "float16", "int64", "int32", "int16",
                                                     "int8", "uint64", "uint32", "uint16", "uint8")}


class SlotHeader(BaseModel):
    """The untrusted header the harness wrote; bounded in every dimension."""

    outcome: Literal["array", "other", "raised", "too_large"]
    time_ns: int = Field(0, ge=0, le=2**63 - 1)
    message: str = Field("", max_length=4000)
    changed: list[str] = Field(default_factory=list, max_length=64)
    dtype: str | None = Field(None, max_length=16)
    shape: list[int] | None = Field(None, max_length=32)
    nbytes: int | None = Field(None, ge=0)
    spans: list[int] = Field(default_factory=list, max_length=4, description="fd 1/2 offsets around the call")
    exception: list[str] = Field(default_factory=list, max_length=12,
                                 description="the raised exception's class and bases, by name")


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _observe(observed: dict | None, index: int, header: SlotHeader, got: np.ndarray | None = None) -> None:
    """Keep what diagnosis needs: the outcome and, for small failing outputs, a copy of the values."""
    if observed is None:
        return
    kept = None
    if got is not None and got.size <= KEEP_ELEMENTS:
        kept = np.array(got, dtype=np.float64) if got.dtype.kind in "iuf" else None
    observed[index] = Observed(outcome=header.outcome, message=header.message, got=kept)


def _viewable(shape: tuple[int, ...], dtype: np.dtype, capacity: int) -> bool:
    """Whether numpy can view ``shape`` at all: every dimension within the slot and the product of the non-zero
    ones (numpy checks it even when another dimension is 0) far from overflowing.  A learner can write any shape
    into a header: ``(0, 2**20, 2**20, ...)`` holds no bytes, yet numpy raises "array is too big" on it."""
    if any(n < 0 or n > capacity for n in shape):
        return False
    span = dtype.itemsize
    for n in shape:
        span *= max(n, 1)
        if span > 1 << 62:
            return False
    return True


def _slot_view(case: PreparedCase, shape: tuple[int, ...], dtype: np.dtype, results: mmap.mmap) -> np.ndarray | None:
    """The slot's array bytes as ``shape``/``dtype``, or None where numpy cannot view them (never an exception:
    whatever the header says is the learner's answer, never the judge's failure)."""
    if not _viewable(shape, dtype, case.slot_capacity):
        return None
    try:
        return np.ndarray(shape, dtype, buffer=results, offset=case.slot_offset + wire.SLOT_HEADER_SIZE)
    except (ValueError, TypeError, OverflowError):
        return None


def _returned_array(case: PreparedCase, header: SlotHeader, results: mmap.mmap) -> np.ndarray | None:
    """A view of the array the call returned, when its header is consistent with the slot; else None."""
    if header.outcome != "array" or header.dtype not in _ALLOWED_WIRE_DTYPES or header.shape is None:
        return None
    dtype = np.dtype(header.dtype)
    if header.nbytes is None or header.nbytes > case.slot_capacity \
            or int(np.prod(header.shape, dtype=object)) * dtype.itemsize != header.nbytes:
        return None
    return _slot_view(case, tuple(header.shape), dtype, results)


def _judge_raises(case: PreparedCase, header: SlotHeader, results: mmap.mmap, result: CaseResult, changed: str,
                  observed: dict | None, index: int) -> CaseResult:
    """A case whose call must raise ``spec.raises``: that exception (or a subclass) passes, another one is a
    runtime error, anything returned is a wrong answer (what it returned is kept for diagnosis)."""
    spec = case.spec
    got = _returned_array(case, header, results)
    _observe(observed, index, header, got)
    del got
    why = f" ({spec.description})" if spec.visibility == "public" and spec.description else ""
    if header.outcome == "raised":
        if spec.raises in header.exception and not changed:
            result.status = Status.ACCEPTED
            return result
        if spec.raises in header.exception:
            result.message = f"raised {spec.raises} as it must" + changed
            return result
        result.status = Status.RUNTIME_ERROR
        result.message = f"{header.message} (this call must raise {spec.raises}{why})" + changed
        return result
    returned = f"an array of shape {_shape(tuple(header.shape))}" if header.shape is not None else header.message
    result.message = f"{spec.function} must raise {spec.raises} here{why}, but it returned {returned}" + changed
    return result


def judge_slot(case: PreparedCase, header: SlotHeader, results: mmap.mmap, terms: Terms | None = None,
               observed: dict | None = None, index: int = -1, measure: bool = False) -> CaseResult:
    """One case's result.  ``terms`` words locations in the exercise's terms; ``observed`` (if given)
    receives what diagnosis needs about a failing case, copied out of ``results``."""
    spec = case.spec
    reveal = spec.visibility == "public"
    terms = terms or Terms(None, case.expected.shape)
    result = CaseResult(id=spec.id, function=spec.function, visibility=spec.visibility,
                        status=Status.WRONG_ANSWER, time_ms=header.time_ns / 1e6,
                        expected_shape=list(case.expected.shape), expected_dtypes=case.output_dtypes,
                        input_changed=[n for n in header.changed if n in spec.args][:8], weight=spec.weight)
    changed = ""
    if result.input_changed:
        changed = f"; it also modified its input {', '.join(result.input_changed)} (inputs must stay unchanged)"
    if spec.raises is not None:
        return _judge_raises(case, header, results, result, changed, observed, index)
    if header.outcome == "raised":
        result.status = Status.RUNTIME_ERROR
        result.message = header.message + changed
        _observe(observed, index, header)
        return result
    if header.outcome == "other":
        result.message = f"{spec.function} returned {header.message}; it must return a numpy.ndarray" + changed
        _observe(observed, index, header)
        return result
    result.got_dtype = _ALLOWED_WIRE_DTYPES.get(header.dtype or "", header.dtype)
    result.got_shape = header.shape
    if header.outcome == "too_large":
        result.message = (f"returned an array of shape {_shape(tuple(header.shape or ()))}, expected "
                          f"{_shape(case.expected.shape)}") + changed
        _observe(observed, index, header)
        return result
    if header.dtype not in _ALLOWED_WIRE_DTYPES or header.shape is None or header.nbytes is None:
        result.message = f"returned an array of unsupported dtype {header.dtype}" + changed
        _observe(observed, index, header)
        return result
    dtype = np.dtype(header.dtype)
    shape = tuple(header.shape)
    if any(n < 0 for n in shape) or int(np.prod(shape, dtype=object)) * dtype.itemsize != header.nbytes \
            or header.nbytes > case.slot_capacity:
        result.message = "the result's header is inconsistent with its size" + changed
        _observe(observed, index, header)
        return result
    got = _slot_view(case, shape, dtype, results)
    if shape != case.expected.shape or got is None:
        result.message = f"returned shape {_shape(shape)}, expected {_shape(case.expected.shape)}" + changed
        _observe(observed, index, header, got)
        del got
        return result
    if result.got_dtype not in case.output_dtypes:
        result.message = f"returned dtype {result.got_dtype}, expected {' or '.join(case.output_dtypes)}" + changed
    comparison = compare_arrays(got, case.expected, case.tolerance, reveal)
    result.facts = comparison.facts
    if measure:
        result.facts.tolerance_ratio = tolerance_ratio(got, case.expected, case.tolerance)
    if not comparison.ok or result.message or changed:
        _observe(observed, index, header, got)
    if not comparison.ok:
        f = comparison.facts
        f.mismatch_kinds = mismatch_kinds(got, case.expected, case.tolerance, terms)
        if reveal and f.worst_index is not None:
            f.worst_where = terms.describe(f.worst_index)
            f.window = value_window(got, case.expected, f.worst_index, terms)
        if reveal and f.first_nonfinite_index is not None:
            f.nonfinite_where = terms.describe(f.first_nonfinite_index)
        parts = []
        if f.nonfinite:
            parts.append(f"{f.nonfinite} of {f.total} values are NaN or infinite"
                         + (f" (the first at {f.nonfinite_where})" if f.nonfinite_where else ""))
        if f.mismatched:
            share = f" ({f.mismatched / f.total:.1%})" if f.total else ""
            parts.append(f"{f.mismatched} of {f.total} values{share} differ from the expected ones by more than "
                         f"{f.atol:g} + {f.rtol:g}*|expected| (largest error {f.max_abs_error:.3g}"
                         + (f", largest relative error {f.max_rel_error:.3g})"
                            if f.max_rel_error is not None and math.isfinite(f.max_rel_error) else ")"))
        if f.mismatch_kinds:
            parts.append("out of tolerance: " + ", ".join(f"{n} in {k}" for k, n in f.mismatch_kinds.items()))
        if reveal and f.worst_index is not None:
            parts.append(f"at index {tuple(f.worst_index)} ({f.worst_where}) expected {f.expected_at_worst:.9g}, "
                         f"got {f.got_at_worst:.9g}")
        result.message = "; ".join(x for x in [result.message, *parts] if x)
    del got  # a view of the worker's result buffer, which the next run reuses
    if result.message or changed:
        result.message = (result.message or "values are correct") + changed
        return result
    result.status = Status.ACCEPTED
    return result


_MEMORY_ERROR = re.compile(r"^[\w.]*MemoryError\b")  # numpy raises its subclass _ArrayMemoryError


def _address_space_refusal(header: SlotHeader) -> bool:
    """A call that raised MemoryError while RLIMIT_AS was the memory limit.

    The slot is the learner's word, but it can only make its own verdict worse (a learner
    who catches the MemoryError is still caught by the supervisor's resident-set watch), so it
    is believed for naming the failure, never for passing a case."""
    return header.outcome == "raised" and _MEMORY_ERROR.match(header.message) is not None


def _named_refusal(result: CaseResult, header: SlotHeader, rlimit_memory: bool) -> CaseResult:
    """``result``, as a memory limit exceeded when RLIMIT_AS refused the call an allocation."""
    if rlimit_memory and _address_space_refusal(header):
        result.status = Status.MEMORY_LIMIT_EXCEEDED
        result.message = "memory limit exceeded: the address-space limit (RLIMIT_AS) refused an allocation; " \
                         + result.message
    return result


POLL_SECONDS = 0.002  #: how often the judge looks for slots the run has finished while it goes on
#: Judging a slot while the run goes on (:meth:`CaseJudging.judge_written`) relies on the harness's stores
#: becoming visible to the judge in the order it made them: a slot's array bytes, then its header.  x86's
#: total store order guarantees that; weaker orders (ARM, POWER) do not, so there every slot is judged after
#: the run, when the process's exit has made all of its stores visible.
STORES_IN_ORDER = platform.machine().lower() in ("x86_64", "amd64", "i386", "i486", "i586", "i686")


@dataclass
class _Judged:
    """A slot judged while the run went on, with the exact header bytes it was judged from."""

    head: bytes
    header: SlotHeader
    result: CaseResult
    observed: Observed | None


class CaseJudging:
    """Per-case results of one run, judged in case order, as early as each slot is final.

    A slot is final once its header is written: the harness writes the array bytes first, the header last,
    and never touches a slot again.  So while the learner's later calls still run, :meth:`judge_written`
    can compare the outputs already returned (on a second core, the comparison of a large suite then costs
    the verdict almost nothing), and :meth:`finish`, after the run, judges the rest.  It reuses an early
    result only if the slot's header bytes are still exactly those it was judged from; code that rewrote a
    slot (only code that reaches the harness's mapping can) has it judged again from what the slot holds at
    the end, as when nothing was judged early.

    ``observed``, if given, is filled with case index -> :class:`Observed` for the cases that did not pass:
    copies of small outputs, so diagnosis can run after ``results`` is reused.  ``spans``, if given,
    receives case index -> the header's output offsets (None: no header)."""

    def __init__(self, prepared: PreparedProblem, results: mmap.mmap, observed: dict | None = None,
                 spans: dict | None = None) -> None:
        self.prepared = prepared
        self.results = results
        self.observed = observed
        self.spans = spans
        self._early: list[_Judged] = []  #: the first len(_early) cases, judged while the run went on

    def _head(self, case: PreparedCase) -> bytes:
        return self.results[case.slot_offset:case.slot_offset + wire.SLOT_HEADER_SIZE]

    def _judge(self, case: PreparedCase, header: SlotHeader, index: int, observed: dict | None) -> CaseResult:
        function = self.prepared.bundle.spec.function(case.spec.function)  # the loader checked it exists
        return judge_slot(case, header, self.results, Terms(function, case.expected.shape), observed, index,
                          self.prepared.measure_errors)

    def judge_written(self) -> int:
        """While the run goes on: judge each next case whose slot header is written and valid; how many cases
        are judged so far.  Stops at the first slot that is not (yet) readable: a header still being written
        reads as malformed, and :meth:`finish` judges whatever that slot holds after the run."""
        cases = self.prepared.cases
        while STORES_IN_ORDER and len(self._early) < len(cases):
            index = len(self._early)
            case = cases[index]
            head = self._head(case)
            try:
                raw = wire.read_header(memoryview(head))
                header = SlotHeader.model_validate(raw) if raw is not None else None
            except (wire.MalformedSlot, ValidationError):
                header = None
            if header is None:
                break
            kept: dict = {}
            result = self._judge(case, header, index, kept)
            self._early.append(_Judged(head, header, result, kept.get(index)))
        return len(self._early)

    def judge_until_over(self, run: InBackground) -> None:
        """Judge each slot as the run finishes it, until ``run`` (the thread the run goes on in) has ended."""
        while not run.wait(POLL_SECONDS):
            self.judge_written()

    def finish(self, report: RunReport, rlimit_memory: bool = False) -> tuple[list[CaseResult], str | None]:
        """After the run: per-case results in case order, and what the process was killed for (if it was).
        ``rlimit_memory``: memory was limited by RLIMIT_AS (no cgroup), so a MemoryError is that limit
        refusing an allocation (see :func:`_address_space_refusal`)."""
        prepared = self.prepared
        death, death_message = process_death(report, prepared.bundle.spec.limits.cpu_seconds)
        out: list[CaseResult] = []
        ended = False
        for index, case in enumerate(prepared.cases):
            spec = case.spec
            base = CaseResult(id=spec.id, function=spec.function, visibility=spec.visibility,
                              status=Status.SKIPPED, weight=spec.weight, expected_shape=list(case.expected.shape))
            if ended:
                base.message = "not run: an earlier case ended the process"
                out.append(base)
                continue
            head = self._head(case)
            early = self._early[index] if index < len(self._early) else None
            if early is not None and early.head == head:
                if self.spans is not None:
                    self.spans[index] = early.header.spans
                if self.observed is not None and early.observed is not None:
                    self.observed[index] = early.observed
                out.append(_named_refusal(early.result, early.header, rlimit_memory))
                continue
            try:
                raw = wire.read_header(memoryview(head))
                header = SlotHeader.model_validate(raw) if raw is not None else None
            except (wire.MalformedSlot, ValidationError) as exc:
                base.status = Status.WRONG_ANSWER
                base.message = f"the result could not be read: {str(exc).splitlines()[0]}"
                out.append(base)
                continue
            if self.spans is not None:
                self.spans[index] = header.spans if header is not None else None
            if header is None:
                ended = True
                base.status = death or Status.RUNTIME_ERROR
                base.message = death_message if death else "the process ended before this call returned (exit code 0)"
                out.append(base)
                continue
            out.append(_named_refusal(self._judge(case, header, index, self.observed), header, rlimit_memory))
        self._early.clear()
        return out, (death_message or None)


def judge_cases(prepared: PreparedProblem, report: RunReport, results: mmap.mmap,
                observed: dict | None = None, spans: dict | None = None,
                rlimit_memory: bool = False) -> tuple[list[CaseResult], str | None]:
    """Per-case results in case order, and what the process was killed for (if it was): every slot judged
    after the run (see :class:`CaseJudging` for the arguments)."""
    return CaseJudging(prepared, results, observed, spans).finish(report, rlimit_memory)
