"""Exercism test-runner results.json, version 3.

Top level: ``version`` (3), ``status`` ("pass" | "fail" | "error"), ``message``
(only with "error", at most 65535 characters), ``tests``.  Each test: ``name``,
``status`` ("pass" | "fail" | "error"), ``message`` (why it failed; null when it
passed), ``output`` (what the learner printed, at most 500 characters, with a
truncation note; a hidden case's prints are withheld, see
:func:`judge.formats.case_output`), ``test_code``; tests in the order they run (the case order).
A wrong value is "fail"; an exception, a time or memory kill, or a case not run
is "error".  Hidden cases show neither their arguments nor any values.
"""

from __future__ import annotations

import json

from judge.formats.common import case_label, case_message, case_output, cut, printed_output, summary, test_code
from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.problem.loader import Bundle
from judge.verdict import Status, Verdict

MESSAGE_CAP = 65535
OUTPUT_CAP = 500
TRUNCATED = "... Output was truncated. Please limit to 500 chars."


def _status(status: Status) -> str:
    if status is Status.ACCEPTED:
        return "pass"
    if status is Status.WRONG_ANSWER:
        return "fail"
    return "error"


def results(verdict: Verdict, bundle: Bundle | None = None, lang: str = "en") -> dict:
    """The results object, the judge's own words in ``lang``."""
    if verdict.status in (Status.COMPILE_ERROR, Status.INTERNAL_ERROR) or not verdict.cases:
        return {"version": 3, "status": "error", "message": cut(summary(verdict, lang), MESSAGE_CAP, lang=lang),
                "tests": []}
    loaded = verdict.load_output.stdout if verdict.load_output is not None else ""
    split = all(c.output is not None for c in verdict.cases if c.status is not Status.SKIPPED)
    printed = None if split else printed_output(verdict)   # the whole run's text, only when it cannot be split
    tests = []
    for n, case in enumerate(verdict.cases):
        status = _status(case.status)
        message = None
        if status != "pass":
            message = case_message(verdict, case, lang)
            if n == next(k for k, c in enumerate(verdict.cases) if c.status is not Status.ACCEPTED):
                message = summary(verdict, lang) + "\n\n" + message   # the diagnosis first, once
            message = cut(message, MESSAGE_CAP, lang=lang)
        name = say(m.LABELLED, lang, label=case_label(case, lang), text=case.function)
        test = {"name": name, "status": status, "message": message,
                "output": None, "test_code": test_code(bundle, case, lang)}
        if split:   # each test's own prints (public cases only), the file's import-time prints on the first
            own = (loaded if n == 0 else "") + (case_output(case) or "")
            test["output"] = cut(own, OUTPUT_CAP, TRUNCATED) if own else None
        elif n == 0 and printed:
            test["output"] = cut(say(m.X_PRINTED_WHOLE, lang) + " " + printed, OUTPUT_CAP, TRUNCATED)
        tests.append(test)
    shown = verdict.shown
    if shown is not None and shown.withheld_cases:   # a feedback policy that shows hidden cases' score only
        passed = shown.withheld_passed == shown.withheld_cases
        tests.append({"name": say(m.X_HIDDEN_CASES, lang, count=shown.withheld_cases),
                      "status": "pass" if passed else "fail",
                      "message": None if passed else say(m.X_ONLY_SCORE, lang, passed=shown.withheld_passed,
                                                         total=shown.withheld_cases),
                      "output": None, "test_code": "# " + say(m.X_HIDDEN_CASES_CODE, lang)})
    overall = "pass" if all(t["status"] == "pass" for t in tests) else "fail"
    return {"version": 3, "status": overall, "tests": tests}


def export(verdict: Verdict, bundle: Bundle | None = None, lang: str = "en") -> str:
    return json.dumps(results(verdict, bundle, lang), indent=2)
