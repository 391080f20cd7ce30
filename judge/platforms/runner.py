"""The one path every packaged run takes: find the learner's file, grade it, write the platform's file.

Course platforms read a result only when the grader exits 0 and leaves its
file in place, so :func:`run_packaged` never raises and never skips the file:
a missing or ambiguous submission, a broken bundle, a machine that cannot
isolate at the required level and a judge bug each become a verdict
(``compile_error`` for the learner's mistakes, ``internal_error`` for the
grader's), exported by the same code as any other verdict
(:mod:`judge.formats`), from the learner's view of it (:func:`learner_safe`).
Exactly one line goes to stderr per run, saying which
isolation mode the learner's code ran under (or why it did not run).

Learner code is never run unisolated here: the judge's own isolation ladder
decides (``JUDGE_ISOLATION`` / ``JUDGE_MIN_ISOLATION`` are honoured by it), and
``--unsafe-no-sandbox`` is not reachable from a packaged run.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judge._version import __version__
from judge.feedback import MessageRef
from judge.i18n import messages as m
from judge.i18n.catalog import verbatim
from judge.platforms.course_language import CourseLanguage, from_environment

if TYPE_CHECKING:
    from judge.problem.loader import Bundle
    from judge.verdict import Status, Verdict

MAX_SUBMISSION = 1 << 20   # a learner's .py file; the bundle's own source limit is checked by the judge
MAX_NOTEBOOK = 64 << 20    # a notebook with its outputs (never read); what is graded is checked by the judge
#: What a learner may submit: a Python file, or a notebook whose functions are graded (judge.notebooks).
SUBMITTED = (".py", ".ipynb")


@dataclass
class Submission:
    """The learner's source, or why there is none to grade (``said``: that reason as a message, for the
    learner's language)."""

    source: bytes | None
    name: str = ""
    said: MessageRef | None = None

    @property
    def problem(self) -> str:
        """Why there is nothing to grade, in English."""
        return _english(self.said) if self.said is not None else ""


def _english(ref: MessageRef) -> str:
    from judge.i18n.catalog import render
    from judge.i18n.negotiate import DEFAULT

    return render(ref, DEFAULT)


def _candidates(folder: Path, skip: Callable[[Path], bool]) -> list[Path]:
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.suffix in SUBMITTED and p.is_file()):
        rel = path.relative_to(folder)
        if any(part.startswith(".") or part in ("__MACOSX", "__pycache__") for part in rel.parts) or skip(rel):
            continue
        found.append(path)
    return found


def find_submission(folder: Path, preferred: str, skip: Callable[[Path], bool] = lambda p: False) -> Submission:
    """The file named ``preferred`` in ``folder`` (or the notebook of that name), else its only ``.py`` or
    ``.ipynb`` file (checkpoints and hidden folders aside); symlinks are refused."""
    if not folder.is_dir():
        return Submission(None, said=m.PK_NO_FOLDER(folder=str(folder)))
    notebook = Path(preferred).with_suffix(".ipynb").name
    path = next((folder / name for name in (preferred, notebook)
                 if (folder / name).is_file() and not (folder / name).is_symlink()), folder / preferred)
    if not path.is_file() or path.is_symlink():
        files = _candidates(folder, skip)
        if not files:
            return Submission(None, said=m.PK_NO_FILE(file=preferred, notebook=notebook))
        if len(files) > 1:
            names = ", ".join(str(p.relative_to(folder)) for p in files[:8])
            return Submission(None, said=m.PK_SEVERAL(names=names, file=preferred, notebook=notebook))
        path = files[0]
    if path.is_symlink():
        return Submission(None, said=m.PK_SYMLINK(name=path.name))
    size = path.stat().st_size
    if size > (MAX_NOTEBOOK if path.suffix == ".ipynb" else MAX_SUBMISSION):
        return Submission(None, said=m.PK_TOO_LARGE(name=path.name, size=size))
    return Submission(path.read_bytes(), name=path.name)


def _bare_verdict(status: Status, said: MessageRef, bundle: Bundle | None = None) -> Verdict:
    """A verdict for a run that never reached the sandbox (same model, same exporters); its message as ids, so
    the learner reads it in their language."""
    import numpy as np

    from judge.verdict import Verdict

    return Verdict(status=status, score=0.0, message=_english(said), said=[said],
                   problem=bundle.id if bundle is not None else "unknown",
                   problem_digest=bundle.digest if bundle is not None else "",
                   judge_version=__version__, numpy_version=np.__version__,
                   python_version=platform.python_version())


def _load(problem: Path) -> tuple[Bundle | None, str | None]:
    """(bundle, None), or (None, what is wrong with it)."""
    from judge.errors import JudgeError
    from judge.problem.loader import load_problem

    try:
        return load_problem(problem), None
    except JudgeError as exc:
        return None, str(exc)


def _bundle_or_none(problem: Path) -> Bundle | None:
    return _load(problem)[0]


def grade_submission(problem: Path, submission: Submission,
                     pictures_dir: Path | None = None) -> tuple[Verdict, Bundle | None, str]:
    """(verdict, bundle or None, the isolation line) for one packaged run; never raises.  With
    ``pictures_dir``, failing public cases are drawn there (``verdict.pictures``).  The run takes the
    cold path of ``judge grade`` (:func:`judge.oneshot.grade_once`): every packaged run is a cold start."""
    from judge.errors import BundleError, JudgeError, SandboxUnavailable
    from judge.verdict import Status

    started = time.perf_counter()
    if submission.source is None:
        bundle, error = _load(problem)
        if bundle is None:
            return _bare_verdict(Status.INTERNAL_ERROR, m.PK_BUNDLE_BROKEN(error=verbatim(str(error)))), None, \
                "isolation not reached: the problem bundle cannot be used"
        return _bare_verdict(Status.COMPILE_ERROR, submission.said or m.PK_NO_FILE(file="", notebook=""), bundle), \
            bundle, \
            "isolation not reached: nothing to grade"
    bundle = None
    try:
        from judge.oneshot import grade_once

        verdict, bundle, mode = grade_once(submission.source, problem, pictures_dir=pictures_dir,
                                           name=submission.name or None)
        mode = verdict.isolation.mode if verdict.isolation is not None else mode
        note = verdict.isolation.note if verdict.isolation is not None else ""
        line = f"isolation {mode}" + (f" ({note})" if note else "")
    except BundleError as exc:
        return _bare_verdict(Status.INTERNAL_ERROR, m.PK_BUNDLE_BROKEN(error=verbatim(str(exc)))), None, \
            "isolation not reached: the problem bundle cannot be used"
    except SandboxUnavailable as exc:
        bundle = _bundle_or_none(problem)
        verdict = _bare_verdict(Status.INTERNAL_ERROR, m.PK_CANNOT_ISOLATE(), bundle)
        line = f"isolation unavailable, code not run: {exc}"
    except JudgeError as exc:
        bundle = _bundle_or_none(problem)
        verdict = _bare_verdict(Status.INTERNAL_ERROR, m.PK_JUDGE_ERROR(error=verbatim(str(exc))), bundle)
        line = f"isolation not reached: {exc}"
    except Exception as exc:  # noqa: BLE001 - a judge bug is still the platform's result, never a crash
        bundle = _bundle_or_none(problem)
        verdict = _bare_verdict(Status.INTERNAL_ERROR, m.PK_JUDGE_BUG(error=verbatim(f"{type(exc).__name__}: {exc}")),
                                bundle)
        line = f"isolation not reached: internal error {type(exc).__name__}"
    if verdict.judged_in_ms is None:
        verdict.judged_in_ms = (time.perf_counter() - started) * 1e3
    return verdict, bundle, line


def learner_safe(verdict: Verdict, bundle: Bundle | None = None) -> Verdict:
    """The verdict as a learner may see it, cut by the bundle's feedback policy through the function the learner
    page uses (:func:`judge.formats.learner.learner_view`): hidden cases never show a message, shape, value or
    output (their shapes and exception texts give their arguments away); printed text only from loading and
    public cases.  Platform results are shown to learners, so they are rendered from this view."""
    from judge.formats.learner import learner_view

    return learner_view(verdict, bundle.spec.feedback if bundle is not None else None)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file: a reader never sees half a result."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".results-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def run_packaged(platform_name: str, problem: Path, submission: Callable[[], Submission], result_path: Path,
                 render: Callable[[Verdict, Bundle | None, str], str], pictures_dir: Path | None = None,
                 cuts_itself: bool = False, language: CourseLanguage | None = None) -> int:
    """Grade, render with ``render(verdict, bundle, lang)``, write ``result_path``, say one line on stderr; return
    0.  ``render`` gets the learner's view (:func:`learner_safe`) in the course's language, or with ``cuts_itself``
    the full verdict (a format that applies the feedback policy and the language itself, e.g. Gradescope's
    per-test visibility).  ``language``: the course's (default: the package's, ``JUDGE_COURSE_LANG``); a
    setting that is not a language is English, said on the stderr line."""
    from judge.i18n.localize import localize

    language = language or from_environment(os.environ)
    lang = language.lang
    try:
        verdict, bundle, line = grade_submission(problem, submission(), pictures_dir)
        shown = verdict if cuts_itself else localize(learner_safe(verdict, bundle), lang, bundle)
        text = render(shown, bundle, lang)
        status = verdict.status.value
    except Exception as exc:  # noqa: BLE001 - the last resort still leaves a result file
        from judge.verdict import Status

        verdict = _bare_verdict(Status.INTERNAL_ERROR, m.PK_JUDGE_BUG(error=verbatim(f"{type(exc).__name__}: {exc}")))
        text, status, line = render(localize(verdict, lang), None, lang), "internal_error", \
            f"isolation not reached: {type(exc).__name__}"
    if language.problem:
        line += f"; {language.problem}"
    try:
        write_atomic(result_path, text)
    except OSError as exc:
        line += f"; could not write {result_path}: {exc}"
    ms = verdict.judged_in_ms or 0.0
    print(f"judge: {platform_name}: {line}; verdict {status} in {ms:.0f} ms", file=sys.stderr, flush=True)
    return 0
