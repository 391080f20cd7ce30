"""Pydantic models of a problem bundle: problem.yaml and cases.yaml.

The bundle, not the code, names the functions, cases, tolerances, limits and
allowed imports, so a second problem needs no change to ``judge/``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from judge.problem.feedback_policy import FeedbackPolicy

SCHEMA_VERSION = 1
NUMERIC_DTYPES = ("float64", "float32", "float16", "int64", "int32", "int16", "int8",
                  "uint64", "uint32", "uint16", "uint8")
DtypeName = Literal["float64", "float32", "float16", "int64", "int32", "int16", "int8",
                    "uint64", "uint32", "uint16", "uint8"]
#: What an input array may be: any numeric dtype, or bool (a mask).  Outputs are numeric only.
InputDtypeName = Literal["float64", "float32", "float16", "int64", "int32", "int16", "int8",
                         "uint64", "uint32", "uint16", "uint8", "bool"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: The largest magnitude a domain's int may have: an int64 (what numpy and the wire carry).
INT_LIMIT = (1 << 63) - 1


def _int_range(name: str, lo: int, hi: int) -> None:
    """A domain's int range is within an int64 (negative ranges are valid: ``axis: {int: [-1, -1]}``)."""
    if not (lo >= -INT_LIMIT and hi <= INT_LIMIT):
        raise ValueError(f"{name}: [{lo}, {hi}] goes beyond an int64 (+-{INT_LIMIT})")


def _finite(name: str, *values: float) -> None:
    import math

    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"{name}: {list(values)} must be finite numbers (no .inf or .nan)")


class Tolerance(_Strict):
    """Elementwise |got - expected| <= atol + rtol * |expected|, as numpy.isclose."""

    atol: float = Field(ge=0)
    rtol: float = Field(ge=0)


class Limits(_Strict):
    cpu_seconds: float = Field(gt=0, le=600, description="CPU time of the whole submission, all cases")
    wall_seconds: float = Field(gt=0, le=900, description="wall time of the whole submission")
    case_wall_seconds: float = Field(gt=0, le=600, description="wall time of any one call")
    memory_mib: int = Field(ge=16, le=65536)
    processes: int = Field(ge=1, le=256, description="processes and threads at once")
    output_kib: int = Field(default=1024, ge=1, le=1 << 20, description="stdout+stderr cap")
    source_kib: int = Field(default=256, ge=1, le=1 << 16, description="largest accepted source file")
    search_candidates: int = Field(default=128, ge=0, le=4096,
                                   description="inputs a counterexample search may try (one extra run)")
    search_seconds: float = Field(default=3.0, gt=0, le=60, description="time of that whole search (making its "
                                                                      "inputs and its run), by the judge's clock")


class AxisSpec(_Strict):
    """What one axis of a function's output means, in the exercise's own words.

    ``pairs``: consecutive elements form pairs whose members have these names
    (e.g. ``[sin, cos]``: element j is pair j // 2, of kind pairs[j % 2]); a last
    element without a partner is of kind ``unpaired``.
    """

    name: str
    symbol: str = ""
    pairs: list[str] | None = Field(None, min_length=2, max_length=2)
    pair_symbol: str = "i"


class IntDomain(_Strict):
    """An integer argument: every value in ``int: [lo, hi]`` is valid."""

    int: tuple[int, int]
    #: Values a counterexample tries first (after the default); the smallest in range are tried anyway.
    simple: list[int] = []  # type: ignore[valid-type]  # the builtin: an annotation-only field binds no name

    @model_validator(mode="after")
    def _ordered(self) -> IntDomain:
        if self.int[0] > self.int[1]:
            raise ValueError(f"int: [{self.int[0]}, {self.int[1]}] is empty")
        _int_range("int", *self.int)
        if any(not self.int[0] <= v <= self.int[1] for v in self.simple):
            raise ValueError("simple: every value must lie in the range")
        return self


class FloatDomain(_Strict):
    """A float argument: every value in ``float: [lo, hi]`` is valid."""

    float: tuple[float, float]
    simple: list[float] = []  # type: ignore[valid-type]  # the builtin: an annotation-only field binds no name

    @model_validator(mode="after")
    def _ordered(self) -> FloatDomain:
        _finite("float", *self.float)
        _finite("simple", *self.simple)
        if not self.float[0] <= self.float[1]:
            raise ValueError(f"float: [{self.float[0]}, {self.float[1]}] is empty")
        if any(not self.float[0] <= v <= self.float[1] for v in self.simple):
            raise ValueError("simple: every value must lie in the range")
        return self


class ArrayShape(_Strict):
    """An array argument's valid shapes, dtypes, layouts and values, in the bundle's case syntax.

    ``axes`` names the trailing axes (outermost first) with their length ranges; ``leading`` is how many axes may
    come before them, each ``leading_size`` long.  ``match`` ties an axis's length to an axis of another argument
    (``{row: x}``: as long as ``x``'s axis ``row``).  ``values`` bounds the elements (``integer``: whole numbers).
    ``leading_like: q``: this array has exactly the leading axes of argument ``q`` (attention's k and v, Adam's
    m and v), so a search never pairs arrays a valid call could not.  ``indexes: logits.class``: whole numbers
    that index that axis of that argument, 0 <= value < its length (cross-entropy's targets).
    """

    axes: dict[str, tuple[int, int]] = Field(min_length=1)
    leading: tuple[int, int] = (0, 0)
    leading_size: tuple[int, int] = (1, 3)
    # mypy infers list[str] for these lambdas' literals; pydantic checks the defaults against the Literal anyway
    dtypes: list[InputDtypeName] = Field(default_factory=lambda: ["float64"], min_length=1)  # type: ignore[arg-type]
    layouts: list[Literal["c", "fortran", "strided"]] = Field(default_factory=lambda: ["c"], min_length=1)  # type: ignore[arg-type]
    readonly: list[bool] = Field(default_factory=lambda: [False], min_length=1)
    values: tuple[float, float] = (-1.0, 1.0)
    integer: bool = False
    match: dict[str, str] = {}
    leading_like: str | None = None
    indexes: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$")

    @model_validator(mode="after")
    def _ranges(self) -> ArrayShape:
        for name, (lo, hi) in self.axes.items():
            if not 1 <= lo <= hi:
                raise ValueError(f"axes: {name}: [{lo}, {hi}] must satisfy 1 <= lo <= hi")
            _int_range(f"axes: {name}", lo, hi)
        if not 0 <= self.leading[0] <= self.leading[1] <= 4:
            raise ValueError("leading: [lo, hi] must satisfy 0 <= lo <= hi <= 4")
        if not 1 <= self.leading_size[0] <= self.leading_size[1]:
            raise ValueError("leading_size: [lo, hi] must satisfy 1 <= lo <= hi")
        _int_range("leading_size", *self.leading_size)
        _finite("values", *self.values)
        if not self.values[0] <= self.values[1]:
            raise ValueError("values: [lo, hi] is empty")
        if self.integer and max(abs(self.values[0]), abs(self.values[1])) > 1 << 53:
            raise ValueError(f"values: {list(self.values)}: integer values must lie within +-2**53 (exact as floats)")
        unknown = set(self.match) - set(self.axes)
        if unknown:
            raise ValueError(f"match: {', '.join(sorted(unknown))} is not one of the axes")
        return self


class ArrayDomain(_Strict):
    """An array argument: ``array: {...}`` (see :class:`ArrayShape`); ``optional``: None is valid too."""

    array: ArrayShape
    optional: bool = False


class DtypeRule(_Strict):
    """How a case whose array input has this dtype is judged (as the bundle's cases with it are)."""

    output_dtypes: list[DtypeName] | None = None
    tolerance: Tolerance | None = None


def _domain_kind(value: object) -> str | None:
    """Which kind of argument domain ``value`` is, by its one key (a clear error otherwise, not three)."""
    if isinstance(value, dict):
        return next((k for k in ("int", "float", "array") if k in value), None)
    kinds: dict[type, str] = {IntDomain: "int", FloatDomain: "float", ArrayDomain: "array"}
    return kinds.get(type(value))


ArgDomain = Annotated[
    Annotated[IntDomain, Tag("int")] | Annotated[FloatDomain, Tag("float")] | Annotated[ArrayDomain, Tag("array")],
    Discriminator(_domain_kind, custom_error_type="domain_kind",
                  custom_error_message="an argument's domain is int: [lo, hi], float: [lo, hi] or array: {...}")]


class Domain(_Strict):
    """What a valid call of a function looks like: every argument's range, so that the judge can search it for
    the smallest input on which a learner's function differs from the reference (a counterexample)."""

    args: dict[str, ArgDomain]
    #: False: no counterexamples for this function (the domain still documents valid calls).
    counterexamples: bool = True
    #: How an array input's dtype changes the judging (e.g. float32 inputs may give float32 outputs).
    dtypes: dict[DtypeName, DtypeRule] = {}

    def rule_for(self, args: dict[str, Any]) -> DtypeRule | None:
        """The dtype rule for a call whose arguments (case syntax) hold an array of a dtype named in ``dtypes``."""
        for value in args.values():
            if isinstance(value, dict):
                dtype = value.get("dtype") or (value.get("generate") or {}).get("dtype")
                if dtype in self.dtypes:
                    return self.dtypes[dtype]
        return None


class TupleReturns(_Strict):
    """``returns: {tuple: [grad_x, grad_w, grad_b]}``: the function returns a tuple of that many arrays (or
    numbers), named in order; each item is compared on its own shape and dtype, and feedback names the item."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    names: list[str] = Field(alias="tuple", min_length=2, max_length=16)

    @model_validator(mode="after")
    def _distinct(self) -> TupleReturns:
        if len(set(self.names)) != len(self.names):
            raise ValueError("tuple: every item needs its own name")
        return self


class FunctionSpec(_Strict):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    signature: str
    params: list[str]
    #: ``array`` (a numpy.ndarray), ``scalar`` (one number: a Python or numpy number, or a 0-d array) or
    #: ``{tuple: [names]}`` (a tuple of arrays or numbers).
    returns: Literal["array", "scalar"] | TupleReturns = "array"
    output_dtypes: list[DtypeName] = ["float64"]
    summary: str = ""
    axes: list[AxisSpec] = Field(default_factory=list, description="the output's trailing axes, in order")
    leading_axes: str = Field("batch", description="what any axes before ``axes`` are called")
    domain: Domain | None = Field(None, description="what a valid call looks like (counterexamples search it)")

    @property
    def part_names(self) -> list[str] | None:
        """The tuple's item names, for a function that returns a tuple (None otherwise)."""
        return list(self.returns.names) if isinstance(self.returns, TupleReturns) else None

    @property
    def wire_returns(self) -> str:
        """What the harness is told to expect (:func:`judge.sandbox.boundary.outputs.pack`): array, scalar or
        tuple:<k>."""
        names = self.part_names
        return f"tuple:{len(names)}" if names else str(self.returns)


class Imports(_Strict):
    allowed: list[str] = Field(min_length=1)


class ReferenceCheck(_Strict):
    """A hand-checked value that guards the reference itself."""

    function: str
    args: dict[str, Any]
    index: list[int]
    value: float
    atol: float = Field(default=5e-7, ge=0)
    item: str | None = Field(None, description="for a function returning a tuple: the item the index is into")
    note: str = ""


class Scoring(_Strict):
    mode: Literal["fraction", "weights"] = "fraction"


class Handout(_Strict):
    """Marks a hand-out bundle (``judge package notebook``): public cases only, and instead of the reference and
    the mistakes module, their outputs on those cases, recorded (:mod:`judge.problem.recorded`).  A learner holds
    it; nothing in it computes the answer or names a hidden case, only how many there are."""

    hidden_cases: int = Field(ge=0, description="how many hidden cases the full bundle runs on submission")
    recorded: str = Field("recorded", description="the folder of recorded outputs")
    source_digest: str = Field(description="the full bundle's digest, to tell which version it was cut from")


class ProblemSpec(_Strict):
    schema_version: Literal[1]
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str
    statement: str = "statement.md"
    reference: str = "reference.py"
    cases: str = "cases.yaml"
    functions: list[FunctionSpec] = Field(min_length=1)
    limits: Limits
    tolerance: Tolerance
    imports: Imports
    scoring: Scoring = Scoring()
    reference_checks: list[ReferenceCheck] = []
    mistakes: str | None = Field(None, description="the bank of known mistakes (e.g. mistakes.yaml), if any")
    handout: Handout | None = Field(None, description="set only in a hand-out bundle (judge package notebook)")
    feedback: FeedbackPolicy = Field(FeedbackPolicy(), description="what learners see of hidden cases (a teacher "
                                                                   "may override it per activity)")

    def function(self, name: str) -> FunctionSpec:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)


class Generate(_Strict):
    """A seeded array: the same seed gives the same bytes on every machine.

    ``normal`` (times ``scale``), ``uniform`` in [-scale, scale] (or in [low, high) when given: a non-negative
    second moment), ``ones`` (times ``scale``), ``zeros``, ``arange`` (times ``scale``); ``integers`` in [low, high)
    (class labels, indices); ``bernoulli``: True with probability ``p`` (with dtype bool: a random mask); ``tril``:
    1 on and below the diagonal of the last two axes (with dtype bool: a causal mask)."""

    shape: list[int] = Field(min_length=1, max_length=8)
    distribution: Literal["normal", "uniform", "ones", "zeros", "arange", "integers", "bernoulli", "tril"] = "normal"
    seed: int = 0
    scale: float = 1.0
    dtype: InputDtypeName = "float64"
    low: float | None = None
    high: float | None = None
    p: float | None = Field(None, ge=0, le=1)

    @model_validator(mode="after")
    def _positive(self) -> Generate:
        if any(n < 1 for n in self.shape):
            raise ValueError("every dimension of shape must be >= 1")
        if self.distribution == "integers" and (
            self.low is None
            or self.high is None
            or not float(self.low).is_integer()
            or not float(self.high).is_integer()
        ):
            raise ValueError("integers needs whole numbers low and high (values are drawn from [low, high))")
        if (self.low is None) != (self.high is None) or (
            self.low is not None and self.high is not None and self.low >= self.high
        ):
            raise ValueError("low and high come together, low < high")
        if self.distribution not in ("integers", "uniform") and self.low is not None:
            raise ValueError("low and high belong to distribution: integers or uniform")
        if (self.p is None) != (self.distribution != "bernoulli"):
            raise ValueError("bernoulli needs p (the probability of True), and only bernoulli takes p")
        if len(self.shape) < 2 and self.distribution == "tril":
            raise ValueError("tril needs at least two axes")
        return self


class ArrayArg(_Strict):
    literal: Any = None
    generate: Generate | None = None
    dtype: InputDtypeName | None = None  # for literals; generate carries its own
    layout: Literal["c", "fortran", "strided"] = "c"
    readonly: bool = False

    @model_validator(mode="after")
    def _one_source(self) -> ArrayArg:
        if (self.literal is None) == (self.generate is None):
            raise ValueError("an array argument needs exactly one of 'literal' or 'generate'")
        return self


Scalar = int | float | bool | str | None
ArgValue = ArrayArg | Scalar


class CaseSpec(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    function: str
    visibility: Literal["public", "hidden"] = "hidden"
    description: str = ""
    args: dict[str, Annotated[ArgValue, Field(union_mode="left_to_right")]]
    output_dtypes: list[DtypeName] | None = None
    tolerance: Tolerance | None = None
    case_wall_seconds: float | None = Field(default=None, gt=0)
    weight: float = Field(default=1.0, gt=0)
    tags: list[str] = Field(default_factory=list, description="the author's words for what the case exercises; "
                                                               "failure patterns may name them")
    raises: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
                               description="the call must raise this exception (or a subclass), e.g. ValueError: "
                                           "returning anything is a wrong answer, another exception a runtime error")


class CasesFile(_Strict):
    schema_version: Literal[1]
    cases: list[CaseSpec] = Field(min_length=1)
