"""The verdict's size, bounded whatever the learner sends: its JSON stays under :data:`MAX_VERDICT_BYTES`.

Every text a learner shapes is capped where it enters the verdict (a case's message by its slot header, 4,000
characters; what a call printed, 4,000 per stream; the run's whole output, 16 KiB; a notebook's cell ids, 64
characters by nbformat's rule, and naming cells grows a text by at most 8 KiB; names quoted in a message, 40).
Those caps are per text, and a bundle decides how many cases there are, so this is the backstop: a verdict
over the limit has its longest learner-shaped texts cut, longest first, to a common length that brings it under,
each ending in :data:`CUT`.  What the judge decided (status, score, cases, statuses, numbers) is never cut.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from judge.verdict import Verdict

#: The largest verdict, as JSON (UTF-8 bytes).  Course platforms store verdicts as rows and pages: 2 MiB holds
#: every case of a large bundle with its messages and printed output in full, and is far below what breaks them.
MAX_VERDICT_BYTES = 2 << 20
CUT = " [cut: a verdict holds at most 2 MiB]"
_SLACK = 4 << 10


def size_of(verdict: Verdict) -> int:
    """The verdict's JSON size in bytes."""
    return len(verdict.model_dump_json().encode("utf-8", "surrogatepass"))


def _texts(verdict: Verdict) -> Iterator[tuple[object, str]]:
    """(model, field) of every text a learner's file shapes."""
    yield verdict, "message"
    yield verdict.stdout, "text"
    yield verdict.stderr, "text"
    outputs = [verdict.load_output] + [case.output for case in verdict.cases]
    for case in verdict.cases:
        yield case, "message"
    for output in outputs:
        if output is not None:
            yield output, "stdout"
            yield output, "stderr"
    for diagnosis in verdict.diagnoses:
        yield diagnosis, "message"
        yield diagnosis, "evidence"
    if verdict.counterexample is not None:
        yield verdict.counterexample, "got_text"
        yield verdict.counterexample, "message"


def _encoded(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def _level(sizes: list[int], excess: int) -> int:
    """The largest length L such that cutting every size above L down to L frees at least ``excess``."""
    ordered = sorted(sizes, reverse=True)
    freed_above = 0
    for k, size in enumerate(ordered):
        below = ordered[k + 1] if k + 1 < len(ordered) else 0
        # lowering the top k+1 texts from `size` towards `below` frees (k+1) per unit
        if freed_above + (k + 1) * (size - below) >= excess:
            return max(0, size - (excess - freed_above) // (k + 1) - 1)
        freed_above += (k + 1) * (size - below)
    return 0


def _cut(model: object, field: str, text: str, length: int) -> None:
    keep = max(0, length - len(CUT))
    setattr(model, field, text[:keep] + CUT)
    if hasattr(model, "truncated"):
        model.truncated = True  # CallOutput, CapturedOutput: say it was cut
    if field == "message" and getattr(model, "said", None):
        model.said = []  # type: ignore[attr-defined]  # its ids hold the same learner text: the cut English stays
    if field == "got_text" and getattr(model, "got_said", None):
        model.got_said = []  # type: ignore[attr-defined]  # the same: the cut English stays


def bounded(verdict: Verdict, limit: int = MAX_VERDICT_BYTES) -> Verdict:
    """``verdict``, its longest learner-shaped texts cut so its JSON is at most ``limit`` bytes."""
    size = size_of(verdict)
    for _ in range(4):
        if size <= limit:
            return verdict
        slots = [(model, field, getattr(model, field)) for model, field in _texts(verdict)]
        slots = [(model, field, text) for model, field, text in slots if text]
        sizes = [_encoded(text) for _, _, text in slots]
        level = _level(sizes, size - limit + _SLACK)
        for (model, field, text), encoded in zip(slots, sizes):
            if encoded > level:
                _cut(model, field, text, int(len(text) * level / encoded))
        size = size_of(verdict)
    if size > limit:  # what no learner text explains: keep the decision, drop the explanations
        verdict.counterexample, verdict.pictures, verdict.diagnoses = None, [], []
        for model, field in _texts(verdict):
            setattr(model, field, "")
            if getattr(model, "said", None):
                model.said = []  # type: ignore[attr-defined]
        verdict.message = "the verdict's texts were left out: they would not fit in 2 MiB"
    return verdict
