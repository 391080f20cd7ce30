"""The counterexample search: the candidates of every failing function, judged in one extra sandboxed run.

For a wrong answer or a runtime error, the judge builds a small problem of its own: the candidates
(:mod:`.candidates`) as cases, their expected outputs computed by the bundle's reference in the judge's
process (a call the reference must raise on becomes a ``raises`` case), and runs the learner's file on all
of them at once, in the same sandbox and isolation as the grading run, within the bundle's search budget
(``limits.search_candidates``, ``limits.search_seconds``).  The first candidate, smallest first, whose result
differs -- out of tolerance, another shape or dtype, an exception where the reference returns or none where
it raises, a modified input -- is the counterexample.  A candidate that ran out of time or memory proves
nothing (the search's own budget is tighter than the bundle's) and is passed over; the verdict itself never
changes.

What the search may know of the submission's grading is which cases failed, nothing else: the failing public
cases seed it (their arguments are the learner's to see), and failing hidden cases only tell it to start from
the function's domain too (:func:`.seeds.explorer`).  Neither a hidden case's arguments nor the learner's
outputs of the grading run (which a file that reads every case's inputs could shape) reach the candidates, so
changing every hidden case while the same cases fail leaves the counterexample as it was, byte for byte.  The
whole search, candidates and reference outputs in the judge's process and the sandboxed run, ends within
``limits.search_seconds`` by the judge's monotonic clock (:class:`Budget`), whatever the domain says.

What the learner's code said in the search run (an exception, a description of what it returned) is shown as
the learner's own, cut to :data:`LEARNER_TEXT` characters: the run saw only candidates, on a result buffer
that held nothing but zeros, so no hidden case could have shaped it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from judge.diagnosis.counterexample.candidates import MAX_SEEDS, Candidate, candidates, size_of
from judge.diagnosis.counterexample.seeds import Seed, default_of, explorer, read_seed
from judge.feedback import Counterexample
from judge.grading.prepare import PreparedCase, PreparedProblem
from judge.grading.slots import JudgedRun, Observed, described
from judge.problem.expected import Expected, packed_output
from judge.problem.models import ArrayArg, CaseSpec
from judge.sandbox import NotAnOutput, RunLimits, RunRequest, unpack, wire
from judge.verdict import CaseResult, Status, Verdict

#: Statuses of a candidate that show a difference (time and memory prove nothing under the search's budget).
DIFFERING = (Status.WRONG_ANSWER, Status.RUNTIME_ERROR)
#: Elements of an expected or got array shown in full.
SHOWN_ELEMENTS = 512
#: Characters of the learner's own text (an exception, what came back) a counterexample shows at most.
LEARNER_TEXT = 1000
#: The share of the search's time that making candidates and their expected outputs may take.
MAKING_SHARE = 0.5
#: The sandbox's own set-up and tear-down around a run's wall time (kept out of the run's share): a warm
#: zygote's fork, or a container's start.
RUN_OVERHEAD = 0.15
CONTAINER_OVERHEAD = 1.0
#: A run with less wall time than this is not started (it could show nothing).
SHORTEST_RUN = 0.05


class SearchTimeUp(Exception):
    """The search's time ran out before its run could start: no counterexample, the verdict unchanged."""


@dataclass
class Budget:
    """The search's time, by the judge's monotonic clock: all of it ends within ``seconds`` of ``started``."""

    seconds: float
    started: float = field(default_factory=time.monotonic)
    overhead: float = RUN_OVERHEAD  #: the backend's set-up and tear-down of a run, outside its wall time

    def left(self) -> float:
        return self.seconds - (time.monotonic() - self.started)

    def making_over(self) -> bool:
        """Candidates and their expected outputs have had their share of the time."""
        return time.monotonic() - self.started > self.seconds * MAKING_SHARE

    def run_seconds(self) -> float:
        """The wall time left for the sandboxed run (its set-up and tear-down kept out); SearchTimeUp if too
        little is left for one."""
        left = self.left() - self.overhead
        if left < SHORTEST_RUN:
            raise SearchTimeUp(f"{self.seconds:g} s of search time spent before its run")
        return left


@dataclass
class Search:
    """A search made ready: the candidates as a prepared problem, and what each one is."""

    prepared: PreparedProblem
    candidates: list[Candidate]
    function_order: list[str]  #: the failing functions, the verdict's own first
    budget: Budget | None = None  #: the search's clock (None: the bundle's search_seconds for the run alone)

    def request(self, source: str) -> RunRequest:
        limits = self.prepared.bundle.spec.limits
        request = self.prepared.run_request(source)
        seconds = self.budget.run_seconds() if self.budget is not None else limits.search_seconds
        return RunRequest(source=source, calls=request.calls, input_size=request.input_size,
                          result_size=request.result_size, hide=request.hide,
                          limits=RunLimits(cpu_seconds=seconds, wall_seconds=seconds,
                                           memory_bytes=limits.memory_mib << 20, max_processes=limits.processes,
                                           output_bytes=limits.output_kib << 10))

    def close(self) -> None:
        self.prepared.close()


def failing_functions(verdict: Verdict, prepared: PreparedProblem) -> list[str]:
    """The functions a counterexample may be searched for: a wrong answer or runtime error in one of their
    cases, a domain in the bundle that allows counterexamples; the verdict's own failing case's first."""
    spec = prepared.bundle.spec
    order: list[str] = []
    for case in verdict.cases:
        if case.status in DIFFERING and case.function not in order:
            domain = spec.function(case.function).domain
            if domain is not None and domain.counterexamples:
                order.append(case.function)
    return order


def prepare_search(verdict: Verdict, prepared: PreparedProblem, reference,  # noqa: ANN001 - the bundle's module
                   budget: Budget | None = None) -> Search | None:
    """The search for ``verdict`` (None when there is nothing to search): candidates seeded by its failing
    public cases, and by the domain where hidden ones failed, with their expected outputs from ``reference``."""
    failing = [i for i, result in enumerate(verdict.cases) if result.status in DIFFERING]
    functions = failing_functions(verdict, prepared)
    if prepared.parent is not None:  # a phase's verdict (judge.grading.phases): its cases are some of the bundle's
        failing = [prepared.indices[i] for i in failing]
        prepared = prepared.parent
    return search_from(prepared, reference, functions, failing, budget=budget)


def search_from(prepared: PreparedProblem, reference, functions: list[str], seed_cases: list[int],  # noqa: ANN001
                exclude_public: bool = False, budget: Budget | None = None) -> Search | None:
    """The search over ``functions`` seeded by the cases ``seed_cases`` (indices; for each function its
    smallest few of those the searcher may see).  A learner's search (the default) sees the public cases: a
    hidden one among ``seed_cases`` only adds the domain's own seed, and no candidate is kept from or for any
    hidden case.  ``exclude_public``: an author's search, who sees every case, whose proposal is no case the
    bundle has (no candidate equals any case) and which always tries every feature the domain allows.
    ``budget``: the search's clock (candidates and expected outputs stop at their share of it)."""
    bundle = prepared.bundle
    if not functions or bundle.spec.limits.search_candidates == 0:
        return None
    stop = budget.making_over if budget is not None else (lambda: False)
    per_function = max(1, bundle.spec.limits.search_candidates // len(functions))
    seeding = set(seed_cases)
    chosen: list[Candidate] = []
    for name in functions:
        function = bundle.spec.function(name)
        failing: list[tuple[int, int, dict]] = []
        excluded: list[dict] = []
        from_domain = exclude_public
        for index, case in enumerate(bundle.cases.cases):
            if case.function != name:
                continue
            visible = exclude_public or case.visibility == "public"
            if exclude_public:
                excluded.append(with_defaults(function, prepared.inputs.cases[index].values))
            if index not in seeding:
                continue
            if visible:
                values = with_defaults(function, prepared.inputs.cases[index].values)
                failing.append((size_of(function, values), index, values))
            else:
                from_domain = True  # which cases failed is all a hidden one tells the search
        seeds = [
            _seed(function, prepared, index, values)
            for _, index, values in sorted(failing, key=lambda f: f[:2])[:MAX_SEEDS]
        ]
        if from_domain:
            seeds.append(explorer(function, _resting_lengths(function, prepared)))
        chosen += candidates(function, seeds, per_function, excluded, stop)
    return _as_problem(prepared, chosen, functions, reference, budget)


def searchable(prepared: PreparedProblem) -> list[str]:
    """The functions whose domain allows counterexamples, in the bundle's order."""
    return [f.name for f in prepared.bundle.spec.functions if f.domain is not None and f.domain.counterexamples]


def with_defaults(function, values: dict) -> dict:  # noqa: ANN001
    """A call's arguments with every parameter the domain names, defaults filled in."""
    return {name: values.get(name, default_of(function, name)) for name in function.domain.args}


def _resting_lengths(function, prepared: PreparedProblem) -> dict[str, int]:  # noqa: ANN001
    """The lengths of the function's smallest public case that returns (the first of the smallest), where the
    others rest while one length climbs; none without such a case."""
    public = [(size_of(function, values), index, values) for index, case in enumerate(prepared.bundle.cases.cases)
              if case.function == function.name and case.visibility == "public" and case.raises is None
              for values in [with_defaults(function, prepared.inputs.cases[index].values)]]
    if not public:
        return {}
    _, index, values = min(public, key=lambda p: p[:2])
    return _seed(function, prepared, index, values).lengths


def _seed(function, prepared: PreparedProblem, index: int, values: dict) -> Seed:  # noqa: ANN001
    spec = prepared.cases[index].spec
    arrays = {k: v for k, v in spec.args.items() if isinstance(v, ArrayArg)}
    return read_seed(function, values, {k: v.layout for k, v in arrays.items()},
                     {k: v.readonly for k, v in arrays.items()})


def _as_problem(prepared: PreparedProblem, chosen: list[Candidate], functions: list[str],
                reference, budget: Budget | None) -> Search | None:  # noqa: ANN001
    from judge.problem.inputs import build_input_file

    bundle = prepared.bundle
    spec = bundle.spec
    specs: list[CaseSpec] = []
    expected: list[Expected] = []
    kept: list[Candidate] = []
    for k, candidate in enumerate(chosen):
        if budget is not None and budget.making_over():
            break  # the candidates made so far, smallest of each function first, are tried
        function = spec.function(candidate.function)
        assert function.domain is not None  # candidates are made for functions with a domain only
        rule = function.domain.rule_for(candidate.args)
        out, raised = _reference_output(reference, function, candidate)
        if out is None and raised is None:
            continue  # the reference itself cannot answer this input: it is no counterexample
        specs.append(CaseSpec(id=f"cx-{k}", function=candidate.function, visibility="public",
                              args=candidate.args, raises=raised,
                              output_dtypes=rule.output_dtypes if rule is not None else None,
                              tolerance=rule.tolerance if rule is not None else None))
        expected.append(out if out is not None else Expected(np.zeros((0,), dtype=np.float64)))
        kept.append(candidate)
    if not specs:
        return None
    inputs = build_input_file(specs)
    cases: list[PreparedCase] = []
    offset = 0
    wall = min(spec.limits.case_wall_seconds, spec.limits.search_seconds)
    for case_spec, out in zip(specs, expected):
        function = spec.function(case_spec.function)
        capacity = max(int(out.values.nbytes), 4096)
        cases.append(PreparedCase(spec=case_spec, expected=out.values, tolerance=case_spec.tolerance or spec.tolerance,
                                  output_dtypes=list(case_spec.output_dtypes or function.output_dtypes),
                                  wall_seconds=wall, slot_offset=offset, slot_capacity=capacity, parts=out.parts,
                                  returns=function.wire_returns,
                                  part_names=tuple(function.part_names) if function.part_names else None))
        offset += wire.slot_size(capacity)
    searched = PreparedProblem(bundle, inputs, cases, offset, prepared.mtimes)
    return Search(searched, kept, functions, budget)


def _reference_output(reference, function, candidate: Candidate) -> tuple[Expected | None, str | None]:  # noqa: ANN001
    """The reference's float64 output on the candidate (packed as the harness packs the learner's), or the name
    of the exception it raises (it must raise it there too: a valid call the statement says raises, such as an
    odd d)."""
    from judge.problem.inputs import materialize

    values = materialize(candidate.args)
    try:
        out = getattr(reference, candidate.function)(**values)
    except Exception as exc:  # noqa: BLE001 - the reference's own answer: this call raises
        return None, type(exc).__name__
    try:
        packed = packed_output(function, out)
    except NotAnOutput:
        return None, None
    if not np.isfinite(packed.values).all():
        return None, None
    return Expected(np.array(packed.values, dtype=np.float64, order="C"), packed.part_shapes), None


def pick(search: Search, judged: JudgedRun) -> Counterexample | None:
    """The first differing candidate of the first failing function that has one (candidates are in size order)."""
    found: dict[str, int] = {}
    for index, (case, result) in enumerate(zip(search.prepared.cases, judged.cases)):
        if result.status in DIFFERING and case.spec.function not in found:
            found[case.spec.function] = index
    for name in search.function_order:
        if name in found:
            index = found[name]
            return _counterexample(search, index, judged.cases[index], judged.observed.get(index),
                                   len(search.candidates))
    return None


def _counterexample(search: Search, index: int, result: CaseResult, observed: Observed | None,
                    searched: int) -> Counterexample:
    case = search.prepared.cases[index]
    candidate = search.candidates[index]
    raises = case.spec.raises
    got = observed.got if observed is not None else None
    if raises is not None:
        differs = "raises another exception" if result.status is Status.RUNTIME_ERROR else "returns"
    elif result.status is Status.RUNTIME_ERROR:
        differs = "raises"
    elif result.input_changed and result.facts is not None and not result.facts.mismatched:
        differs = "input changed"
    elif result.got_shape is not None and (list(result.got_shape) != list(case.expected.shape)
                                           or result.got_parts != result.expected_parts):
        differs = "shape"
    elif result.got_shape is None:
        differs = "not an array"
    elif result.facts is not None and not result.facts.mismatched and not result.facts.nonfinite:
        differs = "dtype" if not result.input_changed else "input changed"
    else:
        differs = "values"
    shown_got = None
    if got is not None and got.size <= SHOWN_ELEMENTS:
        shown_got = _shown(got, observed.parts if observed is not None and case.parts is not None else None, case)
    got_text = ""
    if result.status is Status.RUNTIME_ERROR or (raises is not None and got is None) or differs == "not an array":
        got_text = learner_text((observed.message if observed is not None else "") or result.message)
    # the judge's own facts only: where the learner's text is the difference, it is in got_text, marked as theirs
    message = result.message[:2000] if differs in JUDGE_WORDED else ""
    return Counterexample(
        function=candidate.function,
        args=candidate.args,
        call=python_call(candidate),
        differs=differs,
        expected=None
        if raises is not None or case.expected.size > SHOWN_ELEMENTS
        else _shown(case.expected, case.parts, case),
        expected_raises=raises,
        got=shown_got,
        got_text=got_text,
        got_said=_got_said(got_text, result, differs),
        message=message,
        said=result.said if message and len(message) == len(result.message) else [],  # cut: English only
        searched=searched,
        case_add=case_add_command(search.prepared.bundle.id, candidate, raises),
    )


CUT = " ... (cut)"
#: What differs when the case's message is the judge's own comparison (no learner's text in it).
JUDGE_WORDED = ("values", "shape", "dtype", "input changed")


def _got_said(got_text: str, result: CaseResult, differs: str) -> list:
    """``got_text`` as message ids where it is the judge's words (the case's own message, what kind of value came
    back), so a learner reads it in their language; none where it is the learner's code's words only."""
    if not got_text:
        return []
    if got_text == result.message and result.said:
        return list(result.said)
    ref = described(got_text) if differs == "not an array" else None
    return [ref] if ref is not None and ref.id != "verbatim" else []


def learner_text(text: str) -> str:
    """What the learner's code said, as a counterexample shows it: printable characters and line breaks only
    (no terminal escapes, no carriage returns that overwrite the judge's lines), at most :data:`LEARNER_TEXT`
    characters, a cut marked as one."""
    clean = "".join(c if c.isprintable() or c == "\n" else "\ufffd" for c in text[:LEARNER_TEXT + 1])
    return clean if len(clean) <= LEARNER_TEXT else clean[:LEARNER_TEXT - len(CUT)] + CUT


def _shown(values: np.ndarray, parts: tuple | None, case: PreparedCase) -> object:
    """An output as a learner reads it: a number, nested lists, or a tuple output's items by name."""
    if parts is None:
        return values.tolist()
    return {case.item(k): item.tolist() for k, item in enumerate(unpack(values, parts))}


def case_add_command(problem: str, candidate: Candidate, raises: str | None) -> str:
    """The ``judge case add`` line that adds the candidate to the bundle as a case (a dtype rule of the domain
    is applied by ``judge case add`` itself)."""
    args = json.dumps(candidate.args, separators=(", ", ": "))
    return f"judge case add {problem} -f {candidate.function} --args '{args}'" + (
        f" --raises {raises}" if raises else ""
    )


def python_call(candidate: Candidate) -> str:
    """The candidate as a line of Python a learner can paste (with ``import numpy as np``): the same values,
    dtype, layout and read-only flag the judge's call had."""
    parts = [f"{name}={_array_text(value) if isinstance(value, dict) else repr(value)}"
             for name, value in candidate.args.items()]
    return f"{candidate.function}({', '.join(parts)})"


def _array_text(value: dict) -> str:
    if "generate" in value:
        made = value["generate"]
        shape = tuple(made["shape"])
        if made["distribution"] == "arange":
            text = f"np.arange({math.prod(shape)}, dtype=np.{made['dtype']})"
            text += f".reshape({shape})" if len(shape) > 1 else ""
        else:
            text = f"np.{made['distribution']}({shape}, dtype=np.{made['dtype']})"
    else:  # bool, not np.bool: numpy 1.24-1.26 have no np.bool
        dtype = "bool" if value["dtype"] == "bool" else f"np.{value['dtype']}"
        text = f"np.array({value['literal']!r}, dtype={dtype})"
    if value.get("layout") == "fortran":
        text = f"np.asfortranarray({text})"
    elif value.get("layout") == "strided":  # every other element of an array twice as wide
        text = f"np.repeat({text}, 2, axis=-1)[..., ::2]"
    if value.get("readonly"):
        text = f"np.lib.stride_tricks.as_strided({text}, writeable=False)"
    return text


Runner = Callable[[PreparedProblem, RunRequest], JudgedRun]


def find(verdict: Verdict, prepared: PreparedProblem, source: str, reference, run: Runner,  # noqa: ANN001
         budget: Budget | None = None) -> Counterexample | None:
    """The counterexample for ``verdict``, or None: ``run`` judges the search's one sandboxed run.  All of it
    ends within the bundle's ``search_seconds`` from now (or from ``budget``'s start); SearchTimeUp when the
    making of candidates left no time for the run."""
    budget = budget or Budget(prepared.bundle.spec.limits.search_seconds)
    search = prepare_search(verdict, prepared, reference, budget)
    if search is None:
        return None
    try:
        judged = run(search.prepared, search.request(source))
        return pick(search, judged)
    finally:
        search.close()


__all__ = [
    "Budget",
    "CONTAINER_OVERHEAD",
    "find",
    "learner_text",
    "pick",
    "prepare_search",
    "python_call",
    "Search",
    "SearchTimeUp",
    "search_from",
    "searchable",
]
