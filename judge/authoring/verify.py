"""``judge verify``: Kattis-style checks that a bundle is fit to grade with.

1. the bundle loads (models, cross-references, reference imports);
2. the reference matches the hand-checked values in problem.yaml;
3. the reference, graded as a submission in the sandbox, is accepted;
4. every example in submissions/<id>/<status>/ gets exactly that status;
5. the time limit leaves a margin over the slowest accepted example;
6. the author's report (judge.authoring): kill matrix, tolerance margins, calibrated time limits,
   statement examples, the smallest input that catches each wrong implementation (and inputs where an
   accepted example disagrees with the reference); its errors fail verify too.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from judge.authoring.report import AuthorReport, GradedExample, add_counterexamples, author_report
from judge.authoring.skeleton import unfinished
from judge.authoring.timelimits import DEFAULT_MULTIPLIER, write_calibration
from judge.diagnosis.expectations import check as check_feedback
from judge.diagnosis.expectations import expected_diagnosis  # noqa: F401 - the examples' '# diagnosis:' line
from judge.engine import Judge
from judge.problem.expected import load_reference
from judge.problem.loader import Bundle, load_problem, resolve
from judge.verdict import Status, Verdict

TIME_MARGIN = 2.0  # Kattis' safety margin: limits at least twice the slowest accepted run


@dataclass
class Row:
    item: str
    expected: str
    got: str
    ok: bool
    detail: str = ""


@dataclass
class VerifyReport:
    rows: list[Row] = field(default_factory=list)
    author: AuthorReport | None = None
    problem: str = ""
    translations: dict[str, list[str]] = field(default_factory=dict)  # language -> what it lacks (a note)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.rows) and (self.author is None or self.author.errors == 0)

    def as_dict(self) -> dict:
        return {"problem": self.problem, "ok": self.ok, "rows": [r.__dict__ for r in self.rows],
                "translations": self.translations,
                **(self.author.as_dict() if self.author else {})}


def reference_checks(bundle: Bundle) -> list[Row]:
    reference = load_reference(bundle)
    rows = []
    for check in bundle.spec.reference_checks:
        table = getattr(reference, check.function)(**check.args)
        names = bundle.spec.function(check.function).part_names
        if check.item is not None and names is not None:  # one item of a returned tuple (the loader checked it)
            table = table[names.index(check.item)]
        value = float(np.asarray(table)[tuple(check.index)])
        ok = abs(value - check.value) <= check.atol
        args = ", ".join(f"{k}={v}" for k, v in check.args.items())
        item = f".{check.item}" if check.item else ""
        rows.append(Row(f"reference {check.function}({args}){item}[{', '.join(map(str, check.index))}]",
                        f"{check.value:.7f}", f"{value:.7f}", ok, check.note))
    return rows


def bank_check(bundle: Bundle) -> list[Row]:
    if not bundle.spec.mistakes:
        return []
    bank = bundle.bank  # loaded and checked with the bundle: a broken bank is a BundleError at load time
    assert bank is not None  # the bundle names a mistakes file: its bank is loaded
    return [Row("mistake bank loads", "loads", "loads", True,
                f"{len(bank.spec.mistakes)} mistakes, {len(bank.spec.properties)} properties")]


def translation_notes(bundle: Bundle) -> list[tuple[str, list[str], str]]:
    """Per language the bundle may be translated into: what it lacks, and the line verify prints
    (``fr: complete``, ``ru: 2 mistakes without a message (a, b)``), plus any translated text that lost a
    formula or a code span of its English source."""
    from judge.problem.translations import LANGUAGES, missing, summary, text_drift

    out = []
    for lang in LANGUAGES:
        lines = [f"NOTE    [translations] {lang}: {summary(bundle, lang)}"]
        lines += [f"NOTE    [translations] {lang}: {where}: {why}" for where, why in text_drift(bundle, lang)]
        out.append((lang, missing(bundle, lang), "\n".join(lines)))
    return out


def default_submissions(bundle: Bundle) -> Path:
    return bundle.root.parent.parent / "submissions" / bundle.id


def verify_problem(problem: str, submissions: str | None = None, unsafe_no_sandbox: bool = False,
                   backend: str = "process", image: str | None = None,
                   echo: Callable[[str], None] = print, isolation: str | None = None,
                   multiplier: float = DEFAULT_MULTIPLIER, calibrate: bool = False,
                   workers: int = 1) -> VerifyReport:
    """``workers``: examples graded at once (each in its own sandbox; the rows still print in file order).
    Limits are decided from each run's kernel records, so grading side by side changes no verdict; only
    wall times grow when the machine has fewer cores than workers."""
    todo = unfinished(resolve(problem))
    if todo:  # a fresh `judge new` skeleton: one line per thing still to fill in, nothing run
        report = VerifyReport(problem=str(problem))
        for where, what in todo:
            report.rows.append(Row(where, "filled in", "TODO", False, what))
            echo(f"TODO {where}: {what}")
        echo(f"\n{len(todo)} things still to fill in")
        return report
    bundle = load_problem(resolve(problem))
    report = VerifyReport(problem=bundle.id)
    echo(f"{bundle.id}: bundle loads ({len(bundle.cases.cases)} cases, "
         f"{sum(c.visibility == 'public' for c in bundle.cases.cases)} public), digest {bundle.digest}")

    def add(row: Row) -> None:
        report.rows.append(row)
        mark = "ok  " if row.ok else "FAIL"
        echo(f"{mark} {row.item:58} expected {row.expected:22} got {row.got:22} {row.detail}")

    for row in reference_checks(bundle) + bank_check(bundle):
        add(row)
    for lang, lacks, line in translation_notes(bundle):  # notes: English stands in for what is missing
        report.translations[lang] = lacks
        echo(line)
    folder = Path(submissions) if submissions else default_submissions(bundle)
    slowest = 0.0
    graded: list[GradedExample] = []
    sources: dict[str, str] = {}
    with Judge(workers=workers, unsafe_no_sandbox=unsafe_no_sandbox, backend=backend, image=image,
               isolation=isolation) as judge:
        prepared = judge.problem(bundle.root)
        prepared.measure_errors = True  # accepted examples' errors, for the tolerance margins
        verdict = judge.grade(bundle.reference_path.read_bytes(), bundle.root)
        add(Row("reference graded as a submission", "accepted", verdict.status.value,
                verdict.status is Status.ACCEPTED, verdict.message[:80]))
        files = sorted(p for p in folder.glob("*/*") if p.suffix in (".py", ".ipynb")) if folder.is_dir() else []
        if not files:
            add(Row(f"examples in {folder}", "at least one", "none", False))
        statuses = {s.value for s in Status} - {Status.SKIPPED.value}

        def grade(path: Path) -> tuple[bytes, Verdict] | None:
            if path.parent.name not in statuses:
                return None
            data = path.read_bytes()
            return data, judge.grade(data, bundle.root, name=path.name)

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            verdicts = pool.map(grade, files)  # in file order, whichever finishes first
            for path, maybe in zip(files, verdicts):
                expected = path.parent.name
                if maybe is None:
                    add(Row(str(path.relative_to(folder)), "a status folder", expected, False,
                            "unknown folder name"))
                    continue
                data, verdict = maybe  # the bytes graded, not a second read of the file
                graded.append(GradedExample(str(path.relative_to(folder)), expected, verdict))
                sources[graded[-1].name] = data.decode("utf-8", errors="replace")
                if verdict.status is Status.ACCEPTED and verdict.resources.cpu_ms:
                    slowest = max(slowest, verdict.resources.cpu_ms / 1e3)
                first_line = verdict.message.splitlines()[0][:70] if verdict.message else ""
                detail = f"{verdict.judged_in_ms or 0:7.0f} ms  {first_line}"
                want, got, ok = expected, verdict.status.value, verdict.status.value == expected
                feedback = check_feedback(data, verdict)  # in any folder: a runtime error may have its name too
                if feedback is not None:  # the '# diagnosis:' / '# facts:' lines (judge.diagnosis.expectations)
                    want, got = f"{expected}/{feedback[0]}", f"{got}/{feedback[1]}"
                    ok = ok and feedback[2]
                add(Row(str(path.relative_to(folder)), want, got, ok, detail))
        report.author = author_report(prepared, graded, multiplier)  # before the judge closes the inputs
        add_counterexamples(report.author, judge, prepared, graded, sources)
    limit = bundle.spec.limits.cpu_seconds
    add(Row("CPU limit vs slowest accepted example", f">= {TIME_MARGIN:g} x {slowest:.2f} s", f"{limit:g} s",
            limit >= TIME_MARGIN * slowest))
    for line in report.author.text():
        echo(line)
    if calibrate and report.author.calibration is not None:
        changed = write_calibration(bundle.root / "problem.yaml", report.author.calibration.suggested)
        echo(f"\nwrote {bundle.root / 'problem.yaml'}: {', '.join(changed) or 'no limit line found to change'}")
    failed = sum(not r.ok for r in report.rows)
    echo(f"\n{len(report.rows) - failed} passed, {failed} failed; "
         f"{report.author.errors} report errors, {sum(f.level == 'warning' for f in report.author.findings)} warnings")
    return report
