"""The counterexample search's parts that need no sandbox (issue 22): input domains in the bundle, the candidates
(deterministic, valid, small first, never a hidden case), seeds and boxes, the Python line shown to learners,
``judge case add``'s dtype rule and the text rendering."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import yaml

from judge.diagnosis.counterexample.candidates import LARGE_MAX_ELEMENTS, MAX_ELEMENTS, candidates, size_of
from judge.diagnosis.counterexample.search import python_call, with_defaults
from judge.diagnosis.counterexample.seeds import mismatch_box, read_seed
from judge.errors import BundleError
from judge.problem.inputs import build_input_file, materialize
from judge.problem.loader import load_problem
from judge.problem.models import ArrayDomain, CaseSpec, FloatDomain, IntDomain, Tolerance
from tests.conftest import REPO

PROBLEMS = ("sinusoidal-pe", "rotary-embedding")


def _cases_of(bundle, function: str) -> list[tuple[CaseSpec, dict]]:
    inputs = build_input_file(bundle.cases.cases)
    spec = bundle.spec.function(function)
    return [(case, with_defaults(spec, inputs.cases[i].values)) for i, case in enumerate(bundle.cases.cases)
            if case.function == function]


def _seeds(bundle, function: str, count: int = 3):
    spec = bundle.spec.function(function)
    chosen = sorted(_cases_of(bundle, function), key=lambda cv: size_of(spec, cv[1]))[:count]
    out = []
    for case, values in chosen:
        arrays = {k: v for k, v in case.args.items() if hasattr(v, "layout")}
        out.append((read_seed(spec, values, {k: v.layout for k, v in arrays.items()},
                              {k: v.readonly for k, v in arrays.items()}, hidden=case.visibility == "hidden"),
                    case.visibility == "hidden"))
    return out


def _functions():
    for problem in PROBLEMS:
        bundle = load_problem(problem)
        for function in bundle.spec.functions:
            yield problem, function.name


@pytest.mark.parametrize("problem,function", list(_functions()))
def test_candidates_are_deterministic_valid_and_smallest_first(problem, function):
    bundle = load_problem(problem)
    spec = bundle.spec.function(function)
    seeds = _seeds(bundle, function)
    first = candidates(spec, seeds, 64)
    again = candidates(spec, _seeds(load_problem(problem), function), 64)
    assert [c.key for c in first] == [c.key for c in again], "no clock, no unseeded randomness"
    assert 0 < len(first) <= 64
    assert [c.size for c in first] == sorted(c.size for c in first)
    domain = spec.domain
    for c in first:
        CaseSpec.model_validate({"id": "cx", "function": function, "args": c.args})  # the bundle's case syntax
        values = materialize(c.args)
        for name, arg in domain.args.items():
            value = values[name]
            if isinstance(arg, IntDomain):
                assert arg.int[0] <= value <= arg.int[1], (name, value)
            elif isinstance(arg, FloatDomain):
                assert arg.float[0] <= value <= arg.float[1], (name, value)
            elif value is None:
                assert arg.optional, name
            else:
                a = arg.array
                lead = value.ndim - len(a.axes)
                assert a.leading[0] <= lead <= a.leading[1] and value.dtype.name in a.dtypes, (name, value.shape)
                for axis, n in zip(a.axes, value.shape[lead:]):
                    lo, hi = a.axes[axis]
                    assert lo <= n <= hi, (name, axis, n)
                    if axis in a.match:
                        other = values[a.match[axis]]
                        assert other.shape[other.ndim - len(domain.args[a.match[axis]].array.axes) + list(
                            domain.args[a.match[axis]].array.axes).index(axis)] == n
                assert a.values[0] <= value.min() and value.max() <= a.values[1]
                limit = LARGE_MAX_ELEMENTS if "generate" in c.args[name] else MAX_ELEMENTS
                assert value.size <= limit


def test_no_candidate_repeats_a_hidden_case():
    """table-1x1 is hidden and is also the smallest valid table: the search must pass it over."""
    bundle = load_problem("sinusoidal-pe")
    spec = bundle.spec.function("sinusoidal_pe")
    hidden = [values for case, values in _cases_of(bundle, "sinusoidal_pe") if case.visibility == "hidden"]
    assert {"max_len": 1, "d_model": 1, "base": 10000.0} in hidden
    free = candidates(spec, [], 32)
    assert any(c.args == {"max_len": 1, "d_model": 1, "base": 10000.0} for c in free), "the control: it is a candidate"
    kept = candidates(spec, [], 32, hidden)
    assert all(materialize(c.args) not in hidden for c in kept)


def test_a_hidden_case_scalar_is_never_carried_over():
    """A hidden case's base (500) is part of what it hides: its seed carries the domain's simple value instead;
    a public case's own value is shown as it is."""
    bundle = load_problem("sinusoidal-pe")
    spec = bundle.spec.function("sinusoidal_pe")
    hidden = read_seed(spec, {"max_len": 9, "d_model": 7, "base": 500.0}, {}, {}, hidden=True)
    public = read_seed(spec, {"max_len": 9, "d_model": 7, "base": 500.0}, {}, {}, hidden=False)
    assert ("base", "value", 100.0) in hidden.features and ("base", "value", 500.0) in public.features
    assert all(c.args["base"] != 500.0 for c in candidates(spec, [(hidden, True)], 96))


def test_the_box_holds_the_first_wrong_element():
    bundle = load_problem("sinusoidal-pe")
    table = bundle.spec.function("sinusoidal_pe")
    expected = np.zeros((20, 16))
    got = expected.copy()
    got[1, 2] = got[7, 0] = 1.0  # (1+1)(2+1) = 6 < (7+1)(0+1) = 8
    tol = Tolerance(atol=1e-9, rtol=1e-9)
    assert mismatch_box(table, {"max_len": 20, "d_model": 16, "base": 1e4}, expected, got, tol) == \
        {"max_len": 2, "d_model": 3}
    assert mismatch_box(table, {"max_len": 20, "d_model": 16}, expected, expected, tol) == {}
    assert mismatch_box(table, {"max_len": 20, "d_model": 16}, expected, got.T, tol) == {}, "another shape"
    add = bundle.spec.function("add_positional_encoding")
    batched = np.zeros((2, 5, 4))
    wrong = batched.copy()
    wrong[1, 3, 1] = np.nan  # NaN counts as wrong; the leading index is any
    assert mismatch_box(add, {"x": batched}, batched, wrong, tol) == {"x.position": 4, "x.column": 2}


def test_large_candidates_never_take_a_hidden_case_shape():
    """A failing case too large for any small candidate (float32, 1x4096x64, hidden) gives zero-filled ones that
    numpy writes in one line, up to half its size: never its own shape."""
    bundle = load_problem("sinusoidal-pe")
    add = bundle.spec.function("add_positional_encoding")
    seed = read_seed(add, {"x": np.zeros((1, 4096, 64), np.float32), "base": 1e4}, {"x": "c"}, {"x": False},
                     hidden=True, box={"x.position": 22, "x.column": 3})
    made = candidates(add, [(seed, True)], 64)
    large = [c for c in made if "generate" in c.args["x"]]
    assert large and all(c.args["x"]["generate"]["distribution"] == "zeros" for c in large)
    assert all(c.args["x"]["generate"]["shape"] != [1, 4096, 64] for c in large)
    assert all(c.args["x"]["generate"]["dtype"] == "float32" for c in large), "the case's dtype is kept"
    assert any(c.args["x"].get("dtype") == "float32" and np.shape(c.args["x"]["literal"]) == (1, 22, 4)
               for c in made if "literal" in c.args["x"]), "the box: rows to 22, columns to 3 at the case's parity"


def test_the_python_line_makes_the_same_array_as_the_judge():
    """What a learner pastes gets the values, dtype, layout and read-only flag the judge's call had."""
    args = {"x": {"literal": [[[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0]]], "dtype": "float32",
                  "layout": "strided", "readonly": True}, "positions": None, "base": 100.0}
    from judge.diagnosis.counterexample.candidates import Candidate

    line = python_call(Candidate("apply_rope", args, (0,)))
    captured = {}
    exec("import numpy as np\ndef apply_rope(**kw):\n    captured.update(kw)\n" + line, {"captured": captured})
    judged = build_input_file([CaseSpec.model_validate({"id": "cx", "function": "apply_rope", "args": args})])
    x = judged.cases[0].values["x"]
    got = captured["x"]
    assert got.dtype == x.dtype and np.array_equal(got, x) and captured["base"] == 100.0
    assert not got.flags.writeable and not got.flags.c_contiguous and got.strides == x.strides
    fortran = python_call(Candidate("f", {"x": {"literal": [[1.0, 2.0], [3.0, 4.0]], "dtype": "float64",
                                                "layout": "fortran"}}, (0,)))
    assert eval(fortran[2:-1].split("=", 1)[1], {"np": np}).flags.f_contiguous
    zeros = python_call(Candidate("f", {"x": {"generate": {"shape": [1, 64, 64], "distribution": "zeros",
                                                           "dtype": "float32"}}}, (0,)))
    assert zeros == "f(x=np.zeros((1, 64, 64), dtype=np.float32))"


def _bundle_copy(tmp_path, edit) -> str:
    root = tmp_path / "sinusoidal-pe"
    shutil.copytree(REPO / "problems" / "sinusoidal-pe", root, ignore=shutil.ignore_patterns("__pycache__"))
    spec = yaml.safe_load((root / "problem.yaml").read_text())
    edit(spec)
    (root / "problem.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return str(root)


def _domain(spec, function):
    return next(f for f in spec["functions"] if f["name"] == function)["domain"]


@pytest.mark.parametrize("edit,words", [
    (lambda s: _domain(s, "sinusoidal_pe")["args"].pop("base"), "missing: base"),
    (lambda s: _domain(s, "sinusoidal_pe")["args"].update(depth={"int": [1, 2]}), "unknown: depth"),
    (lambda s: _domain(s, "sinusoidal_pe")["args"].update(max_len={"int": [5, 1]}), "is empty"),
    (lambda s: _domain(s, "add_positional_encoding")["args"]["x"]["array"].update(match={"position": "y"}),
     "names no axis"),
    (lambda s: _domain(s, "add_positional_encoding")["args"]["x"]["array"].update(axes={"position": [0, 4]}),
     "1 <= lo <= hi"),
    (lambda s: _domain(s, "sinusoidal_pe")["args"].update(base={"number": [1, 2]}),
     "is int: [lo, hi], float: [lo, hi] or array"),
])
def test_a_bad_domain_is_named_where_it_is(tmp_path, edit, words):
    root = _bundle_copy(tmp_path, edit)
    with pytest.raises(BundleError) as err:
        load_problem(root)
    assert words in str(err.value) and "problem.yaml" in str(err.value), str(err.value)


def test_a_bundle_may_turn_counterexamples_off(tmp_path):
    root = _bundle_copy(tmp_path, lambda s: _domain(s, "sinusoidal_pe").update(counterexamples=False))
    from judge.diagnosis.counterexample.search import searchable
    from judge.grading.prepare import prepare

    prepared = prepare(load_problem(root))
    try:
        assert searchable(prepared) == ["add_positional_encoding"]
    finally:
        prepared.close()


def test_case_add_judges_a_float32_call_as_the_domain_says():
    from judge.authoring.case_add import dtype_rule

    bundle = load_problem("sinusoidal-pe")
    rule = dtype_rule(bundle, "add_positional_encoding",
                      {"x": {"generate": {"shape": [1, 64, 64], "distribution": "zeros", "dtype": "float32"}}})
    assert rule == {"output_dtypes": ["float64", "float32"], "tolerance": {"atol": 1e-6, "rtol": 1e-6}}
    assert dtype_rule(bundle, "add_positional_encoding", {"x": {"literal": [[1.0]], "dtype": "float64"}}) == {}


def test_the_text_report_shows_it_small():
    from judge.feedback import Counterexample
    from judge.formats.common import summary
    from judge.formats.text import render_text
    from judge.verdict import Status, Verdict

    found = Counterexample(function="sinusoidal_pe", args={"max_len": 2, "d_model": 2, "base": 10000.0},
                           call="sinusoidal_pe(max_len=2, d_model=2, base=10000.0)", differs="values",
                           expected=[[0.0, 1.0], [0.8414709848, 0.5403023059]],
                           got=[[1.0, 0.0], [0.5403023059, 0.8414709848]], message="4 of 4 values differ")
    verdict = Verdict(problem="sinusoidal-pe", status=Status.WRONG_ANSWER, score=0.0, counterexample=found,
                      judge_version="test", numpy_version=np.__version__, python_version="3")
    text = render_text(verdict)
    assert "sinusoidal_pe(max_len=2, d_model=2, base=10000.0)" in text and "the values differ" in text
    assert "expected: [[0.      , 1.      ]," in text and "0.841471" in text
    assert "it is no case" in summary(verdict)
