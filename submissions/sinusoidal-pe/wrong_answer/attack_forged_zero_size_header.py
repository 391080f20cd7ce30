"""Attack (wrong answer): writes result headers numpy cannot view into its own slots.

A header of an array with no elements but seven dimensions (0, 4096, 4096, ...) is
consistent with its size (0 bytes), yet numpy refuses to view it ("array is too big"):
the judge raised, and the verdict was internal_error on every mode.  Whatever a learner
writes into its slots must end in a verdict about the learner.  This file overwrites
the header of every slot already written, through the harness' frame, with such shapes
(and a few more), then returns zeros itself: a wrong answer."""
# harm: crash_the_judge
# diagnosis: none
import numpy as np

_json = __import__("json")
_struct = __import__("struct")
_sys = __import__("sys")
_SHAPES = ([0] + [4096] * 6, [0, 1 << 40, 1 << 40], [0] * 32, [1 << 62, 0])


def _harness():
    frame = _sys._getframe(1)
    while frame is not None:
        me = frame.f_locals.get("self")
        if me is not None and hasattr(me, "results") and hasattr(me, "request"):
            return me
        frame = frame.f_back


def _forge():
    h = _harness()
    if h is None:
        return
    current = h.progress.read()[0]
    for i, call in enumerate(h.request.calls):
        if call.case >= current:
            break
        body = _json.dumps({"outcome": "array", "dtype": "<f8", "shape": _SHAPES[i % len(_SHAPES)], "nbytes": 0,
                           "time_ns": 1}).encode()
        header = _struct.pack("<8sI", b"JDGSLOT1", len(body)) + body
        off = call.slot_offset
        h.results[off:off + len(header)] = header


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _forge()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _forge()
    return np.zeros(np.shape(x))
