"""JUnit XML, as CI servers and LMS plugins read it.

``<testsuites>`` > ``<testsuite name tests failures errors skipped time>`` >
``<properties>`` + one ``<testcase classname name time>`` per case, in case
order, holding ``<failure message type>`` (wrong answer), ``<error message
type>`` (runtime error, time or memory limit, internal error) or ``<skipped
message>``; the summary (likely mistake first) in the suite's
``<system-out>``.  A submission that never ran is one errored test case.
Characters XML 1.0 cannot carry are dropped.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from judge.formats.common import case_message, cut, summary
from judge.problem.loader import Bundle
from judge.verdict import Status, Verdict

_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
MESSAGE_CAP = 1000
TEXT_CAP = 64 << 10


def clean(text: str) -> str:
    return _ILLEGAL.sub("", text)


def _seconds(ms: float | None) -> str:
    return f"{(ms or 0.0) / 1e3:.6f}"


def export(verdict: Verdict, bundle: Bundle | None = None, lang: str = "en") -> str:
    suite_name = verdict.problem
    root = ET.Element("testsuites", name="judge")
    suite = ET.SubElement(root, "testsuite", name=suite_name)
    props = ET.SubElement(suite, "properties")
    for name, value in (("status", verdict.status.value), ("score", f"{verdict.score:.6f}"),
                        ("diagnoses", ",".join(d.id for d in verdict.diagnoses)),
                        ("patterns", " | ".join(p.description for p in verdict.patterns)),
                        ("judge_version", verdict.judge_version), ("numpy_version", verdict.numpy_version)):
        ET.SubElement(props, "property", name=name, value=clean(value))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    if not verdict.cases:
        counts["tests"] = counts["errors"] = 1
        case = ET.SubElement(suite, "testcase", classname=suite_name, name="load submission", time="0")
        el = ET.SubElement(case, "error", message=clean(cut(verdict.message, MESSAGE_CAP)), type=verdict.status.value)
        el.text = clean(cut(verdict.message, TEXT_CAP))
    for c in verdict.cases:
        counts["tests"] += 1
        case = ET.SubElement(suite, "testcase", classname=f"{suite_name}.{c.function}", name=c.id,
                             time=_seconds(c.time_ms))
        if c.status is Status.ACCEPTED:
            continue
        text = clean(cut(case_message(verdict, c, lang), TEXT_CAP, lang=lang))
        first = clean(cut(text.replace("\n", "; "), MESSAGE_CAP))
        if c.status is Status.WRONG_ANSWER:
            counts["failures"] += 1
            el = ET.SubElement(case, "failure", message=first, type=c.status.value)
        elif c.status is Status.SKIPPED:
            counts["skipped"] += 1
            el = ET.SubElement(case, "skipped", message=first)
        else:
            counts["errors"] += 1
            el = ET.SubElement(case, "error", message=first, type=c.status.value)
        el.text = text
    ET.SubElement(suite, "system-out").text = clean(cut(summary(verdict, lang), TEXT_CAP, lang=lang))
    if verdict.stderr.text:
        ET.SubElement(suite, "system-err").text = clean(cut(verdict.stderr.text, TEXT_CAP))
    total_time = _seconds(verdict.judged_in_ms)
    for el in (root, suite):
        for k, v in counts.items():
            el.set(k, str(v))
        el.set("time", total_time)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
