"""Naming the learner's mistake: which known mistakes explain a wrong answer.

Runs in the judge's process only, after the comparisons, on copies of the
failing outputs (see :class:`judge.outcome.Observed`).  Two kinds of recogniser:

* the bundle's bank (mistakes.yaml + mistakes.py): a small wrong implementation
  per mistake, run on a failing case's inputs and compared with the learner's
  output; a mistake *explains* a case when it reproduces the learner's output
  and differs from the expected one;
* generic ones driven by facts (types, shapes, dtypes, NaN, changed inputs,
  printed text, the source), worded by the bank when it has an entry of the
  same id.

Confidence is the share of the failing cases a mistake explains (for the bank's
mistakes: of the failing cases it could be checked on, plus any passing case it
would have got wrong).  Hidden cases are named by id only: evidence quotes
public cases alone.
"""

from __future__ import annotations

import ast
import logging
import re
import threading
from pathlib import Path

import numpy as np

from judge.compare import within_tolerance
from judge.errors import JudgeError
from judge.outcome import Observed
from judge.prepared import PreparedProblem
from judge.problem.mistakes import Bank, load_bank
from judge.problem.models import Tolerance
from judge.verdict import CaseResult, Diagnosis, PropertyCheck, Status

log = logging.getLogger(__name__)
MIN_CONFIDENCE = 0.2
MAX_DIAGNOSES = 5
FLOAT32_ERROR = 1e-3        # errors up to this size, with no NaN, look like float32 arithmetic
_KIND_RANK = {"attack": 0, "mistake": 1, "generic": 2}

GENERIC_MESSAGES = {
    "not_ndarray": "Return a numpy.ndarray, not a list, a scalar or another type.",
    "ndarray_subclass": "Return a plain numpy.ndarray, not a subclass of it: subclasses are rejected "
                        "whatever their comparison operators say.",
    "non_finite": "Your output contains NaN or inf where every expected value is finite.",
    "input_mutated": "Your function changed an input array. Return a new array and leave the inputs untouched.",
    "transposed": "Your output is transposed: its last two axes are swapped.",
    "float32_precision": "Your output has float32 precision (or dtype): compute in float64.",
    "constant_output": "Your output is a single constant value (e.g. all zeros): it was never really computed.",
    "forged_verdict": "Your program prints something that looks like a verdict. The judge decides the verdict "
                      "from the arrays your functions return, in its own process; printed text changes nothing.",
    "monkeypatch_numpy": "Your file replaces numpy functions (e.g. numpy.allclose). The judge compares results in "
                         "its own process, so this changes nothing; only correct arrays pass.",
}
_GENERIC_KIND = {"forged_verdict": "attack", "monkeypatch_numpy": "attack", "ndarray_subclass": "attack"}

_FORGED = re.compile(r'(^\s*(accepted|ac|all tests passed)\s*$)|("?\b(status|verdict|result)\b"?\s*[:=]\s*"?accepted)',
                     re.IGNORECASE | re.MULTILINE)


# -- the bank, loaded once per version of its files ---------------------------------------------

class _BankEntry:
    def __init__(self, bank: Bank, stamp: tuple) -> None:
        self.bank = bank
        self.stamp = stamp
        self.outputs: dict[tuple, np.ndarray | None] = {}


_banks: dict[Path, _BankEntry] = {}
_lock = threading.Lock()


def _stamp(root: Path, names: list[str]) -> tuple:
    return tuple((root / n).stat().st_mtime_ns if (root / n).is_file() else 0 for n in names)


def bank_for(prepared: PreparedProblem) -> _BankEntry | None:
    bundle = prepared.bundle
    name = bundle.spec.mistakes
    if not name:
        return None
    root = bundle.root
    with _lock:
        entry = _banks.get(root)
        if entry is not None and entry.stamp == _stamp(root, [name, entry.bank.spec.module]):
            return entry
        bank = load_bank(root, name, {f.name for f in bundle.spec.functions})
        entry = _BankEntry(bank, _stamp(root, [name, bank.spec.module]))
        _banks[root] = entry
        return entry


# -- helpers ------------------------------------------------------------------------------------

def _close(a: np.ndarray, b: np.ndarray, tol: Tolerance) -> bool:
    return a.shape == b.shape and within_tolerance(a, b, tol)


def _patches_numpy(source: str) -> bool:
    """Does the file assign to an attribute of numpy (np.allclose = ..., setattr(np, ...))?"""
    try:
        tree = ast.parse(source)
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


def _evidence(cases: list[CaseResult], explained: list[int]) -> str:
    for i in explained:
        c = cases[i]
        if c.visibility != "public":
            continue
        f = c.facts
        if f is not None and f.worst_where and f.expected_at_worst is not None and f.got_at_worst is not None:
            return (f"e.g. case {c.id}: at {f.worst_where} expected {f.expected_at_worst:.7g}, "
                    f"got {f.got_at_worst:.7g}")
        if c.message:
            return f"e.g. case {c.id}: {c.message.splitlines()[0][:160]}"
    return ""


# -- recognisers --------------------------------------------------------------------------------

def _generic(prepared: PreparedProblem, cases: list[CaseResult], failing: list[int],
             observed: dict[int, Observed], source: str, printed: str, tol: Tolerance) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {k: [] for k in GENERIC_MESSAGES}
    for i in failing:
        c, obs = cases[i], observed.get(i)
        expected = prepared.cases[i].expected
        if obs is not None and obs.outcome == "other":
            found["ndarray_subclass" if "subclass of numpy.ndarray" in obs.message else "not_ndarray"].append(i)
        if c.facts is not None and c.facts.nonfinite:
            found["non_finite"].append(i)
        if c.input_changed:
            found["input_mutated"].append(i)
        e, g = c.expected_shape or [], c.got_shape or []
        if len(e) >= 2 and g == e[:-2] + [e[-1], e[-2]] and g != e:
            if obs is None or obs.got is None or _close(np.swapaxes(obs.got, -1, -2), expected, tol):
                found["transposed"].append(i)
        wrong_dtype = c.got_dtype == "float32" and "float32" not in (c.expected_dtypes or [])
        f = c.facts
        small_errors = (f is not None and f.mismatched and not f.nonfinite and f.max_abs_error is not None
                        and f.max_abs_error <= FLOAT32_ERROR)
        if wrong_dtype or small_errors:
            found["float32_precision"].append(i)
        if obs is not None and obs.got is not None and obs.got.size > 1 and obs.got.shape == expected.shape:
            flat = obs.got.reshape(-1)
            if np.all(flat == flat[0]) and not np.all(expected.reshape(-1) == expected.reshape(-1)[0]):
                found["constant_output"].append(i)
    if _FORGED.search(printed):
        found["forged_verdict"] = list(failing)
    if _patches_numpy(source):
        found["monkeypatch_numpy"] = list(failing)
    return found


def _mistake_output(entry: _BankEntry, prepared: PreparedProblem, mistake_id: str, attr: str,
                    index: int) -> np.ndarray | None:
    key = (prepared.bundle.digest, mistake_id, index)
    if key in entry.outputs:
        return entry.outputs[key]
    out = None
    try:
        value = getattr(entry.bank.module, attr)(**prepared.inputs.cases[index].values)
        if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
            out = np.asarray(value, dtype=np.float64)
    except Exception:  # noqa: BLE001 - a mistake that does not apply to this case explains nothing
        out = None
    entry.outputs[key] = out
    return out


def _bank_mistakes(entry: _BankEntry, prepared: PreparedProblem, cases: list[CaseResult], failing: list[int],
                   observed: dict[int, Observed]) -> list[tuple[str, list[int], float, int]]:
    spec = entry.bank.spec
    tol = spec.match_tolerance
    assessable = [i for i in failing if (o := observed.get(i)) is not None and o.got is not None
                  and o.got.shape == prepared.cases[i].expected.shape]
    passing = [i for i, c in enumerate(cases) if c.status is Status.ACCEPTED
               and prepared.cases[i].expected.size <= spec.max_elements]
    results = []
    for mistake in spec.mistakes:
        if not mistake.implements:
            continue
        explained, contradicted = [], 0
        for i in assessable:
            attr = mistake.implements.get(cases[i].function)
            if attr is None:
                continue
            out = _mistake_output(entry, prepared, mistake.id, attr, i)
            expected = prepared.cases[i].expected
            if out is not None and _close(observed[i].got, out, tol) and not _close(out, expected, tol):
                explained.append(i)
        if not explained:
            continue
        for i in passing:
            attr = mistake.implements.get(cases[i].function)
            if attr is None:
                continue
            out = _mistake_output(entry, prepared, mistake.id, attr, i)
            if out is not None and not _close(out, prepared.cases[i].expected, tol):
                contradicted += 1
        results.append((mistake.id, explained, len(explained) / (len(assessable) + contradicted),
                        len(assessable)))
    return results


def _properties(entry: _BankEntry, prepared: PreparedProblem, cases: list[CaseResult], failing: list[int],
                observed: dict[int, Observed]) -> list[PropertyCheck]:
    checks = []
    for prop in entry.bank.spec.properties:
        checked, failed = 0, []
        for i in failing:
            obs = observed.get(i)
            if cases[i].function not in prop.functions or obs is None or obs.got is None \
                    or obs.got.shape != prepared.cases[i].expected.shape:
                continue
            try:
                holds = getattr(entry.bank.module, prop.check)(cases[i].function, prepared.inputs.cases[i].values,
                                                               obs.got)
            except Exception:  # noqa: BLE001
                holds = None
            if holds is None:
                continue
            checked += 1
            if not holds:
                failed.append(cases[i].id)
        if checked:
            checks.append(PropertyCheck(id=prop.id, description=prop.description, holds=not failed,
                                        checked=checked, failed_cases=failed))
    return checks


def diagnose(prepared: PreparedProblem, cases: list[CaseResult], observed: dict[int, Observed], source: str = "",
             printed: str = "") -> tuple[list[Diagnosis], list[PropertyCheck]]:
    """Known mistakes that explain the wrong answers (most likely first) and properties of the output."""
    failing = [i for i, c in enumerate(cases) if c.status is Status.WRONG_ANSWER]
    if not failing:
        return [], []
    entry = bank_for(prepared)
    tol = entry.bank.spec.match_tolerance if entry else Tolerance(atol=1e-6, rtol=1e-6)
    candidates: list[tuple[str, list[int], float, str, int]] = []
    for mistake_id, explained in _generic(prepared, cases, failing, observed, source, printed, tol).items():
        if explained:
            candidates.append((mistake_id, explained, len(explained) / len(failing),
                               _GENERIC_KIND.get(mistake_id, "generic"), len(failing)))
    if entry is not None:
        for mistake_id, explained, confidence, checked in _bank_mistakes(entry, prepared, cases, failing, observed):
            candidates.append((mistake_id, explained, confidence, "mistake", checked))
    order = {m.id: k for k, m in enumerate(entry.bank.spec.mistakes)} if entry else {}
    candidates.sort(key=lambda c: (-round(c[2], 6), _KIND_RANK[c[3]], -len(c[1]), order.get(c[0], len(order))))
    diagnoses = []
    for mistake_id, explained, confidence, kind, checked in candidates:
        if confidence < MIN_CONFIDENCE or len(diagnoses) >= MAX_DIAGNOSES:
            continue
        default = GENERIC_MESSAGES.get(mistake_id, mistake_id)
        message = entry.bank.message(mistake_id, default) if entry else default
        diagnoses.append(Diagnosis(id=mistake_id, message=message, confidence=round(confidence, 3),
                                   cases=[cases[i].id for i in explained], checked=checked,
                                   evidence=_evidence(cases, explained), kind=kind))
    checks = _properties(entry, prepared, cases, failing, observed) if entry else []
    return diagnoses, checks


def diagnose_safely(prepared: PreparedProblem, cases: list[CaseResult], observed: dict[int, Observed],
                    source: str = "", printed: str = "") -> tuple[list[Diagnosis], list[PropertyCheck]]:
    """:func:`diagnose`, where a bug in a recogniser costs the feedback, never the verdict.

    A broken bank (BundleError) still raises: ``judge verify`` and the grader report it."""
    try:
        return diagnose(prepared, cases, observed, source, printed)
    except JudgeError:
        raise
    except Exception:  # noqa: BLE001
        log.exception("diagnosis failed for %s", prepared.bundle.id)
        return [], []
