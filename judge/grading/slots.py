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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from judge.feedback import MessageRef
from judge.grading.compare import compare_arrays, tolerance_ratio
from judge.grading.prepare import PreparedCase, PreparedProblem
from judge.grading.process_end import process_death_said
from judge.grading.terms import Terms, mismatch_kinds, value_window
from judge.i18n import messages as m
from judge.i18n.catalog import render, render_all, verbatim
from judge.sandbox import InBackground, RunReport, wire
from judge.verdict import CaseResult, Status

if TYPE_CHECKING:
    from judge.verdict import NumericFacts

KEEP_ELEMENTS = 1 << 18  # outputs up to this size are copied for diagnosis when they fail


@dataclass
class Observed:
    """What the learner's call produced, as diagnosis needs it (judge process only)."""

    outcome: str
    message: str = ""
    got: np.ndarray | None = None
    #: a tuple output: the shape of each item the call returned (``got`` holds their values one after another)
    parts: tuple[tuple[int, ...], ...] | None = None

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
    parts: list[list[int]] | None = Field(None, max_length=16, description="a tuple's items' shapes")
    part_dtypes: list[str] | None = Field(None, max_length=16, description="a tuple's items' dtypes")


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _observe(observed: dict | None, index: int, header: SlotHeader, got: np.ndarray | None = None) -> None:
    """Keep what diagnosis needs: the outcome and, for small failing outputs, a copy of the values."""
    if observed is None:
        return
    kept = None
    if got is not None and got.size <= KEEP_ELEMENTS:
        kept = np.array(got, dtype=np.float64) if got.dtype.kind in "iuf" else None
    parts = _parts(header) if kept is not None else None
    observed[index] = Observed(outcome=header.outcome, message=header.message, got=kept, parts=parts)


_DESCRIBED: list[tuple[re.Pattern[str], Callable[[re.Match[str]], MessageRef]]] = [
    # what pack() says of a tuple output that is not one (judge.sandbox.boundary.outputs), around describe's words
    (re.compile(r"(.+), not a tuple of (\d+)"), lambda g: m.VALUE_NOT_A_TUPLE(what=described(g[1]), count=int(g[2]))),
    (re.compile(r"an? ([\w.<>]+) of (\d+) items?, not (\d+)"),
     lambda g: m.VALUE_ITEMS_NOT(kind=g[1], count=int(g[2]), expected=int(g[3]))),
    (re.compile(r"an? ([\w.<>]+) whose item (\d+) is (.+)"),
     lambda g: m.VALUE_ITEM_IS(kind=g[1], index=int(g[2]), what=described(g[3]))),
    (re.compile(r"an output that cannot be read \((\w+)\)"), lambda g: m.VALUE_UNREADABLE(error=g[1])),
    (re.compile(r"a list of (\d+) items?"), lambda g: m.VALUE_LIST(count=int(g[1]))),
    (re.compile(r"a tuple of (\d+) items?"), lambda g: m.VALUE_TUPLE(count=int(g[1]))),
    (re.compile(r"a bool"), lambda g: m.VALUE_BOOL()),
    (re.compile(r"a value of type ([\w.<>]+)"), lambda g: m.VALUE_TYPE(type=g[1])),
    (re.compile(r"an instance of ([\w.<>]+), a subclass of numpy\.ndarray \(shape (.*)\)"),
     lambda g: m.VALUE_SUBCLASS(type=g[1], shape=g[2])),
    (re.compile(r"a numpy\.ndarray of dtype (\S+) and shape (.*)"), lambda g: m.VALUE_NDARRAY(dtype=g[1], shape=g[2])),
    (re.compile(r"a numpy\.ndarray of dtype (\S+)"), lambda g: m.VALUE_NDARRAY_DTYPE(dtype=g[1])),
]


def described(text: str) -> MessageRef:
    """What came back instead of an output, as message ids: the sandbox's side describes it in fixed English
    (judge.sandbox.boundary.outputs.describe, which must not import the catalogs); anything else stays as it is."""
    for pattern, ref in _DESCRIBED:
        found = pattern.fullmatch(text)
        if found is not None:
            return ref(found)
    return verbatim(text)


def _what(case: PreparedCase) -> MessageRef:
    """What the case's function must return, in a learner's words."""
    if case.parts is not None:
        names = ", ".join(case.item(k) for k in range(len(case.parts)))
        return m.MUST_RETURN_TUPLE(count=len(case.parts), names=names)
    return m.MUST_RETURN_NUMBER() if case.returns == "scalar" else m.MUST_RETURN_ARRAY()


def _say(result: CaseResult, said: list[MessageRef]) -> None:
    """Set a case's message: its ids (rendered in the learner's language at the door) and its English text."""
    result.said = [r for r in said if r.id != "verbatim" or r.params.get("text")]
    result.message = render_all(result.said, "en")


def _alternatives(names: list[str]) -> MessageRef:
    """``a or b or c`` in the learner's language (dtype names stay as numpy spells them)."""
    said = verbatim(names[0]) if names else verbatim("")
    for name in names[1:]:
        said = m.OR(first=said, second=name)
    return said


def _parts(header: SlotHeader) -> tuple[tuple[int, ...], ...] | None:
    """The tuple items' shapes a header gives, when they add up to its array (else None: not to be believed)."""
    if header.parts is None or header.shape is None or len(header.shape) != 1:
        return None
    if any(len(s) > 32 or any(n < 0 for n in s) for s in header.parts):
        return None
    shapes = tuple(tuple(int(n) for n in s) for s in header.parts)
    if sum(int(np.prod(s, dtype=object)) for s in shapes) != header.shape[0]:
        return None
    return shapes


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


def _judge_raises(case: PreparedCase, header: SlotHeader, results: mmap.mmap, result: CaseResult,
                  changed: list[MessageRef], observed: dict | None, index: int) -> CaseResult:
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
            _say(result, [m.RAISED_AS_IT_MUST(exception=spec.raises), *changed])
            return result
        result.status = Status.RUNTIME_ERROR
        _say(result, [m.MUST_RAISE_BUT_RAISED(message=header.message, exception=spec.raises, why=why), *changed])
        return result
    returned = m.AN_ARRAY_OF_SHAPE(shape=_shape(tuple(header.shape))) if header.shape is not None \
        else verbatim(header.message)
    _say(result, [m.MUST_RAISE_BUT_RETURNED(function=spec.function, exception=spec.raises, why=why,
                                            returned=returned), *changed])
    return result


def _base_result(case: PreparedCase, header: SlotHeader) -> tuple[CaseResult, list[MessageRef]]:
    """The case's result before its output is looked at (a wrong answer until shown right), and the note every
    message ends with when the call changed an input."""
    spec = case.spec
    result = CaseResult(id=spec.id, function=spec.function, visibility=spec.visibility,
                        status=Status.WRONG_ANSWER, time_ms=header.time_ns / 1e6,
                        expected_shape=list(case.expected.shape), expected_dtypes=case.output_dtypes,
                        input_changed=[n for n in header.changed if n in spec.args][:8], weight=spec.weight)
    changed = [m.CHANGED_INPUT(names=", ".join(result.input_changed))] if result.input_changed else []
    return result, changed


def _array_or_problem(case: PreparedCase, header: SlotHeader,
                      results: mmap.mmap) -> tuple[np.ndarray | None, list[MessageRef]]:
    """The one consistency check of an array header: a view of the slot's bytes as the header says (None where
    numpy cannot view them), or what is wrong with the header ("" when nothing is)."""
    if header.outcome == "too_large":
        return None, [m.TOO_LARGE(shape=_shape(tuple(header.shape or ())), expected=_shape(case.expected.shape))]
    if header.dtype not in _ALLOWED_WIRE_DTYPES or header.shape is None or header.nbytes is None:
        return None, [m.UNSUPPORTED_DTYPE(dtype=str(header.dtype))]
    dtype = np.dtype(header.dtype)
    shape = tuple(header.shape)
    if any(n < 0 for n in shape) or int(np.prod(shape, dtype=object)) * dtype.itemsize != header.nbytes \
            or header.nbytes > case.slot_capacity:
        return None, [m.HEADER_INCONSISTENT()]
    got = _slot_view(case, shape, dtype, results)
    if case.parts is not None:
        return got, _parts_problem(case, header) if got is not None else [m.HEADER_INCONSISTENT()]
    if shape != case.expected.shape or got is None:
        if case.returns == "scalar":
            return got, [m.SCALAR_EXPECTED(shape=_shape(shape))]
        return got, [m.WRONG_SHAPE(shape=_shape(shape), expected=_shape(case.expected.shape))]
    return got, []


def _parts_problem(case: PreparedCase, header: SlotHeader) -> list[MessageRef]:
    """What is wrong with a returned tuple's items' shapes (nothing when each has its expected shape)."""
    parts = _parts(header)
    if parts is None or case.parts is None or len(parts) != len(case.parts):
        return [m.HEADER_INCONSISTENT()]
    return [m.ITEM_WRONG_SHAPE(item=case.item(k), shape=_shape(got), expected=_shape(want))
            for k, (got, want) in enumerate(zip(parts, case.parts)) if got != want]


def _dtype_problem(case: PreparedCase, header: SlotHeader, got_dtype: str | None) -> list[MessageRef]:
    """The returned dtype (each item's, for a tuple) outside the case's output dtypes, said (nothing when none
    is)."""
    expected = _alternatives(list(case.output_dtypes))
    if case.parts is not None and header.part_dtypes is not None:
        return [m.ITEM_WRONG_DTYPE(item=case.item(k), dtype=d, expected=expected)
                for k, d in enumerate(header.part_dtypes[:len(case.parts)]) if d not in case.output_dtypes]
    if got_dtype not in case.output_dtypes:
        return [m.WRONG_DTYPE(dtype=str(got_dtype), expected=expected)]
    return []


def _comparison_message(f: NumericFacts, reveal: bool, items: bool = False,
                        wheres: dict[str, MessageRef] | None = None, terms: Terms | None = None) -> list[MessageRef]:
    """The sentences a failed comparison gives, from its facts (locations for public cases only; ``wheres``: the
    worst and the first non-finite element's places as message ids, when known)."""
    wheres = wheres or {}
    parts = []
    bound = {"atol": float(f.atol), "rtol": float(f.rtol)}
    if f.total == 1 and f.worst_index == []:  # one number: no counts, no index
        error = m.NAN_OR_INF() if f.nonfinite else m.OFF_BY(error=float(f.max_abs_error or 0.0))
        parts.append(m.ONE_VALUE_OFF(error=error, **bound))
        if reveal and f.expected_at_worst is not None:
            parts.append(m.EXPECTED_GOT(expected=f.expected_at_worst, got=f.got_at_worst))
        return parts
    if f.nonfinite:
        counts = {"nonfinite": f.nonfinite, "total": f.total}
        parts.append(m.NONFINITE_AT(where=wheres.get("nonfinite", f.nonfinite_where), **counts) if f.nonfinite_where
                     else m.NONFINITE(**counts))
    if f.mismatched:
        # f.total is never 0 here (a mismatch needs an element); the share is a float, said in the reader's way
        said = {"mismatched": f.mismatched, "total": f.total, "share": f.mismatched / max(f.total, 1),
                "error": float(f.max_abs_error or 0.0), **bound}
        parts.append(m.VALUES_DIFFER_REL(relative=f.max_rel_error, **said)
                     if f.max_rel_error is not None and math.isfinite(f.max_rel_error) else m.VALUES_DIFFER(**said))
    if f.mismatch_kinds:
        parts.append(m.OUT_OF_TOLERANCE_IN(counts=[m.COUNT_IN(count=n, kind=terms.kind_said(k) if terms else k)
                                                for k, n in f.mismatch_kinds.items()]))
    if reveal and f.worst_index is not None:
        if items:  # grad_w[1, 0]
            parts.append(m.AT_ITEM(where=wheres.get("worst", f.worst_where), expected=f.expected_at_worst,
                                   got=f.got_at_worst))
        else:
            parts.append(m.AT_INDEX(index=str(tuple(f.worst_index)), where=wheres.get("worst", f.worst_where),
                                    expected=f.expected_at_worst, got=f.got_at_worst))
    return parts


def _compare(case: PreparedCase, got: np.ndarray, result: CaseResult, terms: Terms, measure: bool) -> bool:
    """Compare ``got`` with the expected output into ``result`` (facts, message); whether it is within tolerance."""
    reveal = case.spec.visibility == "public"
    comparison = compare_arrays(got, case.expected, case.tolerance, reveal)
    f = result.facts = comparison.facts
    if measure:
        f.tolerance_ratio = tolerance_ratio(got, case.expected, case.tolerance)
    if comparison.ok:
        return True
    f.mismatch_kinds = mismatch_kinds(got, case.expected, case.tolerance, terms)
    wheres: dict[str, MessageRef] = {}
    if reveal and f.worst_index is not None:
        wheres["worst"] = terms.describe_said(f.worst_index)
        f.worst_where = render(wheres["worst"], "en")
        f.window = value_window(got, case.expected, f.worst_index, terms)
    if reveal and f.first_nonfinite_index is not None:
        wheres["nonfinite"] = terms.describe_said(f.first_nonfinite_index)
        f.nonfinite_where = render(wheres["nonfinite"], "en")
    _say(result, [*result.said, *_comparison_message(f, reveal, items=case.parts is not None, wheres=wheres,
                                                                  terms=terms)])
    return False


def judge_slot(case: PreparedCase, header: SlotHeader, results: mmap.mmap, terms: Terms | None = None,
               observed: dict | None = None, index: int = -1, measure: bool = False) -> CaseResult:
    """One case's result, in four steps: the base result; what the call did (raised, returned something else);
    the array header's one consistency check; the comparison.  ``terms`` words locations in the exercise's
    terms; ``observed`` (if given) receives what diagnosis needs about a failing case, copied out of
    ``results`` (the next run reuses it)."""
    spec = case.spec
    result, changed = _base_result(case, header)
    if spec.raises is not None:
        return _judge_raises(case, header, results, result, changed, observed, index)
    if header.outcome in ("raised", "other"):
        if header.outcome == "raised":
            result.status = Status.RUNTIME_ERROR
            _say(result, [m.RAISED(exception=header.message) if header.message else verbatim(""), *changed])
        else:
            _say(result, [m.RETURNED_OTHER(function=spec.function, what=described(header.message),
                                           expected=_what(case)),
                          *changed])
        _observe(observed, index, header)
        return result
    result.got_dtype = _ALLOWED_WIRE_DTYPES.get(header.dtype or "", header.dtype)
    result.got_shape = header.shape
    if case.parts is not None:
        result.expected_parts = [list(s) for s in case.parts]
        parts = _parts(header)
        result.got_parts = [list(s) for s in parts] if parts is not None else None
        outside = [d for d in header.part_dtypes or () if d not in case.output_dtypes]
        result.got_dtype = outside[0] if outside else result.got_dtype
    got, problem = _array_or_problem(case, header, results)
    if problem:
        _say(result, [*problem, *changed])
        _observe(observed, index, header, got)
        return result
    _say(result, _dtype_problem(case, header, result.got_dtype))
    assert got is not None  # no problem: an array came back
    within = _compare(case, got, result, terms or Terms(None, case.expected.shape), measure)
    if not within or result.message or changed:
        _observe(observed, index, header, got)
    del got  # a view of the worker's result buffer, which the next run reuses
    if result.said or changed:
        _say(result, [*(result.said or [m.VALUES_CORRECT()]), *changed])
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
        _say(result, [m.ADDRESS_SPACE(), *result.said])
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


@dataclass
class JudgedRun:
    """What judging one run's slots gives the engine."""

    cases: list[CaseResult]  #: per case, in the bundle's order
    killed_for: str | None  #: what the process was killed for, from the kernel's records (None: it was not)
    #: case index -> what diagnosis needs of each case that did not pass (copies of small outputs: the buffer
    #: is reused by the next run)
    observed: dict[int, Observed] = field(default_factory=dict)
    #: case index -> the header's output offsets, for splitting the capture per call (None: the call never
    #: returned); absent for a call whose header was unreadable or that never ran
    spans: dict[int, list[int] | None] = field(default_factory=dict)


class CaseJudging:
    """Per-case results of one run, judged in case order, as early as each slot is final.

    A slot is final once its header is written: the harness writes the array bytes first, the header last,
    and never touches a slot again.  So while the learner's later calls still run, :meth:`judge_written`
    can compare the outputs already returned (on a second core, the comparison of a large suite then costs
    the verdict almost nothing), and :meth:`finish`, after the run, judges the rest and returns a
    :class:`JudgedRun`.  It reuses an early result only if the slot's header bytes are still exactly those it
    was judged from; code that rewrote a slot (only code that reaches the harness's mapping can) has it judged
    again from what the slot holds at the end, as when nothing was judged early."""

    def __init__(self, prepared: PreparedProblem, results: mmap.mmap) -> None:
        self.prepared = prepared
        self.results = results
        self._early: list[_Judged] = []  #: the first len(_early) cases, judged while the run went on

    def _head(self, case: PreparedCase) -> bytes:
        return self.results[case.slot_offset:case.slot_offset + wire.SLOT_HEADER_SIZE]

    def _judge(self, case: PreparedCase, header: SlotHeader, index: int, observed: dict) -> CaseResult:
        function = self.prepared.bundle.spec.function(case.spec.function)  # the loader checked it exists
        terms = Terms(function, case.expected.shape, case.parts)
        return judge_slot(case, header, self.results, terms, observed, index, self.prepared.measure_errors)

    def judge_written(self) -> int:
        """While the run goes on: judge each next case whose slot header is written and valid; how many cases
        are judged so far.  Stops at the first slot that is not (yet) readable: a header still being written
        reads as malformed, and :meth:`finish` judges whatever that slot holds after the run."""
        cases = self.prepared.cases
        while STORES_IN_ORDER and len(self._early) < len(cases):
            index = len(self._early)
            case = cases[index]
            head = self._head(case)
            header = _read(head)
            if not isinstance(header, SlotHeader):
                break
            kept: dict = {}
            result = self._judge(case, header, index, kept)
            self._early.append(_Judged(head, header, result, kept.get(index)))
        return len(self._early)

    def judge_until_over(self, run: InBackground, ready: Callable[[], bool] | None = None) -> None:
        """Judge each slot as the run finishes it, until ``run`` (the thread the run goes on in) has ended.
        ``ready``: whether the slots may be read yet (the buffer may still hold the last run's bytes until the
        backend has cleared it: ``ResultBuffer.cleared``); nothing is judged while it says False."""
        while not run.wait(POLL_SECONDS):
            if ready is None or ready():
                self.judge_written()

    def finish(self, report: RunReport, rlimit_memory: bool = False, cpu_limit: float | None = None) -> JudgedRun:
        """After the run: every case's result, what the process was killed for, what diagnosis needs.
        ``rlimit_memory``: memory was limited by RLIMIT_AS (no cgroup), so a MemoryError is that limit
        refusing an allocation (see :func:`_address_space_refusal`).  ``cpu_limit``: the CPU seconds the run
        was given, when not the bundle's (a counterexample search has its own budget: a SIGXCPU at 3 s must read
        as that limit, not as a crash of a run allowed 20 s)."""
        prepared = self.prepared
        cpu = cpu_limit if cpu_limit is not None else prepared.bundle.spec.limits.cpu_seconds
        death, death_said = process_death_said(report, cpu)
        judged = JudgedRun([], render(death_said, "en") if death_said is not None else None)
        ended = False
        for index, case in enumerate(prepared.cases):
            if ended:
                judged.cases.append(_not_run(case, m.STATUS_SKIPPED_LONG()))
                continue
            head = self._head(case)
            early = self._early[index] if index < len(self._early) else None
            if early is not None and early.head == head:  # judged while the run went on, and still as it was
                judged.spans[index] = early.header.spans
                if early.observed is not None:
                    judged.observed[index] = early.observed
                judged.cases.append(_named_refusal(early.result, early.header, rlimit_memory))
                continue
            header = _read(head)
            if isinstance(header, str):  # a header the learner's process garbled
                judged.cases.append(_not_run(case, m.UNREADABLE(reason=header), Status.WRONG_ANSWER))
                continue
            judged.spans[index] = header.spans if header is not None else None
            if header is None:  # the process ended during this call
                ended = True
                judged.cases.append(_not_run(case, death_said if death and death_said is not None else
                                             m.ENDED_BEFORE_RETURN(), death or Status.RUNTIME_ERROR))
                continue
            result = self._judge(case, header, index, judged.observed)
            judged.cases.append(_named_refusal(result, header, rlimit_memory))
        self._early.clear()
        return judged


def _read(head: bytes) -> SlotHeader | None | str:
    """A slot's header: the model, None when the slot was never written, or why it cannot be read."""
    try:
        raw = wire.read_header(memoryview(head))
        return SlotHeader.model_validate(raw) if raw is not None else None
    except (wire.MalformedSlot, ValidationError) as exc:
        return str(exc).splitlines()[0]


def _not_run(case: PreparedCase, said: MessageRef, status: Status = Status.SKIPPED) -> CaseResult:
    spec = case.spec
    result = CaseResult(id=spec.id, function=spec.function, visibility=spec.visibility, status=status,
                        weight=spec.weight, expected_shape=list(case.expected.shape))
    _say(result, [said])
    return result


def judge_cases(prepared: PreparedProblem, report: RunReport, results: mmap.mmap,
                rlimit_memory: bool = False) -> JudgedRun:
    """Every slot judged after the run (see :class:`CaseJudging`)."""
    return CaseJudging(prepared, results).finish(report, rlimit_memory)
