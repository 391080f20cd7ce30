"""Per-call output capture: the harness records fd offsets around each call, the judge splits.

Unit tests of the split against consistent, forged and broken offsets, and the real thing
through the sandbox: a file that prints its arguments shows each case what it printed.
"""

from __future__ import annotations

from judge.engine import Judge
from judge.grading.capture import split_output
from judge.sandbox.boundary.contract import CAPTURE_BYTES, Capture


def cap(text: str) -> Capture:
    return Capture(text=text, bytes=len(text.encode()))


def test_consistent_spans_give_each_call_its_own_output():
    out = "load\nA1\nB2\n"
    err = "warn\n"
    spans = {0: [5, 8, 0, 0], 1: [8, 11, 0, 5]}
    load, calls = split_output(cap(out), cap(err), spans, 2)
    assert load.stdout == "load\n" and load.stderr == ""
    assert calls[0].stdout == "A1\n" and calls[0].stderr == ""
    assert calls[1].stdout == "B2\n" and calls[1].stderr == "warn\n"


def test_a_span_running_backwards_stops_the_split_there():
    out = "load\nSECRET\nB\n"
    # call 1 claims the bytes call 0 printed: not believed, so neither it nor later calls get output
    spans = {0: [5, 12, 0, 0], 1: [5, 14, 0, 0], 2: [14, 14, 0, 0]}
    _load, calls = split_output(cap(out), cap(""), spans, 3)
    assert calls[0].stdout == "load\nSECRET\n"[5:]
    assert calls[1] is None and calls[2] is None


def test_the_call_that_died_gets_the_tail_and_later_calls_nothing():
    out = "load\nA\nlast words\n"
    spans = {0: [5, 7, 0, 0], 1: None}
    load, calls = split_output(cap(out), cap(""), spans, 3)
    assert calls[1].stdout == "last words\n"
    assert calls[2] is None
    assert load.stdout == "load\n"


def test_invalid_utf8_means_no_split_rather_than_shifted_boundaries():
    # the sandbox decoded 2 raw bytes 0xff 0xfe as two replacement characters (6 bytes re-encoded)
    out = Capture(text="\ufffd\ufffdA\n", bytes=4)
    load, calls = split_output(out, cap(""), {0: [2, 4, 0, 0]}, 1)
    assert load is None and calls == [None]


def test_a_capture_cut_at_the_read_back_length_still_splits(tmp_path):
    """Backends read back CAPTURE_BYTES of a stream (Capture.read); a longer stream is split on that head."""
    path = tmp_path / "stdout"
    path.write_bytes(b"x" * (CAPTURE_BYTES + 100))
    with open(path, "rb") as f:
        out = Capture.read(f.fileno())
    assert out.bytes == CAPTURE_BYTES + 100 and len(out.text) == CAPTURE_BYTES
    load, calls = split_output(out, cap(""), {0: [0, CAPTURE_BYTES + 100, 0, 0]}, 1)
    assert load.stdout == "" and calls[0].truncated and calls[0].stdout == "x" * len(calls[0].stdout)


def test_missing_offsets_leave_output_unknown():
    load, calls = split_output(cap("x\n"), cap(""), {0: []}, 1)
    assert load is None and calls == [None]


def test_a_file_that_prints_its_arguments_shows_each_case_its_own_lines():
    from tests.support.common import require_sandbox

    require_sandbox()
    source = (
        "import numpy as np\n"
        "print('loading')\n"
        "def sinusoidal_pe(max_len, d_model, base=10000.0):\n"
        "    print('ARGS', max_len, d_model, base)\n"
        "    return np.zeros((max_len, d_model))\n"
        "def add_positional_encoding(x, base=10000.0):\n"
        "    print('SHAPE', x.shape)\n"
        "    raise ValueError('no')\n"
    )
    with Judge() as judge:
        verdict = judge.grade(source, "sinusoidal-pe")
    assert verdict.load_output is not None and verdict.load_output.stdout == "loading\n"
    assert verdict.cases and all(c.output is not None for c in verdict.cases)
    for case in verdict.cases:
        if case.function == "sinusoidal_pe":
            assert case.output.stdout.startswith("ARGS ") and case.output.stdout.count("\n") == 1
        else:
            assert case.output.stdout.startswith("SHAPE ")
            assert "ValueError" in case.output.stderr  # the traceback printed for this call
    # the whole capture is still there for platforms, every line in it
    joined = "loading\n" + "".join(c.output.stdout for c in verdict.cases)
    assert verdict.stdout.text == joined
