"""``from judge import check``: grade the functions a learner's kernel holds now, on the public cases.

The door for notebook courses.  In Jupyter, JupyterLab, Colab or VS Code, the cells the kernel has
run (IPython's raw input history, in the order they ran) become a notebook that is graded exactly as a saved
``.ipynb`` is (:mod:`judge.notebooks`: the statements the required functions reach, IPython syntax handled
as IPython does), so a check and the grade of the saved notebook agree.  Cell N in a message is ``In [N]``.
Called from a file (``python script.py``, an IDE's Run button, IPython's ``%run``, Spyder's ``runfile``), the
calling file is graded, as a one-cell notebook is: its check and its import of the judge left out, line numbers
kept (:mod:`judge.notebooks.script`).

The learner's code runs in the best isolation the machine gives (a laptop: rootless; Colab or a container as
root: reduced; a Linux machine as root: full); where none works, in a separate process without isolation, and
the report says so: it is the learner's own code on the learner's own machine.

The problem is found beside the notebook (the hand-out folder ``judge package notebook`` wrote), or by path, or
among the installed problems (:mod:`judge.problem.locate`; with ``JUDGE_PROBLEMS_DIR`` set, only there and among
the installed ones).  It is the learner's tool: what it reports in their kernel is feedback, not a grade (the
otter and nbgrader adapters grade outside the kernel: :mod:`judge.platforms.notebook_grading`).  A hand-out holds
public cases only, and the report says how many hidden cases run on submission: "public cases: 3 of 4 passed; 18
hidden cases run when you submit".  With a full bundle (an author checking their own course), hidden cases are
graded and counted, never shown.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.verdict import Status, Verdict

if TYPE_CHECKING:
    from judge.problem.loader import Bundle

_judges: dict[str, Any] = {}
_lock = threading.Lock()


class CheckedVerdict(Verdict):
    """The verdict ``check()`` returns: a :class:`Verdict` with a one-line repr (the report was shown already)."""

    def __repr__(self) -> str:
        return f"<Verdict {self.problem}: {self.status.value}, {headline(self)}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython's pretty printer
        printer.text(repr(self))


def headline(verdict: Verdict, hidden_in_handout: int | None = None, lang: str = "en") -> str:
    """"public cases: k of n passed; m hidden cases run when you submit" (a hand-out), or the hidden cases'
    own count when the bundle had them; in ``lang``."""
    from judge.i18n import messages as m
    from judge.i18n.catalog import say

    sep = " ; " if lang == "fr" else "; "  # French sets a space before a semicolon
    public = [c for c in verdict.cases if c.visibility == "public"]
    hidden = [c for c in verdict.cases if c.visibility == "hidden"]
    passed = sum(c.status is Status.ACCEPTED for c in public)
    line = say(m.CHECK_PUBLIC, lang, passed=passed, total=len(public))
    if hidden:
        line += sep + say(m.CHECK_HIDDEN, lang, passed=sum(c.status is Status.ACCEPTED for c in hidden),
                           total=len(hidden))
    elif verdict.shown is not None and verdict.shown.withheld_cases:   # a policy that shows hidden scores only
        line += sep + say(m.CHECK_HIDDEN_SCORE_ONLY, lang, passed=verdict.shown.withheld_passed,
                           total=verdict.shown.withheld_cases)
    elif hidden_in_handout:
        line += sep + say(m.CHECK_HIDDEN_LATER, lang, count=hidden_in_handout)
    return line


def language(lang: str | None = None) -> str:
    """The learner's language: ``lang`` if given (a tag like ``fr`` or ``ru-RU``), else the kernel's locale
    (``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else English."""
    from judge.i18n import negotiate
    from judge.i18n.negotiate import from_environment

    return negotiate(lang, from_environment(dict(os.environ)))


def _ipython() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def kernel_notebook(shell: Any) -> str:
    """The cells ``shell`` has run, in order, as nbformat 4 JSON (cell N is ``In [N]``)."""
    raw = list(shell.history_manager.input_hist_raw)[1:]  # [0] is IPython's empty placeholder
    cells = [{"cell_type": "code", "execution_count": n, "metadata": {}, "outputs": [], "source": text}
             for n, text in enumerate(raw, start=1)]
    return json.dumps({"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": cells})


def _script(filename: str | None) -> Path | None:
    """``filename`` (of the code that called ``check()``) if it is a file on disk rather than a notebook cell:
    IPython names cells ``<ipython-input-...>``, ipykernel ``/tmp/ipykernel_<pid>/<hash>.py``."""
    if not filename or filename.startswith("<") or not filename.endswith((".py", ".pyw")):
        return None
    path = Path(filename)
    if path.parent.name.startswith("ipykernel_") or not path.is_file():
        return None
    return path


def _source(source: str | Path | None, shell: Any, caller: str | None = None) -> tuple[str | bytes, Path, bool]:
    """What to grade, the folder it lives in (where a hand-out is looked for), and whether it is a script that
    checks itself (graded without its check: :mod:`judge.notebooks.script`)."""
    if source is not None:
        path = Path(source)
        if isinstance(source, Path) or (len(str(source)) < 4096 and "\n" not in str(source) and path.is_file()):
            return path.read_bytes(), path.resolve().parent, False
        return str(source), Path.cwd(), False
    script = _script(caller)
    if script is not None:
        return script.read_bytes(), script.resolve().parent, True
    if shell is not None and getattr(shell, "history_manager", None) is not None:
        return kernel_notebook(shell), Path.cwd(), False
    main = _script(getattr(sys.modules.get("__main__"), "__file__", None))
    if main is not None:
        return main.read_bytes(), main.resolve().parent, True
    raise RuntimeError("check() grades a notebook's kernel or a script: call it from one, or pass source=")


def _judge(isolation: str | None) -> Any:
    """One judge per isolation choice for the kernel's life (its sandbox stays warm between checks)."""
    from judge.engine import Judge
    from judge.sandbox import ENV_MODE, choose, mode_named

    key = isolation or os.environ.get(ENV_MODE) or "auto"
    with _lock:
        judge = _judges.get(key)
        if judge is None:
            mode, _ = choose(key, unsafe_no_sandbox=True)  # auto: the best mode here, none only as the last
            # phased: what the learner is shown was printed by a run given no hidden case's arguments
            judge = Judge(unsafe_no_sandbox=not mode_named(mode).sandboxed, isolation=mode, phased=True)
            _judges[key] = judge
            if len(_judges) == 1:
                atexit.register(_close_all)
        return judge


def _close_all() -> None:
    for judge in list(_judges.values()):
        judge.close()
    _judges.clear()


def check(problem: str | Path | None = None, source: str | Path | None = None, *, isolation: str | None = None,
          show: bool = True, pictures: bool = True, lang: str | None = None) -> CheckedVerdict | None:
    """Grade what the kernel holds now, or the script that calls it (or ``source``: a file or the text of one)
    against ``problem`` and show the report (HTML in a notebook, text elsewhere); returns the :class:`Verdict`
    (None, after one line saying why, when the problem cannot be found or its bundle is broken).

    ``problem``: an id (found beside the notebook, in ``./problems``, among the installed ones) or a folder;
    by default the problem whose functions the code defines.
    ``isolation``: a mode to insist on (default: the best this machine gives, else none, said plainly).
    ``lang``: the report's language (``en``, ``fr``, ``ru``; default: the kernel's locale, else English).
    """
    from judge.errors import JudgeError

    shell = _ipython()
    caller = sys._getframe(1).f_code.co_filename
    with tempfile.TemporaryDirectory(prefix="judge-check-") as folder:
        try:
            checked, line = grade_here(problem, source, isolation, Path(folder) if pictures and show else None,
                                       caller=caller, lang=lang)
        except JudgeError as exc:  # an unknown problem, a broken hand-out: one clear line, never a traceback
            print(f"check: {exc}", file=sys.stderr)
            return None
        if show:
            _show(checked, line, Path(folder), shell, language(lang))
    return checked


def grade_here(problem: str | Path | None, source: str | Path | None = None, isolation: str | None = None,
               pictures_dir: Path | None = None, caller: str | None = None,
               lang: str | None = None) -> tuple[CheckedVerdict, str]:
    """The verdict on what this kernel (or script, or ``source``) holds, and its headline: the one grading step
    behind ``check()`` and the otter and nbgrader adapters (:mod:`judge.platforms.otter`, ``.nbgrader``).
    ``caller``: the file of the code that called ``check()``, graded when it is a script on disk.  ``lang``: as
    for :func:`check`; the verdict's texts and the headline are in that language."""
    from judge.problem.locate import resolve

    text, near, script = _source(source, _ipython(), caller)
    if problem is None:
        from judge.problem.infer import infer_problem

        root = infer_problem(text, "the code to check", near=near)
    else:
        root = resolve(problem, near=near)
    judge = _judge(isolation)
    if script:
        from judge.notebooks.script import graded_script

        raw = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
        text = graded_script(raw, [f.name for f in judge.problem(root).bundle.spec.functions])
    return learner_check(judge.grade(text, root, pictures_dir=pictures_dir), judge.problem(root).bundle, lang)


def learner_check(graded: Verdict, bundle: Bundle, lang: str | None = None) -> tuple[CheckedVerdict, str]:
    """What ``check()`` hands the learner's kernel for a graded verdict, and its headline, in ``lang`` (as for
    :func:`check`).  The kernel is the learner's own, so what is returned is cut by the bundle's feedback policy
    as on every door, then said in the learner's language."""
    from judge.formats.learner import learner_view
    from judge.i18n.localize import localize
    from judge.sandbox import mode_named

    lang = language(lang)
    verdict = localize(learner_view(graded, bundle.spec.feedback), lang, bundle)
    checked = CheckedVerdict.model_construct(**{k: getattr(verdict, k) for k in type(verdict).model_fields})
    handout = bundle.spec.handout
    line = headline(checked, handout.hidden_cases if handout is not None else None, lang)
    if verdict.isolation is not None and not mode_named(verdict.isolation.mode).sandboxed:
        from judge.i18n import messages as m
        from judge.i18n.catalog import say

        line += (" ; " if lang == "fr" else "; ") + say(m.CHECK_NOT_ISOLATED, lang)
    return checked, line


def _show(verdict: Verdict, line: str, pictures_dir: Path, shell: Any, lang: str = "en") -> None:
    if shell is not None and type(shell).__name__ != "TerminalInteractiveShell":
        from IPython.display import HTML, display

        from judge.formats.html import render_html

        display(HTML(render_html(verdict, line, pictures_dir, lang)))
        return
    from judge.formats.text import render_text

    report = render_text(verdict, lang=lang).splitlines()
    print("\n".join(report[:1] + [line] + report[1:]))
