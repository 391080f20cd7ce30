"""PrairieLearn external-grading results.json (docs/externalGrading.md, "Grading results").

Top level: ``gradable`` (false = "invalid, not gradable": no points, no attempt
used), ``format_errors`` (only when not gradable), ``score`` in [0, 1],
``message``, ``output``, ``tests`` (what ``<pl-external-grader-results>``
renders: ``name``, ``description``, ``points``, ``max_points``, ``message``,
``output``, ``images``: the verdict's pictures of a failing public case, as
data URIs).  The file must stay under 1 MB: the learner's printed text, then
pictures give way.

A compile error is not gradable (the learner loses no attempt), and so is a run
the judge itself could not carry out (an internal error, or a machine that
cannot isolate at the required level): the learner is not charged for the
grader's failure.  Hidden cases show neither arguments nor values nor
locations; printed output is withheld when a hidden case ran.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from judge.formats.common import case_label, case_message, case_output, cut, output_note, printed_output, summary
from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.i18n.localize import bundle_text
from judge.problem.loader import Bundle
from judge.verdict import Status, Verdict

MAX_BYTES = 1_000_000          # PrairieLearn's limit on results.json
MESSAGE_CAP = 8 << 10           # per test message
OUTPUT_CAP = 64 << 10           # top-level output (the learner's printed text)


def _description(bundle: Bundle | None, case_id: str, public: bool, lang: str = "en") -> str:
    """A case's description: a public case's in the bundle's words (translated when the bundle is)."""
    if not public:
        return say(m.X_HIDDEN_DESCRIPTION, lang)
    if bundle is not None:
        for spec in bundle.cases.cases:
            if spec.id == case_id:
                return bundle_text(bundle, lang, "case", case_id, spec.description or "")
    return ""


def _images(verdict: Verdict, case_id: str, pictures_dir: Path | None) -> list[dict]:
    """The case's pictures as data URIs (``verdict.pictures`` names files in ``pictures_dir``)."""
    if pictures_dir is None:
        return []
    images = []
    for picture in verdict.pictures:
        if picture.case != case_id:
            continue
        try:
            data = (pictures_dir / Path(picture.file).name).read_bytes()
        except OSError:
            continue
        images.append({"label": picture.title, "url": f"data:{picture.media_type};base64,"
                                                      + base64.b64encode(data).decode()})
    return images


def results(verdict: Verdict, bundle: Bundle | None = None, pictures_dir: Path | None = None,
            lang: str = "en") -> dict:
    """The results object; ``pictures_dir`` is where the judge rendered ``verdict.pictures`` (None: no images)."""
    text = summary(verdict, lang)
    if verdict.status in (Status.COMPILE_ERROR, Status.INTERNAL_ERROR) or not verdict.cases:
        why = verdict.message or text
        if verdict.status is Status.INTERNAL_ERROR:
            why = say(m.X_NOT_GRADABLE, lang, why=why)
        return {"gradable": False, "format_errors": [cut(why, MESSAGE_CAP)], "message": cut(text, MESSAGE_CAP)}
    tests = []
    for case in verdict.cases:
        passed = case.status is Status.ACCEPTED
        tests.append({
            "name": say(m.LABELLED, lang, label=case_label(case, lang), text=case.function),
            "description": _description(bundle, case.id, case.visibility == "public", lang),
            "points": round(case.weight if passed else 0.0, 6),
            "max_points": round(case.weight, 6),
            "message": cut(say(m.STATUS_WORDS[case.status.value], lang)
                           + ("" if passed else f": {case_message(verdict, case, lang)}"), MESSAGE_CAP, lang=lang),
            "output": cut(case_output(case) or "", MESSAGE_CAP),
        })
        images = _images(verdict, case.id, pictures_dir) if case.visibility == "public" else []
        if images:
            tests[-1]["images"] = images
    shown = verdict.shown
    if shown is not None and shown.withheld_cases:   # a feedback policy that shows hidden cases' score only
        tests.append({"name": say(m.X_HIDDEN_CASES, lang, count=shown.withheld_cases),
                      "description": say(m.X_HIDDEN_SCORE_ONLY, lang), "points": round(shown.withheld_passed_weight, 6),
                      "max_points": round(shown.withheld_weight, 6), "output": "",
                      "message": say(m.X_PASSED_OF, lang, passed=shown.withheld_passed,
                                                    total=shown.withheld_cases)})
    if all(c.output is not None for c in verdict.cases if c.status is not Status.SKIPPED):
        printed = verdict.load_output.stdout if verdict.load_output is not None else ""   # the rest is per test
    else:
        printed = printed_output(verdict) or ""
    note = output_note(verdict, lang)
    out: dict[str, Any] = {"gradable": True, "score": round(verdict.score, 6),
                           "message": cut(text, MESSAGE_CAP, lang=lang),
           "output": cut(printed + (f"\n{note}" if printed and note else note), OUTPUT_CAP), "tests": tests}
    while len(json.dumps(out).encode()) > MAX_BYTES and out["output"]:
        out["output"] = cut(out["output"], len(out["output"]) // 2)   # the learner's text gives way first
    for test in reversed(tests):                                       # then pictures, last cases first
        if len(json.dumps(out).encode()) <= MAX_BYTES:
            break
        test.pop("images", None)
    return out


def export(verdict: Verdict, bundle: Bundle | None = None, lang: str = "en") -> str:
    return json.dumps(results(verdict, bundle, lang=lang), indent=2)
