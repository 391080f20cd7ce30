"""The verdict's size backstop: a bundle decides how many cases there are, and each case's texts are capped on
their own, so a verdict of many cases full of a learner's text is cut, longest texts first, to 2 MiB; what the
judge decided is never cut."""

from __future__ import annotations

from judge.feedback import Counterexample
from judge.grading.verdict_size import CUT, MAX_VERDICT_BYTES, bounded, size_of
from judge.verdict import CallOutput, CapturedOutput, CaseResult, Diagnosis, Status, Verdict


def _verdict(cases: int, text: str) -> Verdict:
    return Verdict(
        status=Status.RUNTIME_ERROR, score=0.25, problem="p", judge_version="0", numpy_version="0",
        python_version="3", message=text,
        stdout=CapturedOutput(text=text[:16 << 10], bytes=16 << 10), stderr=CapturedOutput(text="short", bytes=5),
        cases=[CaseResult(id=f"case-{k}", function="f", visibility="hidden" if k % 2 else "public",
                          status=Status.ACCEPTED if k % 4 == 0 else Status.RUNTIME_ERROR, message=text[:4000],
                          output=CallOutput(stdout=text[:4000], stderr=text[:4000])) for k in range(cases)],
        diagnoses=[Diagnosis(id="d", message="a known mistake", confidence=0.5, evidence=text[:4000])],
        counterexample=Counterexample(function="f", args={}, call="f()", differs="raises", got_text=text[:8000]))


def test_a_verdict_of_many_cases_full_of_learner_text_is_cut_to_the_limit():
    text = "\u0001\"\u00e9" * 6000  # JSON writes each control character as six bytes
    verdict = _verdict(400, text)
    assert size_of(verdict) > 4 * MAX_VERDICT_BYTES
    statuses = [(c.id, c.status, c.visibility) for c in verdict.cases]
    bounded(verdict)
    assert size_of(verdict) <= MAX_VERDICT_BYTES
    assert [(c.id, c.status, c.visibility) for c in verdict.cases] == statuses and verdict.score == 0.25
    assert verdict.cases[1].message.endswith(CUT) and verdict.cases[1].output.truncated
    assert verdict.stdout.truncated and verdict.stderr.text == "short", "short texts are left whole"
    assert verdict.counterexample.got_text.endswith(CUT)


def test_a_verdict_under_the_limit_is_left_as_it_is():
    verdict = _verdict(22, "a traceback line\n" * 300)
    before = verdict.model_dump_json()
    assert bounded(verdict).model_dump_json() == before
