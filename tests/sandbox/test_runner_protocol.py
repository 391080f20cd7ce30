"""The result-slot protocol against a hostile writer.

Learner code shares its process with the harness, so it can find the result mmap
(through gc) and overwrite slot headers with anything.  The judge must decode every
forgery into a per-case verdict: never accepted, never internal_error, never an
exception out of Judge.grade.  Plus direct unit tests of wire.read_header and
outcome.SlotHeader on malformed input.
"""

from __future__ import annotations

import json
import struct

import pytest
from pydantic import ValidationError

from judge.grading.slots import SlotHeader
from judge.sandbox import wire
from tests.support.sandbox import assert_still_grades

_PREFIX = struct.Struct("<8sI")


def raw_slot(prefix_and_payload: bytes) -> memoryview:
    return memoryview(prefix_and_payload.ljust(wire.SLOT_HEADER_SIZE, b"\0"))


def hdr(payload: bytes | dict | str) -> bytes:
    if isinstance(payload, dict):
        payload = json.dumps(payload).encode()
    elif isinstance(payload, str):
        payload = payload.encode()
    return _PREFIX.pack(wire.MAGIC, len(payload)) + payload


# --------------------------------------------------------------------------- wire.read_header

def test_read_header_round_trip_and_empty_slot():
    fields = {"outcome": "array", "dtype": "<f8", "shape": [3, 4], "nbytes": 96, "time_ns": 5}
    assert wire.read_header(raw_slot(wire.encode_header(fields))) == fields
    assert wire.read_header(memoryview(bytes(wire.SLOT_HEADER_SIZE))) is None


def test_encode_header_always_fits():
    encoded = wire.encode_header({"outcome": "raised", "message": "x" * 100_000})
    assert len(encoded) <= wire.SLOT_HEADER_SIZE
    decoded = wire.read_header(raw_slot(encoded))
    assert decoded["outcome"] == "raised" and decoded["message"].endswith("[cut]")


@pytest.mark.parametrize("data, why", [
    (b"NOTMAGIC" + struct.pack("<I", 2) + b"{}", "wrong magic"),
    (b"\xff" * wire.SLOT_HEADER_SIZE, "wrong magic"),
    (b"\0" * 8 + struct.pack("<I", 5) + b"{}", "wrong magic"),  # zero magic with a length is not 'empty'
    (_PREFIX.pack(wire.MAGIC, wire.MAX_HEADER_JSON + 1), "claims"),
    (_PREFIX.pack(wire.MAGIC, 0xFFFFFFFF), "claims"),
    (hdr(b"{not json"), "not JSON"),
    (hdr(b""), "not JSON"),
    (hdr('{"message": "\u00e9"}'), "not JSON"),  # non-ASCII bytes
    (hdr(b"\xff\xfe{}"), "not JSON"),
    (hdr(b"[1, 2, 3]"), "not a JSON object"),
    (hdr(b'"a string"'), "not a JSON object"),
    (hdr(b"42"), "not a JSON object"),
    (hdr(b"null"), "not a JSON object"),
], ids=["magic", "ff", "zero-magic-len", "len-max+1", "len-huge", "not-json", "empty-json", "non-ascii",
        "binary", "list", "string", "number", "null"])
def test_read_header_rejects_malformed(data, why):
    with pytest.raises(wire.MalformedSlot, match=why):
        wire.read_header(raw_slot(data))


def test_read_header_rejects_short_buffer():
    with pytest.raises(wire.MalformedSlot):
        wire.read_header(memoryview(hdr({"outcome": "raised"})))


def test_read_header_rejects_deeply_nested_json():
    """JUDGE BUG: json.loads raises RecursionError (not a ValueError) on deep nesting, and
    read_header only catches UnicodeDecodeError/ValueError, so the error escapes as-is."""
    with pytest.raises(wire.MalformedSlot):
        wire.read_header(raw_slot(hdr(b"[" * 2000 + b"]" * 2000)))


# --------------------------------------------------------------------------- outcome.SlotHeader

@pytest.mark.parametrize("fields", [
    {"outcome": "accepted"},
    {},
    {"outcome": "raised", "time_ns": -1},
    {"outcome": "array", "dtype": "<f8", "shape": [3, 4], "nbytes": -96},
    {"outcome": "raised", "message": "x" * 4001},
    {"outcome": "raised", "changed": ["x"] * 65},
    {"outcome": "array", "dtype": "x" * 17, "shape": [1], "nbytes": 8},
    {"outcome": "array", "dtype": "<f8", "shape": [1] * 33, "nbytes": 8},
    {"outcome": "array", "dtype": "<f8", "shape": [3.5, 4], "nbytes": 96},
    {"outcome": "array", "dtype": "<f8", "shape": "3,4", "nbytes": 96},
    {"outcome": "raised", "time_ns": float("nan")},
    {"outcome": "raised", "time_ns": float("inf")},
    {"outcome": "raised", "message": "\ud800"},
    {"outcome": "raised", "changed": [1, 2]},
], ids=["outcome", "empty", "neg-time", "neg-nbytes", "long-message", "many-changed", "long-dtype",
        "33-dims", "float-dim", "str-shape", "nan-time", "inf-time", "surrogate", "int-changed"])
def test_slot_header_rejects_invalid(fields):
    with pytest.raises(ValidationError):
        SlotHeader.model_validate(fields)


def test_slot_header_rejects_huge_time():
    """JUDGE BUG: time_ns has a lower bound but no upper bound; time_ns=10**400 is accepted
    and later crashes judge_slot (header.time_ns / 1e6 -> OverflowError)."""
    with pytest.raises(ValidationError):
        SlotHeader.model_validate({"outcome": "raised", "time_ns": 10 ** 400})


# --------------------------------------------------------------------------- forged slots, end to end


FORGER = '''
import numpy as np

_gc = __import__("gc")
_FORGED = {forged!r}


def _harness():
    for o in _gc.get_objects():
        if type(o).__name__ == "Harness" and hasattr(o, "results"):
            return o
    raise RuntimeError("harness not found")


def _forge():
    h = _harness()
    current = h.progress.read()[0]
    n = 0
    for call in h.request.calls:
        if call.case < current:  # slots the harness already wrote
            off = call.slot_offset
            h.results[off:off + len(_FORGED)] = _FORGED
            n += 1
    print("FORGED", current, n)


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _forge()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _forge()
    return np.zeros(np.shape(x))
'''

_ARRAY = {"outcome": "array", "dtype": "<f8", "time_ns": 1}

FORGERIES = {
    # id: (header bytes, substring expected in the first case's message)
    "wrong-magic": (b"NOTMAGIC" + struct.pack("<I", 2) + b"{}", "wrong magic"),
    "ff-bytes": (b"\xff" * 512, "wrong magic"),
    "huge-length": (_PREFIX.pack(wire.MAGIC, 0xFFFFFFFF), "claims"),
    "not-json": (hdr(b"{not json"), "not JSON"),
    "json-list": (hdr(b"[1, 2, 3]"), "not a JSON object"),
    "unknown-outcome": (hdr({"outcome": "accepted", "status": "accepted"}), "could not be read"),
    "negative-time": (hdr({"outcome": "raised", "time_ns": -5}), "could not be read"),
    "nan-time": (hdr(b'{"outcome": "raised", "time_ns": NaN}'), "could not be read"),
    "huge-shape": (hdr({**_ARRAY, "shape": [2 ** 40, 2 ** 40], "nbytes": 2 ** 83}), "inconsistent"),
    "huge-shape-small-nbytes": (hdr({**_ARRAY, "shape": [2 ** 62, 2 ** 62], "nbytes": 96}), "inconsistent"),
    "negative-dims": (hdr({**_ARRAY, "shape": [-3, -4], "nbytes": 96}), "inconsistent"),
    "huge-nbytes": (hdr({**_ARRAY, "shape": [3, 4], "nbytes": 10 ** 400}), "inconsistent"),
    "4000-digit-dim": (hdr({"outcome": "too_large", "dtype": "<f8", "shape": [10 ** 3999], "nbytes": 1}),
                       "returned an array of shape"),
    "over-capacity": (hdr({**_ARRAY, "shape": [10 ** 6], "nbytes": 8 * 10 ** 6}), "inconsistent"),
    "33-dims": (hdr({**_ARRAY, "shape": [1] * 33, "nbytes": 8}), "could not be read"),
    # a red team's case: zero elements, yet numpy refuses to view it ("array is too big"): an internal error before
    "zero-size-7-dims": (hdr({**_ARRAY, "shape": [0] + [4096] * 6, "nbytes": 0}), "returned shape (0, 4096,"),
    "zero-size-int8": (hdr({**_ARRAY, "dtype": "|i1", "shape": [0, 12] + [1 << 11] * 5, "nbytes": 0}),
                       "returned shape (0, 12, 2048,"),
    "object-dtype": (hdr({**_ARRAY, "dtype": "|O", "shape": [3, 4], "nbytes": 96}), "unsupported dtype"),
    "too-large-huge": (hdr({"outcome": "too_large", "dtype": "<f8", "shape": [10 ** 30] * 3, "nbytes": 1}),
                       "returned an array of shape"),
    "long-message": (hdr({"outcome": "raised", "message": "m" * 4001}), "could not be read"),
    "forged-raise": (hdr({"outcome": "raised", "message": "forged by the learner"}), "forged by the learner"),
    "right-shape-zeros": (hdr({**_ARRAY, "shape": [3, 4], "nbytes": 96}), "differ from the expected"),
    "huge-time": (hdr({"outcome": "raised", "time_ns": 10 ** 400, "message": "t"}), ""),  # JUDGE BUG
    "deep-nesting": (hdr(b"[" * 2000 + b"]" * 2000), ""),  # JUDGE BUG
    "zeroed": (bytes(wire.SLOT_HEADER_SIZE), "ended before this call returned"),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_forged_slot_headers(pj, name):
    from judge.verdict import Status

    forged, expect = FORGERIES[name]
    assert len(forged) <= wire.SLOT_HEADER_SIZE
    v = pj.grade(FORGER.format(forged=forged), "sinusoidal-pe")  # must not raise
    assert v.status not in (Status.ACCEPTED, Status.INTERNAL_ERROR), (v.status, v.message)
    assert v.score == 0.0
    forged_lines = [line for line in v.stdout.text.splitlines() if line.startswith("FORGED")]
    assert forged_lines and max(int(line.split()[2]) for line in forged_lines) > 0, v.stdout.text[:500]
    first = v.cases[0]
    assert first.status in (Status.WRONG_ANSWER, Status.RUNTIME_ERROR), (first.status, first.message)
    assert expect in first.message, first.message
    if name == "zeroed":  # a never-written slot means 'the process ended here'; the rest is skipped
        assert first.status is Status.RUNTIME_ERROR
        assert all(c.status is Status.SKIPPED for c in v.cases[1:])
    else:
        assert all(c.status in (Status.WRONG_ANSWER, Status.RUNTIME_ERROR) for c in v.cases)
    json.loads(v.model_dump_json())  # the verdict serialises


def test_judge_still_grades_after_forgeries(pj):
    assert_still_grades(pj)
