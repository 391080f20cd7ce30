"""The judge's own work on a verdict stays bounded whatever a learner prints or writes (a red team made one verdict
cost the judge gigabytes).

Everything after the sandboxed run happens in the judge's process, outside every limit a learner has: reading
slot headers, splitting the captured output per call, the diagnosis (which searches the printed text), the
text report and the platforms' exports.  A red team printed 16 KiB of newlines and held a judge ~12 s per
verdict in one regular expression.  Here each adversarial file -- output at the bundle's limit shaped to hurt
(runs of newlines, blank lines, ``status=`` then newlines, a 200 KiB line, 64 Ki nested brackets), headers
numpy cannot view, the theft attempts -- is graded on a warm judge, and its judge-side time (the verdict's
``judged_in_ms`` less the run's own wall time), with every export and the text report rendered, is compared
with the same for a plain wrong answer that prints nothing, side by side in one judge: at most three times
as long, plus 0.3 s of slack for a busy machine.  Quadratic work on 64 KiB of output is seconds; this is not.
The judge here makes no counterexample search: the search is one more sandboxed run of the learner's code,
learner time under its own budget (``limits.search_seconds``, tests/diagnosis/test_counterexamples.py), and an
attack that forges on every call spends it there.
"""

from __future__ import annotations

import time

import pytest

from tests.support.common import SUBMISSIONS, require_sandbox

ADVERSARIAL = ["wrong_answer/attack_quadratic_output.py", "wrong_answer/attack_forged_zero_size_header.py",
               "wrong_answer/attack_print_gigabytes.py", "wrong_answer/attack_steal_previous_run.py",
               "wrong_answer/attack_fd_forge_all.py"]
PLAIN = '''
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    return np.zeros(np.shape(x))
'''


def _judge_side_seconds(judge_without_search, source: str | bytes) -> tuple[float, object]:
    """The judge's own time on one verdict: grading less the run, plus every rendering of it."""
    from judge.formats import FORMATS, export
    from judge.formats.text import render_text

    verdict = judge_without_search.grade(source)
    started = time.perf_counter()
    bundle = judge_without_search.problem("sinusoidal-pe").bundle
    for fmt in FORMATS:
        export(verdict, fmt, bundle)
    render_text(verdict)
    verdict.model_dump_json()
    rendering = time.perf_counter() - started
    run = (verdict.resources.wall_ms if verdict.resources else 0.0) / 1e3
    return verdict.judged_in_ms / 1e3 - run + rendering, verdict


@pytest.fixture(scope="module")
def judge_without_search():
    """A warm judge without the counterexample search's run (see the module's docstring)."""
    require_sandbox()
    from judge import Judge

    with Judge(counterexamples=False) as j:
        yield j


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_the_judge_side_of_a_verdict_stays_bounded_on_adversarial_output(judge_without_search, name: str):
    require_sandbox()
    _judge_side_seconds(judge_without_search, PLAIN)  # warm: bundle prepared, diagnosis imported
    plain = min(_judge_side_seconds(judge_without_search, PLAIN)[0] for _ in range(2))
    hostile, verdict = _judge_side_seconds(judge_without_search, (SUBMISSIONS / name).read_bytes())
    assert verdict.status.value == name.split("/")[0], (verdict.status, verdict.message[:300])
    assert hostile <= 3 * plain + 0.3, (
        f"{name}: judge side {hostile:.2f} s against {plain:.2f} s for a plain wrong answer"
    )
