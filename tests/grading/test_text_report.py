"""The text report says what the JSON says: every named mistake with its explanation, counts that add up, the
input of an input-changing counterexample before and after, tracebacks naming the learner's file, the isolation
mode in one line, public cases first.  Learners' files in my own words, graded in the real sandbox."""

from __future__ import annotations

import re

import numpy as np

from judge.formats.text import render_text
from judge.verdict import CaseResult, Diagnosis, Status, Verdict
from tests.support.sources import ROTARY_MINE

#: RoPE rotated in place: right values, but x is overwritten.
ROTARY_IN_PLACE = ROTARY_MINE.replace(
    """    out = np.empty(np.broadcast_shapes(x.shape), dtype=np.result_type(x.dtype, np.float64))
    out[..., 0::2] = first * c - second * s
    out[..., 1::2] = first * s + second * c
    return out""",
    """    first, second = first.copy(), second.copy()
    x[..., 0::2] = first * c - second * s
    x[..., 1::2] = first * s + second * c
    return x""",
)

#: One Adam step that updates the moment estimates in place, as an optimiser's state would be: right values, but
#: the caller's m and v are overwritten.  (RoPE rotated in place is no example: at position 0 it writes x's own
#: values back, so its smallest counterexample is a read-only x, which raises.)
ADAM_IN_PLACE = '''\
import numpy as np

def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    m *= beta1
    m += (1 - beta1) * grad
    v *= beta2
    v += (1 - beta2) * grad ** 2
    m_hat = m / (1 - beta1 ** t)
    v_hat = v / (1 - beta2 ** t)
    return param - lr * m_hat / (np.sqrt(v_hat) + eps), m, v
'''

#: The table with sine and cosine swapped, written my way.
PE_SWAPPED = '''\
import numpy as np

def sinusoidal_pe(max_len, d_model, base=10000.0):
    out = np.zeros((max_len, d_model))
    for i in range(d_model // 2):
        angle = np.arange(max_len) / base ** (2 * i / d_model)
        out[:, 2 * i] = np.cos(angle)
        out[:, 2 * i + 1] = np.sin(angle)
    return out

def add_positional_encoding(x, base=10000.0):
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
'''

PE_CRASHES_ON_ODD = PE_SWAPPED.replace("    out = np.zeros((max_len, d_model))",
                                       "    if d_model % 2:\n        raise ValueError('odd d_model')\n"
                                       "    out = np.zeros((max_len, d_model))")


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_an_input_changing_counterexample_shows_the_input_before_and_after(judge):
    verdict = judge.grade(ADAM_IN_PLACE, "adam-step")
    found = verdict.counterexample
    assert found is not None and found.differs == "input changed", found
    changed = next(name for name in ("m", "v") if f"{name} before the call:" in render_text(verdict))
    text = render_text(verdict)
    block = text.split("A smallest input where your function differs")[1].split("\n\n")[0]
    assert f"{changed} before the call:" in block and f"{changed} after the call:" in block, block
    before = block.split(f"{changed} before the call:")[1].split(f"{changed} after the call:")[0]
    shown = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", before)]
    given = np.ravel(found.args[changed]["literal"] if isinstance(found.args[changed], dict) else found.args[changed])
    assert shown == [float(v) for v in given], block
    assert not ("expected:" in block and "got:" in block), "two equal arrays say nothing: " + block


def test_a_rotation_in_place_is_shown_by_its_smallest_difference_a_read_only_x(judge):
    """At position 0 a rotation writes x's own values back: the smallest input that shows the mistake is a
    read-only x, where the write raises; the report says so rather than inventing an input change."""
    found = judge.grade(ROTARY_IN_PLACE, "rotary-embedding").counterexample
    assert found is not None and found.differs == "raises" and found.args["x"].get("readonly") is True, found
    assert "read-only" in found.got_text


def test_counts_add_up_and_every_named_mistake_is_explained(judge):
    verdict = judge.grade(PE_SWAPPED, "sinusoidal-pe")
    failing = sum(c.status is Status.WRONG_ANSWER for c in verdict.cases)
    text = _flat(render_text(verdict))
    first = next(d for d in verdict.diagnoses if d.explains)
    assert first.id == "sin_cos_swapped"
    assert first.checked < failing  # the large cases' outputs are not kept: the report says so, with the total
    assert (f"explains all {first.checked} failing cases it was checked on; the other "
            f"{failing - first.checked} of the {failing} failing cases") in text, text
    for d in verdict.diagnoses:
        assert _flat(d.message) in text, d.id


def test_also_consistent_and_partial_names_keep_their_whole_explanation():
    long = "A sentence of the bank that is longer than a line of the report, " * 3
    cases = [CaseResult(id="a", function="f", status=Status.WRONG_ANSWER, visibility="public"),
             CaseResult(id="b", function="f", status=Status.WRONG_ANSWER, visibility="hidden")]
    verdict = Verdict(status=Status.WRONG_ANSWER, score=0.0, problem="p", judge_version="0", numpy_version="0",
                      python_version="3", cases=cases, diagnoses=[
                          Diagnosis(id="first", message="first one.", confidence=1.0, cases=["a"], checked=1,
                                    explains=True),
                          Diagnosis(id="input_mutated", message=long + "input.", confidence=1.0, cases=["a"],
                                    checked=1, explains=True),
                          Diagnosis(id="float32_precision", message=long + "float32.", confidence=0.5, cases=["a"],
                                    checked=2)])
    text = _flat(render_text(verdict))
    for d in verdict.diagnoses:
        assert _flat(d.message) in text, d.id


def test_public_cases_first_isolation_in_one_line_and_tracebacks_name_the_file(judge):
    verdict = judge.grade(PE_CRASHES_ON_ODD, "sinusoidal-pe")
    text = render_text(verdict, file="my_pe.py")
    table = text.split("\ncase ")[1].split("\n\n")[0].splitlines()[1:]
    rows = [line.split()[0] for line in table if line and not line.startswith(" ")]
    public = [c.id for c in verdict.cases if c.visibility == "public"]
    assert "ex-table-64x32" in public and [c.id for c in verdict.cases].index("ex-table-64x32") > len(public)
    assert rows[:len(public)] == public, rows  # the bundle lists that public case after hidden ones
    iso = verdict.isolation
    assert f"\nisolation: {iso.mode}, limits by {iso.limits_by}" in text, text
    assert 'File "my_pe.py", line 5, in sinusoidal_pe' in text, text
    assert 'File "submission.py"' not in text
