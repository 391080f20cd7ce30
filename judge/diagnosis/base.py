"""The recogniser contract: a :class:`Context` in, :class:`Candidate` out, units registered by id.

Like DMOJ's checkers (one small function per checker, found by name), every
generic recogniser is one function registered with its id, kind and default
message; the bank may reword any of them (mistakes.yaml entries without
``implements``).  Runs in the judge's process only, on copies of failing outputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from judge.grading.compare import within_tolerance
from judge.grading.prepare import PreparedProblem
from judge.grading.slots import Observed
from judge.problem.mistakes import Bank
from judge.problem.models import Tolerance
from judge.verdict import CaseResult, Status

Kind = Literal["attack", "mistake", "generic"]
KIND_RANK = {"attack": 0, "mistake": 1, "generic": 2}


@dataclass
class Context:
    """Everything a recogniser may look at; built once per verdict."""

    prepared: PreparedProblem
    cases: list[CaseResult]
    observed: dict[int, Observed]
    source: str = ""
    printed: str = ""

    def __post_init__(self) -> None:
        self.failing = [i for i, c in enumerate(self.cases) if c.status is Status.WRONG_ANSWER]
        self.bank: Bank | None = self.prepared.bundle.bank
        self.tol = self.bank.spec.match_tolerance if self.bank else Tolerance(atol=1e-6, rtol=1e-6)

    def expected(self, i: int) -> np.ndarray:
        return self.prepared.cases[i].expected

    def got(self, i: int) -> np.ndarray | None:
        obs = self.observed.get(i)
        return obs.got if obs is not None else None

    def got_parts(self, i: int) -> tuple[tuple[int, ...], ...] | None:
        """A tuple output: the shapes of the items the learner returned (None otherwise)."""
        obs = self.observed.get(i)
        return obs.parts if obs is not None else None

    def match_tol(self, i: int) -> Tolerance:
        """How close a wrong implementation's output must be to the learner's to reproduce it on case ``i``: the
        bank's match tolerance, loosened to the case's own where float32 or float16 is in play -- the learner
        returned it, or the case accepts it (float32 inputs: the bank's mistake and the learner's may each have
        computed in float32 or float64, and differ by a few float32 ulps, which the case's tolerance allows)."""
        lower = ("float32", "float16")
        if self.cases[i].got_dtype not in lower and not set(lower) & set(self.prepared.cases[i].output_dtypes):
            return self.tol
        own = self.prepared.cases[i].tolerance
        return Tolerance(atol=max(self.tol.atol, own.atol), rtol=max(self.tol.rtol, own.rtol))

    def dtype_excludes(self, i: int, produced: str) -> bool:
        """The learner returned a dtype the case does not accept (e.g. float32) and ``produced`` is another:
        an implementation producing ``produced`` cannot be what they ran."""
        c = self.cases[i]
        return c.got_dtype is not None and c.got_dtype not in (c.expected_dtypes or [c.got_dtype]) \
            and c.got_dtype != produced

    def reproducible(self) -> list[int]:
        """Failing cases whose output was kept, whatever its shape: a bank mistake explains one by reproducing the
        output, shape included (heads laid out (T, H, Dh) instead of (H, T, Dh) is a mistake with a name too)."""
        return [i for i in self.failing if self.got(i) is not None]

    def assessable(self) -> list[int]:
        """Failing cases whose output was kept and has the expected shape (or that returned where the case
        must raise: a mistake that returns the same explains them)."""
        return [i for i in self.failing if (g := self.got(i)) is not None
                and (g.shape == self.expected(i).shape or self.prepared.cases[i].spec.raises is not None)]


def close(a: np.ndarray | None, b: np.ndarray, tol: Tolerance) -> bool:
    """Same shape and values within ``tol``, where NaN matches NaN and an infinity the same infinity: a mistake
    whose output overflows (softmax without its max subtracted) reproduces a learner's NaN exactly, and is named
    for it.  ``a`` None (a case without the learner's output, :meth:`Context.got`) is close to nothing."""
    if a is None or a.shape != b.shape:
        return False
    if within_tolerance(a, b, tol):
        return True
    finite_a, finite_b = np.isfinite(a), np.isfinite(b)
    if finite_a.all() and finite_b.all():
        return False
    if not np.array_equal(finite_a, finite_b) or not np.array_equal(a[~finite_a], b[~finite_b], equal_nan=True):
        return False
    return within_tolerance(a[finite_a], b[finite_b], tol)


@dataclass
class Candidate:
    """A possible explanation: which failing cases (indices) it explains out of how many it was checked on."""

    id: str
    kind: Kind
    explained: list[int]
    checked: int
    contradicted: int = 0          # passing cases it would have got wrong
    components: int = 1            # how many mistakes it combines (simpler first)
    message: str | None = None     # overrides the registered / bank message

    @property
    def confidence(self) -> float:
        return len(self.explained) / max(1, self.checked + self.contradicted)

    @property
    def explains(self) -> bool:
        """The explanation, not a partial one: every checked failing case reproduced, no passing one broken."""
        return bool(self.explained) and len(self.explained) == self.checked and not self.contradicted


@dataclass(frozen=True)
class Recogniser:
    id: str
    kind: Kind
    message: str
    scope: Literal["case", "submission"]
    fn: Callable = field(compare=False)


REGISTRY: dict[str, Recogniser] = {}


def recogniser(id: str, message: str, kind: Kind = "generic",
               scope: Literal["case", "submission"] = "case") -> Callable[[Callable], Callable]:
    """Register ``fn``: ``fn(ctx, i) -> bool | None`` (does it explain failing case i; None: cannot tell, the
    case is then not counted as checked) for scope "case",
    ``fn(ctx) -> bool`` (does it explain every failing case) for scope "submission"."""
    def register(fn: Callable) -> Callable:
        REGISTRY[id] = Recogniser(id, kind, message, scope, fn)
        return fn
    return register
