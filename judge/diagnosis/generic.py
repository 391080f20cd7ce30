"""The judge's own recognisers, driven by facts (types, shapes, dtypes, NaN, changed inputs, printed text,
the source): one function each, registered with its id, kind and default message."""

from __future__ import annotations

import ast
import re

import numpy as np

from judge.diagnosis.base import Context, close, recogniser

FLOAT32_ERROR = 1e-3        # errors up to this size per unit of output, with no NaN, look like float32 arithmetic

# Linear on any text: the line alternative allows spaces and tabs around the word, never newlines (``^\s*`` let
# every line start scan to the end of a run of newlines: 16 KiB of them, printed by a learner, cost ~12 s a verdict).
_FORGED = re.compile(
    r'(^[ \t]*(accepted|ac|all tests passed)[ \t]*$)|("?\b(status|verdict|result)\b"?[ \t]*[:=][ \t]*"?accepted)',
    re.IGNORECASE | re.MULTILINE,
)


@recogniser("not_ndarray", "Return a numpy.ndarray, not a list, a scalar or another type.")
def not_ndarray(ctx: Context, i: int) -> bool:
    obs = ctx.observed.get(i)
    return obs is not None and obs.outcome == "other" and "subclass of numpy.ndarray" not in obs.message


@recogniser("ndarray_subclass", "Return a plain numpy.ndarray, not a subclass of it: subclasses are rejected "
                                "whatever their comparison operators say.", kind="attack")
def ndarray_subclass(ctx: Context, i: int) -> bool:
    obs = ctx.observed.get(i)
    return obs is not None and obs.outcome == "other" and "subclass of numpy.ndarray" in obs.message


@recogniser("non_finite", "Your output contains NaN or inf where every expected value is finite.")
def non_finite(ctx: Context, i: int) -> bool:
    f = ctx.cases[i].facts
    return f is not None and bool(f.nonfinite)


@recogniser("input_mutated", "Your function changed an input array. Return a new array and leave the inputs "
                             "untouched.")
def input_mutated(ctx: Context, i: int) -> bool:
    return bool(ctx.cases[i].input_changed)


@recogniser("transposed", "Your output is transposed: its last two axes are swapped.")
def transposed(ctx: Context, i: int) -> bool:
    c = ctx.cases[i]
    e, g = c.expected_shape or [], c.got_shape or []
    if len(e) < 2 or g != e[:-2] + [e[-1], e[-2]] or g == e:
        return False
    got = ctx.got(i)
    return got is None or close(np.swapaxes(got, -1, -2), ctx.expected(i), ctx.tol)


@recogniser("extra_leading_axis", "Your output has an extra leading axis of length 1 (e.g. table[None] or "
                                  "unsqueeze(0)): return an array of exactly the expected shape.")
def extra_leading_axis(ctx: Context, i: int) -> bool:
    c = ctx.cases[i]
    e, g = c.expected_shape or [], c.got_shape or []
    if g != [1] + e:
        return False
    got = ctx.got(i)
    return got is None or close(got.reshape(ctx.expected(i).shape), ctx.expected(i), ctx.tol)


@recogniser("float32_precision", "Your output has float32 precision (or dtype): compute in float64.")
def float32_precision(ctx: Context, i: int) -> bool:
    """Explains a case only when float32 is all that is wrong: errors of float32's size (or a float32 dtype
    with right values).  A float32 output with large errors is a different mistake computed in float32."""
    c, f = ctx.cases[i], ctx.cases[i].facts
    if f is None or f.nonfinite or c.got_shape != c.expected_shape:
        return False
    wrong_dtype = c.got_dtype == "float32" and "float32" not in (c.expected_dtypes or [])
    if wrong_dtype and not f.mismatched:
        return True
    if not f.mismatched or f.max_abs_error is None:
        return False
    if f.max_abs_error <= FLOAT32_ERROR:
        return True
    # Relative to the output's size: a rotation of values ~4 computed in float32 at angles ~8000 errs by
    # ~1e-3 x 4 (numpy 2.4's float32 sin/cos put RoPE's largest case just past a bound of 1e-3).
    expected = ctx.expected(i)
    scale = float(np.max(np.abs(expected))) if expected is not None and expected.size else 0.0
    return f.max_abs_error <= FLOAT32_ERROR * max(1.0, scale)


@recogniser("constant_output", "Your output is a single constant value (e.g. all zeros): it was never really "
                               "computed.")
def constant_output(ctx: Context, i: int) -> bool | None:
    got, expected = ctx.got(i), ctx.expected(i)
    if got is None and ctx.cases[i].got_shape == ctx.cases[i].expected_shape:
        return None  # too large to keep: cannot tell
    if got is None or got.size <= 1 or got.shape != expected.shape:
        return False
    flat, e = got.reshape(-1), expected.reshape(-1)
    return bool(np.all(flat == flat[0])) and not bool(np.all(e == e[0]))


@recogniser("forged_verdict", "Your program prints something that looks like a verdict. The judge decides the "
                              "verdict from the arrays your functions return, in its own process; printed text "
                              "changes nothing.", kind="attack", scope="submission")
def forged_verdict(ctx: Context) -> bool:
    return bool(_FORGED.search(ctx.printed))


@recogniser("monkeypatch_numpy", "Your file replaces numpy functions (e.g. numpy.allclose). The judge compares "
                                 "results in its own process, so this changes nothing; only correct arrays pass.",
            kind="attack", scope="submission")
def monkeypatch_numpy(ctx: Context) -> bool:
    """Does the file assign to an attribute of numpy (np.allclose = ..., setattr(np, ...))?"""
    try:
        tree = ast.parse(ctx.source)
    except (SyntaxError, ValueError):
        return False
    aliases = {"numpy"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name.split(".")[0] for a in node.names if a.name.split(".")[0] == "numpy"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numpy":
            aliases |= {a.asname or a.name for a in node.names}

    def rooted(expr: ast.AST) -> bool:
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        return isinstance(expr, ast.Name) and expr.id in aliases

    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        if any(isinstance(t, ast.Attribute) and rooted(t) for t in targets):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") \
                and node.args and rooted(node.args[0]):
            return True
    return False
