"""The bundle's bank: known mistakes as small wrong implementations, and properties of the right answer.

A mistake explains a failing case when its implementation, run on the case's inputs in the judge's process,
reproduces the learner's output (to the bank's match tolerance) and differs from the expected one.
"""

from __future__ import annotations

import numpy as np

from judge.diagnosis.base import Candidate, Context, close
from judge.problem.expected import packed_output
from judge.verdict import PropertyCheck, Status

_MISSING = object()
MAX_PROPERTY_CASES = 8  # properties are checked on the smallest failing cases (bounded cost)


_LOWER = ("float32", "float16")


def precisions(ctx: Context, index: int) -> tuple[bool, ...]:
    """The ways a mistake is run on case ``index``: on its inputs as they are, and, where an input is float32 or
    float16, also on them cast to float64 -- a learner's file either keeps a lower precision or casts it away,
    and where the two differ (float16's exp overflows past 11, float64's past 709) either may be the learner's."""
    values = ctx.prepared.inputs.cases[index].values
    lower = any(isinstance(v, np.ndarray) and v.dtype.name in _LOWER for v in values.values())
    return (False, True) if lower else (False,)


def _upcast(values: dict) -> dict:
    return {k: v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype.name in _LOWER else v
            for k, v in values.items()}


def mistake_output(ctx: Context, mistake_id: str, attr: str, index: int, upcast: bool = False) -> np.ndarray | None:
    """The mistake's output for a case (as float64, a tuple's items laid out as the learner's are; ``None`` if it
    does not apply, returns another dtype than the learner's wrong one, or tuple items of other shapes).
    ``upcast``: run on the case's float32/float16 inputs cast to float64 (:func:`precisions`)."""
    out = _raw_output(ctx, mistake_id, attr, index, upcast)
    if out is None or ctx.dtype_excludes(index, out[1]):
        return None
    if out[2] is not None and out[2] != ctx.got_parts(index):
        return None
    return out[0]


def _raw_output(ctx: Context, mistake_id: str, attr: str, index: int,
                upcast: bool = False) -> tuple[np.ndarray, str, tuple | None] | None:
    bank = ctx.bank
    assert bank is not None  # asked for a mistake of the bank: there is one
    key = ("mistake", mistake_id, ctx.prepared.bundle_index(index), upcast)
    out = bank.cache.get(key, _MISSING)
    if out is _MISSING:
        out = None
        function = ctx.prepared.bundle.spec.function(ctx.cases[index].function)
        values = ctx.prepared.inputs.cases[index].values
        try:
            with np.errstate(all="ignore"):  # a mistake may overflow where the learner's did: that is the lesson
                value = getattr(bank.module, attr)(**(_upcast(values) if upcast else values))
            packed = packed_output(function, value)
            dtypes = {d for _, d in packed.parts} if packed.parts else {str(packed.values.dtype)}
            dtype = next(iter(dtypes)) if len(dtypes) == 1 else str(packed.values.dtype)
            out = (np.asarray(packed.values, dtype=np.float64), dtype, packed.part_shapes)
        except Exception:  # noqa: BLE001 - a mistake that does not apply to this case explains nothing
            out = None
        bank.remember(key, out)
    return out


def _fails(ctx: Context, mistake_id: str, attr: str, index: int, upcast: bool = False) -> bool | None:
    """Whether the mistake would fail case ``index`` (a passing one), by the case's own tolerance and its tuple
    items' shapes; None when it does not apply (raises)."""
    out = _raw_output(ctx, mistake_id, attr, index, upcast)
    if out is None:
        return None
    case = ctx.prepared.cases[index]
    return out[2] != case.parts or not close(out[0], ctx.expected(index), case.tolerance)


def passing_small(ctx: Context) -> list[int]:
    limit = ctx.bank.spec.max_elements if ctx.bank else 0
    return [i for i, c in enumerate(ctx.cases) if c.status is Status.ACCEPTED and ctx.expected(i).size <= limit]


def bank_candidates(ctx: Context) -> list[Candidate]:
    if ctx.bank is None:
        return []
    tol = ctx.bank.spec.match_tolerance
    assessable = ctx.reproducible()
    passing = passing_small(ctx)
    out = []
    for mistake in ctx.bank.spec.mistakes:
        if not mistake.implements:
            continue
        explained = []
        for i in assessable:
            attr = mistake.implements.get(ctx.cases[i].function)
            if attr is None:
                continue
            # a tuple whose items have other shapes differs even where its values, laid out, do not (a transposed
            # (n, 1) item): the mistake's items have the learner's shapes (mistake_output checks them)
            reshaped = ctx.got_parts(i) != ctx.prepared.cases[i].parts
            for upcast in precisions(ctx, i):  # either precision the learner may have computed in
                got = mistake_output(ctx, mistake.id, attr, i, upcast)
                if got is not None and close(ctx.got(i), got, ctx.match_tol(i)) \
                        and (reshaped or not close(got, ctx.expected(i), tol)):
                    explained.append(i)
                    break
        if not explained:
            continue
        contradicted = 0
        for i in passing:  # a passing case the mistake would fail in every precision, by the case's own tolerance
            attr = mistake.implements.get(ctx.cases[i].function)
            fails = [_fails(ctx, mistake.id, attr, i, upcast) for upcast in precisions(ctx, i)] if attr else []
            if fails and all(fails):
                contradicted += 1
        out.append(Candidate(mistake.id, "mistake", explained, len(assessable), contradicted))
    return out


def property_checks(ctx: Context) -> list[PropertyCheck]:
    if ctx.bank is None:
        return []
    checks = []
    smallest = sorted(ctx.failing, key=lambda i: ctx.expected(i).size)[:MAX_PROPERTY_CASES]
    for prop in ctx.bank.spec.properties:
        checked, failed = 0, []
        for i in smallest:
            got = ctx.got(i)
            if ctx.cases[i].function not in prop.functions or got is None or got.shape != ctx.expected(i).shape:
                continue
            try:
                holds = getattr(ctx.bank.module, prop.check)(ctx.cases[i].function,
                                                            ctx.prepared.inputs.cases[i].values, got)
            except Exception:  # noqa: BLE001
                holds = None
            if holds is None:
                continue
            checked += 1
            if not holds:
                failed.append(ctx.cases[i].id)
        if checked:
            checks.append(PropertyCheck(id=prop.id, description=prop.description, holds=not failed,
                                        checked=checked, failed_cases=failed))
    return checks
