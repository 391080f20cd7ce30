"""Verdict formats: everything ``--format`` can name, one module each.

``text`` (the terminal report, :mod:`~judge.formats.text`, with the explanations of
:mod:`~judge.formats.explain`), ``json`` (the verdict's own model), and the result files course
platforms read: ``gradescope``, ``exercism`` (v3), ``junit``, ``prairielearn``.  Packaging the judge for
those platforms is :mod:`judge.platforms`; the shared helpers are :mod:`~judge.formats.common`.

One interface: ``render(verdict, fmt, bundle=None) -> str``.  The bundle, when given, supplies the
public cases' calls (for formats with a test-code field); hidden cases never show their arguments,
values or locations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge.problem.loader import Bundle
    from judge.verdict import Verdict

#: The platforms' result files (``export``); ``render`` also takes text and json.
FORMATS = ("gradescope", "exercism", "junit", "prairielearn")
ALL_FORMATS = ("text", "json", *FORMATS)


def render(verdict: Verdict, fmt: str, bundle: Bundle | None = None, color: bool = False,
           file: str | None = None, lang: str = "en") -> str:
    """``verdict`` as ``fmt`` (one of :data:`ALL_FORMATS`); ``file``: the learner's file name, for the text report;
    ``lang``: the language its texts are rendered in (the message fields of json; the structured facts and the
    message ids stay as they are)."""
    from judge.i18n.localize import localize

    verdict = localize(verdict, lang, bundle)
    if fmt == "text":
        from judge.formats.text import render_text

        return render_text(verdict, color=color, file=file, lang=lang)
    if fmt == "json":
        return verdict.model_dump_json(indent=2) + "\n"
    return export(verdict, fmt, bundle, lang)


def export(verdict: Verdict, fmt: str, bundle: Bundle | None = None, lang: str = "en") -> str:
    """A platform's result file for ``verdict`` (one of :data:`FORMATS`), the exporter's own words in ``lang``
    (the verdict's texts are rendered by :func:`judge.i18n.localize.localize` before)."""
    return exporter(fmt)(verdict, bundle, lang)


#: The result files learners read: ``judge grade`` writes them cut by the bundle's feedback policy, as the
#: packaged runners do (JUnit is for an author's CI, json the teacher's whole verdict).
LEARNER_FORMATS = ("gradescope", "exercism", "prairielearn")


def export_for_learners(verdict: Verdict, fmt: str, bundle: Bundle | None = None, lang: str = "en") -> str:
    """``fmt``'s result file as a learner gets it from the packaged runner: the full ``verdict`` cut by the
    bundle's feedback policy (:func:`judge.formats.learner.learner_view`; Gradescope maps it to per-test
    visibility)."""
    if fmt == "gradescope":
        from judge.formats.gradescope import export_for_learners as gradescope

        return gradescope(verdict, bundle, lang)
    from judge.formats.learner import learner_view
    from judge.i18n.localize import localize

    view = learner_view(verdict, bundle.spec.feedback if bundle is not None else None)
    return export(localize(view, lang, bundle), fmt, bundle, lang)


def exporter(fmt: str) -> Callable[[Verdict, Bundle | None, str], str]:
    if fmt == "gradescope":
        from judge.formats.gradescope import export as fn
    elif fmt == "exercism":
        from judge.formats.exercism import export as fn
    elif fmt == "junit":
        from judge.formats.junit import export as fn
    elif fmt == "prairielearn":
        from judge.formats.prairielearn import export as fn
    else:
        raise ValueError(f"unknown export format {fmt!r} (choose {', '.join(FORMATS)})")
    return fn
