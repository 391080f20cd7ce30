"""``Judge``: the warm grading engine behind the Python API, the CLI and the service.

It keeps, per bundle version, the prepared inputs and expected outputs, and a
pool of warm zygotes; a verdict is one static check, one sandboxed run of all
cases, and the comparisons in this process.
"""

from __future__ import annotations

import dataclasses
import logging
import platform
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from judge._version import __version__
from judge.errors import JudgeError
from judge.grading.phases import PhaseRun
from judge.grading.prepare import PreparedProblem, bundle_mtimes
from judge.grading.run_plan import prepare_and_plan
from judge.grading.static_check import check_source, decode_source
from judge.problem.loader import Bundle, load_problem, resolve
from judge.sandbox import BackendError, BackendFactory, InBackground, RunLimits, RunReport, RunRequest, SandboxBackend

if TYPE_CHECKING:
    from judge.diagnosis.counterexample.search import Budget
    from judge.grading.run_plan import EarlyRun
    from judge.sandbox import Capture
    from judge.verdict import CapturedOutput, CaseResult, Counterexample, Isolation, Status, Verdict

OUTPUT_KEEP = 16 << 10
log = logging.getLogger("judge")


def _load_grading_side() -> None:
    """Import what judges a run's results: the verdict models, the comparisons, the output capture.

    Not imported with this module: a cold ``judge grade`` imports them (~0.1 s) while the learner's code
    runs (:func:`_run_beside`), after the bundle is loaded and the run has started."""
    import judge.grading.capture  # noqa: F401
    import judge.grading.slots  # noqa: F401
    import judge.verdict  # noqa: F401


def _captured(capture: Capture) -> CapturedOutput:
    from judge.verdict import CapturedOutput

    text, size = capture.text, capture.bytes
    if len(text) > OUTPUT_KEEP:
        text = text[:OUTPUT_KEEP]
    return CapturedOutput(text=text, bytes=size, truncated=size > len(text.encode()))


def _run_beside(backend: SandboxBackend, request: RunRequest, inputs_fd: int | None,
                meanwhile: Callable[[InBackground], None]) -> RunReport:
    """``backend.run`` in a thread, while this one calls ``meanwhile(run)`` (which judges the slots the run
    finishes).  In a fresh process the grading side is imported first (:func:`_load_grading_side`): a cold
    ``judge grade`` does that while the learner's code runs, not before."""
    running = InBackground(lambda: backend.run(request, inputs_fd), "judge-run")
    try:
        _load_grading_side()
        meanwhile(running)
    finally:
        running.join()  # the backend is ours until its run is over, whatever the imports did
    return running.result()


def _search_runner(backend: SandboxBackend):  # noqa: ANN202 - counterexample.search.Runner
    """How a counterexample search's one run goes on ``backend``: its own slots, the learner's file, judged.

    The run starts on a result buffer of zeros, as any submission's run does: whatever the grading run wrote
    anywhere in it (every case's inputs, a hidden one's included, if the file chose to) is gone before the
    learner's code runs again.  On a backend that gates its runs the zeroing begun when the grading run was
    judged (:meth:`ResultBuffer.scrub_in_background`) overlaps this run's set-up (``deferred``); on others
    :meth:`ResultBuffer.start_run` waits for it, or zeroes the buffer itself."""
    from judge.grading.slots import CaseJudging

    def run(searched: PreparedProblem, request: RunRequest):  # noqa: ANN202
        buffer = backend.result_buffer_for(searched.result_size)
        buffer.start_run(searched.slot_offsets, deferred=getattr(backend, "gates_runs", False) is True)
        report = backend.run(request, searched.inputs.fd)
        if report.error or report.setup_error:
            raise BackendError(report.error or report.setup_error)
        return CaseJudging(searched, buffer.map).finish(report, cpu_limit=request.limits.cpu_seconds)

    return run


def _search(verdict: Verdict, prepared: PreparedProblem, source: str, backend: SandboxBackend,
            budget: Budget) -> Counterexample | None:
    """The counterexample for ``verdict`` (or None), found with one more run of ``source`` on ``backend``, which
    this submission still holds (its buffer is being zeroed: the search's run starts on zeros).  Never raises:
    a search that fails leaves the verdict as it is."""
    from judge.diagnosis.counterexample import search as counterexample

    try:
        return counterexample.find(verdict, prepared, source, prepared.reference(), _search_runner(backend), budget)
    except (BackendError, counterexample.SearchTimeUp) as exc:  # the backend could not run it, or no time left
        log.info("no counterexample search for %s: %s", prepared.bundle.id, exc)
        return None
    except Exception:  # noqa: BLE001 - the search explains; it never decides
        log.exception("counterexample search failed for %s", prepared.bundle.id)
        return None


def _from_notebook(source: str | bytes, required: list[str], name: str | None = None):  # noqa: ANN202
    """(the notebook's graded source or None, what to grade, why it cannot be graded or ""): a notebook (by its
    ``name``, or by its content when it has none) is graded by the statements its required functions reach
    (:mod:`judge.notebooks`); any other file as it is."""
    from judge.notebooks import read_submission

    submitted = read_submission(source, required, name)
    return submitted.notebook, submitted.source, submitted.refused


def _bounded(verdict: Verdict) -> Verdict:
    """``verdict`` with its JSON under the documented size, whatever the learner's file made its texts
    (:mod:`judge.grading.verdict_size`)."""
    from judge.grading.verdict_size import bounded as cut_to_size

    return cut_to_size(verdict)


def _with_cells(verdict: Verdict, notebook) -> Verdict:  # noqa: ANN001 - a GradedSource or None
    if notebook is None:
        return verdict
    from judge.grading.source_lines import name_cells

    return name_cells(verdict, notebook)


class Judge:
    """Grades submissions; reusable and thread-safe.  Use as a context manager.

    Learner code runs in backends made by ``backend_factory`` (slot index -> a
    :class:`~judge.sandbox.boundary.contract.SandboxBackend`); without one, the judge
    makes the backend of an isolation mode: ``isolation`` (full, rootless,
    reduced, container, none; default: env JUDGE_ISOLATION, else the best this
    machine can give, see :mod:`judge.sandbox.modes.ladder`).  ``unsafe_no_sandbox``
    allows mode none where the machine cannot isolate; ``backend="container"``
    is ``isolation="container"``.  Every verdict records the mode in
    ``verdict.isolation``.  ``counterexamples``: for a wrong answer or a runtime error, search the function's
    input domain for the smallest input on which it differs (one extra run, :mod:`judge.diagnosis.counterexample`).
    ``phased`` (learner-facing doors): the public cases are graded first, in a run given no hidden case's
    arguments, and their verdict (``phase="public"``) handed to ``grade``'s ``on_public``; the hidden cases then
    run in a fresh run of their own (:mod:`judge.grading.phases`).  Authors' tools grade in one run.
    """

    def __init__(self, workers: int = 1, unsafe_no_sandbox: bool = False, backend: str = "process",
                 image: str | None = None, isolation: str | None = None,
                 backend_factory: BackendFactory | None = None, counterexamples: bool = True,
                 phased: bool = False) -> None:
        if backend_factory is None:
            from judge.sandbox import backend_factory_for

            backend_factory = backend_factory_for(isolation, unsafe_no_sandbox, image=image, backend=backend)
        self._factory = backend_factory
        self._workers = max(1, workers)
        self._pool: queue.Queue[SandboxBackend] = queue.Queue()
        self._started = 0
        self._lock = threading.Lock()
        self._prepared: dict[Path, PreparedProblem] = {}
        self._closed = False
        self.counterexamples = counterexamples
        self.phased = phased

    # -- problems -----------------------------------------------------------
    def problem(self, problem: str | Path) -> PreparedProblem:
        """The prepared bundle, rebuilt when any of its files changed."""
        root = resolve(problem)
        with self._lock:
            current = self._prepared.get(root)
            if current is not None and current.mtimes == bundle_mtimes(root):
                return current
            prepared = prepare_and_plan(load_problem(root))
            if current is not None:
                current.close()
            self._prepared[root] = prepared
            return prepared

    # -- backends -----------------------------------------------------------
    @property
    def isolation_mode(self) -> str | None:
        """The mode the factory's backends give (None for a factory that does not say)."""
        return getattr(self._factory, "mode", None)

    def _new_worker(self) -> SandboxBackend:
        return self._factory(self._started)

    def _acquire(self) -> SandboxBackend:
        with self._lock:
            if self._pool.empty() and self._started < self._workers:
                self._started += 1
                try:
                    return self._new_worker()
                except Exception:
                    self._started -= 1
                    raise
        return self._pool.get()

    @staticmethod
    def _close_worker(zygote: SandboxBackend) -> None:
        zygote.close()  # the backend's result buffer goes with it

    def _release(self, zygote: SandboxBackend) -> None:
        if zygote.alive() and not self._closed:
            self._pool.put(zygote)
        else:
            self._close_worker(zygote)
            with self._lock:
                self._started -= 1

    def start(self) -> None:
        """Launch every worker now, without waiting for them to be ready (overlaps the judge's own start-up)."""
        started = [self._acquire() for _ in range(self._workers - self._started)]
        for z in started:
            self._release(z)

    def warm_up(self) -> None:
        """Start every worker and wait until each is ready to run a submission."""
        started = [self._acquire() for _ in range(self._workers)]
        for z in started:
            z.isolation  # noqa: B018 - blocks until the backend is ready
            self._release(z)

    # -- grading ------------------------------------------------------------
    def _verdict(self, bundle: Bundle, status: Status, **fields: Any) -> Verdict:
        from judge.verdict import Verdict

        return Verdict(status=status, problem=bundle.id, problem_digest=bundle.digest,
                       judge_version=__version__, numpy_version=np.__version__,
                       python_version=platform.python_version(), score=fields.pop("score", 0.0), **fields)

    def _internal_error(self, bundle: Bundle, message: str) -> Verdict:
        """The judge or its sandbox failed before a run could be judged (the verdict models may not be
        imported yet: a cold run imports them while the learner's code runs)."""
        from judge.verdict import Status

        return self._verdict(bundle, Status.INTERNAL_ERROR, message=message)

    def grade(self, source: str | bytes, problem: str | Path = "sinusoidal-pe",
              pictures_dir: str | Path | None = None, early: EarlyRun | None = None,
              name: str | None = None, on_public: Callable[[Verdict], None] | None = None) -> Verdict:
        """Grade one submission.  Raises :class:`JudgeError` only for problems with the bundle itself.

        ``pictures_dir``: render PNGs of failing public cases there (``verdict.pictures`` names the files).
        ``early``: this submission's run, already begun from the bundle's run plan (:mod:`judge.grading.run_plan`);
        its report is used only if it is exactly the run this judge would make now.
        ``name``: the submitted file's name, if it has one: ``.ipynb`` is a notebook, any other suffix Python;
        without one, a file is a notebook only if it parses as one (:mod:`judge.notebooks.submitted`).
        The verdict's JSON stays under :data:`judge.grading.verdict_size.MAX_VERDICT_BYTES` whatever the file.
        ``on_public``: on a phased judge, called in this thread with the public cases' verdict as soon as it is
        judged, before the hidden cases run (not called when the bundle grades in one run)."""
        started = early.started if early is not None else time.perf_counter()
        prepared = self.problem(problem)
        bundle = prepared.bundle
        spec = bundle.spec
        from judge.notebooks import ReaderFailed

        try:
            notebook, source, refused = _from_notebook(source, [f.name for f in spec.functions], name)
        except ReaderFailed as exc:
            return self._internal_error(bundle, str(exc))
        text, issue = (None, None) if refused else decode_source(source, spec.limits.source_kib * 1024)
        if issue is None and text is not None:
            issue = check_source(text, [f.name for f in spec.functions], spec.imports.allowed)
        if refused or issue is not None or text is None:
            from judge.verdict import Status

            message = refused or (issue.message if issue else "")
            said = [issue.said] if not refused and issue is not None and issue.said is not None else []
            if refused:
                from judge.grading.refusals import refusal_said

                said = [refusal_said(refused)]
            verdict = self._verdict(bundle, Status.COMPILE_ERROR, message=message, said=said,
                                    judged_in_ms=(time.perf_counter() - started) * 1e3)
            return _bounded(_with_cells(verdict, notebook))
        def public(verdict: Verdict) -> None:
            if on_public is None:
                return
            shown = verdict.model_copy(deep=True)
            shown.judged_in_ms = (time.perf_counter() - started) * 1e3
            on_public(_bounded(_with_cells(shown, notebook)))

        try:
            verdict = self._run(prepared, text, pictures_dir, early, public)
        except (BackendError, OSError) as exc:
            verdict = self._internal_error(bundle, f"the sandbox failed: {exc}")
        except JudgeError:
            raise
        except Exception as exc:  # noqa: BLE001 - a judge bug is the judge's verdict, never the caller's crash
            verdict = self._internal_error(bundle, f"internal error in the judge: {type(exc).__name__}: {exc}")
        verdict.judged_in_ms = (time.perf_counter() - started) * 1e3
        return _bounded(_with_cells(verdict, notebook))

    def _run(self, prepared: PreparedProblem, source: str, pictures_dir: str | Path | None = None,
             early: EarlyRun | None = None, on_public: Callable[[Verdict], None] | None = None) -> Verdict:
        """One submission through the pipeline: in one run, or (a phased judge, a bundle with both kinds of
        case) its public cases' run, their verdict handed to ``on_public``, then its hidden cases' run, merged."""
        phases = prepared.phases() if self.phased else None
        if phases is None:
            return self._run_phase(prepared, source, pictures_dir, early).verdict
        try:
            return self._run_phased(prepared, phases, source, pictures_dir, early, on_public)
        finally:
            if early is not None:  # a one-shot start makes no other run: its zygote may finish alone
                with self._pool.mutex:
                    for idle in self._pool.queue:
                        idle.retire()

    def _run_phased(self, prepared: PreparedProblem, phases: tuple[PreparedProblem, PreparedProblem], source: str,
                    pictures_dir: str | Path | None, early: EarlyRun | None,
                    on_public: Callable[[Verdict], None] | None) -> Verdict:
        """The public cases' run, their verdict handed to ``on_public``, the hidden cases' run, merged."""
        from judge.grading import phases as phased

        public, hidden = phases
        first = self._run_phase(public, source, pictures_dir, early, last=False)
        if first.judged is None or first.report is None:  # the sandbox failed: that is the verdict
            return first.verdict
        first.verdict.phase = "public"
        if on_public is not None:
            on_public(first.verdict)
        if phased.ended(first.judged):  # today's rule: a process that died skips every later case
            second = phased.skipped(hidden)
        else:
            limits = phased.remaining(hidden.bundle.spec.limits, first.report)
            second = self._run_phase(hidden, source, None, None, limits=limits, explain=False)
            if second.judged is None or second.report is None:
                return second.verdict
        verdict, observed = phased.merge(prepared, first, second, self._verdict)
        from judge.verdict import Status

        if any(c.status is not Status.ACCEPTED for c in verdict.cases):
            from judge.diagnosis import explain_safely

            explain_safely(verdict, prepared, observed, source)
        differing = (Status.WRONG_ANSWER, Status.RUNTIME_ERROR)
        if any(c.status in differing for c in second.verdict.cases):
            # Hidden failures seed the search from the domain too: the public phase's search is not the one a
            # single run makes, so the merged verdict's is made now.  Otherwise it is that very search (the same
            # failing functions, the same public seeds), already made: its answer stands.
            verdict.counterexample = None
            if self.counterexamples and verdict.status in differing:
                verdict.counterexample = self._search_alone(verdict, prepared, source)
        return verdict

    def _search_alone(self, verdict: Verdict, prepared: PreparedProblem, source: str) -> Counterexample | None:
        """The counterexample search for a merged verdict, on a backend of its own (its run starts on zeros)."""
        from judge.diagnosis.counterexample.search import CONTAINER_OVERHEAD, Budget

        budget = Budget(prepared.bundle.spec.limits.search_seconds)
        backend = self._acquire()
        try:
            if not getattr(backend, "warm", True):
                budget.overhead = CONTAINER_OVERHEAD
            return _search(verdict, prepared, source, backend, budget)
        finally:
            self._let_go(backend, prepared)

    def _run_phase(self, prepared: PreparedProblem, source: str, pictures_dir: str | Path | None = None,
                   early: EarlyRun | None = None, last: bool = True, limits: RunLimits | None = None,
                   explain: bool = True) -> PhaseRun:
        """One run of ``prepared``'s cases: the run (judged while it goes on), the verdict, then (``explain``)
        what explains it -- the diagnosis, and beside it the counterexample search's own run on the same backend.
        ``last``: no other run of this submission follows (an adopted early run's backend may finish alone);
        ``limits``: the run's own, when not the bundle's (a hidden phase has what the public one left)."""
        bundle = prepared.bundle
        request = prepared.run_request(source)
        if limits is not None:
            request = dataclasses.replace(request, limits=limits)
        backend = self._acquire()
        judging = None

        def judge_meanwhile(run: InBackground) -> None:
            """While ``run`` (this submission's) goes on: judge the slots it has finished, where the backend
            writes them one by one, header last (``streams_slots``)."""
            nonlocal judging
            from judge.grading.slots import CaseJudging

            buffer = backend.result_buffer_for(prepared.result_size)
            judging = CaseJudging(prepared, buffer.map)
            if backend.streams_slots:
                # not before the buffer is cleared: until then its slots may still hold the last run's bytes
                judging.judge_until_over(run, ready=lambda: buffer.cleared)

        searching = None
        try:
            report = None
            if early is not None:
                _load_grading_side()  # while the early run goes on
                report = early.adopt(backend, prepared, request, judge_meanwhile, last=last)
            buffer = backend.result_buffer_for(prepared.result_size)
            if report is None:
                # A backend that gates its runs clears the buffer itself once the request is sent, before any
                # learner code runs (the last run's scrub then overlaps this run's set-up): ResultBuffer.clear.
                buffer.start_run(prepared.slot_offsets, deferred=getattr(backend, "gates_runs", False) is True)
                report = _run_beside(backend, request, prepared.inputs.fd, judge_meanwhile)
            from judge.grading.capture import attach_output  # loaded during the run (_run_beside), or long before
            from judge.grading.slots import CaseJudging
            from judge.verdict import Status

            isolation = backend.isolation  # as the run had it (a replayed run brings its own)
            if report.error:
                return PhaseRun(self._verdict(bundle, Status.INTERNAL_ERROR, isolation=isolation,
                                              message=f"the sandbox failed: {report.error}"))
            if report.setup_error:
                return PhaseRun(self._verdict(bundle, Status.INTERNAL_ERROR, isolation=isolation,
                                              message="the sandbox could not be set up: "
                                                      f"{report.setup_error.strip().splitlines()[-1]}"))
            # The backend stays ours until its results are judged: the next run reuses the buffer.
            if judging is None:
                judging = CaseJudging(prepared, buffer.map)
            judged = judging.finish(report, rlimit_memory=isolation.limits_by == "rlimits",
                                    cpu_limit=limits.cpu_seconds if limits is not None else None)
            verdict = self._assemble(bundle, judged.cases, report, judged.killed_for, isolation)
            if explain and self.counterexamples and verdict.status in (Status.WRONG_ANSWER, Status.RUNTIME_ERROR):
                from judge.diagnosis.counterexample.search import CONTAINER_OVERHEAD, Budget

                budget = Budget(bundle.spec.limits.search_seconds)
                if not getattr(backend, "warm", True):  # each run starts a container: its start is search time
                    budget.overhead = CONTAINER_OVERHEAD
                # The grading run's slots are judged (what diagnosis needs is copied out): zero the buffer now,
                # while the search makes its candidates, so that its run starts on zeros like any other.
                buffer.scrub_in_background()
                searching = InBackground(lambda: _search(verdict, prepared, source, backend, budget),
                                         "judge-counterexample")
        finally:
            if searching is None:  # the backend is no longer needed: free for the next submission
                self._let_go(backend, prepared)
        try:
            verdict.load_output = attach_output(verdict.cases, report.stdout, report.stderr, judged.spans)
            if explain and any(c.status is not Status.ACCEPTED for c in verdict.cases):  # else nothing to explain
                from judge.diagnosis import explain_safely  # imported on the first failure: ~0.1 s off a cold start

                explain_safely(verdict, prepared, judged.observed, source)
            if searching is not None:
                verdict.counterexample = searching.result()
        finally:
            if searching is not None:
                searching.join()
                self._let_go(backend, prepared)
        if pictures_dir is not None:
            from judge.diagnosis.pictures import render_pictures_safely

            verdict.pictures = render_pictures_safely(verdict, prepared, judged.observed, pictures_dir)
        return PhaseRun(verdict, judged, report)

    def _let_go(self, backend: SandboxBackend, prepared: PreparedProblem) -> None:
        """This submission is done with ``backend``: its buffer zeroed (in the background) before anyone's next
        run, and the backend back in the pool."""
        if not backend.retired:
            backend.result_buffer_for(prepared.result_size).scrub_in_background()
        self._release(backend)

    def _assemble(self, bundle: Bundle, cases: list[CaseResult], report: RunReport, killed_for: str | None,
                  isolation: Isolation) -> Verdict:
        from judge.grading.process_end import resources
        from judge.verdict import Status

        failing = next((c for c in cases if c.status is not Status.ACCEPTED), None)
        status = failing.status if failing else Status.ACCEPTED
        total = sum(c.weight for c in cases) or 1.0
        score = sum(c.weight for c in cases if c.status is Status.ACCEPTED) / total
        message, said = "", []
        if failing is not None:
            from judge.i18n.localize import first_failing

            said = [first_failing(failing)]
            label = failing.id if failing.visibility == "public" else f"{failing.id} (hidden)"
            message = f"first failing case {label}: {failing.message}"
        return self._verdict(bundle, status, score=round(score, 6), cases=cases, message=message, said=said,
                             stdout=_captured(report.stdout), stderr=_captured(report.stderr),
                             resources=resources(report, killed_for), isolation=isolation)

    # -- lifecycle ----------------------------------------------------------
    def search(self, source: str, problem: str | Path, seed_cases: list[int] | None = None,  # noqa: ANN201
               name: str | None = None):
        """For authors (``judge verify``): the smallest input on which ``source`` differs from the reference,
        over every function whose domain allows it, seeded by the cases ``seed_cases`` (indices; every case when
        None) and equal to none of them, found in one sandboxed run.  A Counterexample or None."""
        from judge.diagnosis.counterexample import search as counterexample
        from judge.notebooks import ReaderFailed

        prepared = self.problem(problem)
        try:
            _, source, refused = _from_notebook(source, [f.name for f in prepared.bundle.spec.functions], name)
        except ReaderFailed:
            return None
        if refused:
            return None
        seeds = list(range(len(prepared.cases))) if seed_cases is None else seed_cases
        searched = counterexample.search_from(prepared, prepared.reference(), counterexample.searchable(prepared),
                                              seeds, exclude_public=True)
        if searched is None:
            return None
        backend = self._acquire()
        try:
            judged = _search_runner(backend)(searched.prepared, searched.request(source))
            return counterexample.pick(searched, judged)
        finally:
            searched.close()
            self._let_go(backend, searched.prepared)

    def close(self) -> None:
        self._closed = True
        while not self._pool.empty():
            self._close_worker(self._pool.get())
        with self._lock:
            for prepared in self._prepared.values():
                prepared.close()
            self._prepared.clear()

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def grade(source: str | bytes, problem: str | Path = "sinusoidal-pe", unsafe_no_sandbox: bool = False,
          isolation: str | None = None, name: str | None = None) -> Verdict:
    """Grade one submission with a short-lived judge (start-up included); ``name`` as for :meth:`Judge.grade`."""
    with Judge(unsafe_no_sandbox=unsafe_no_sandbox, isolation=isolation) as judge:
        return judge.grade(source, problem, name=name)


__all__ = ["Judge", "grade", "JudgeError"]
