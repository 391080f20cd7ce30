"""Fuzzing the two parsers of untrusted input: bundle files and result slots.

* The bundle loader, on a copy of problems/sinusoidal-pe whose problem.yaml or
  cases.yaml is replaced by random bytes, random YAML, or a mutation of the real
  file, must either load or raise :class:`judge.errors.BundleError`.
* The result decoder (wire.read_header, SlotHeader.model_validate and
  judge_cases, as the grader runs them), on result regions with random or
  half-valid headers, must return per-case results, never raise.
"""

from __future__ import annotations

import json
import shutil
import struct

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.errors import BundleError
from judge.problem.loader import Bundle, load_problem
from tests.support.common import PROBLEM_DIR, clear_slot_headers

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                          HealthCheck.too_slow])
FILES = ("problem.yaml", "cases.yaml")
ORIGINAL = {name: (PROBLEM_DIR / name).read_bytes() for name in FILES}


@pytest.fixture(scope="module")
def fuzz_bundle(tmp_path_factory):
    target = tmp_path_factory.mktemp("fuzz") / "sinusoidal-pe"
    shutil.copytree(PROBLEM_DIR, target)
    return target


def _load_with(root, name: str, data: bytes) -> None:
    for other in FILES:
        (root / other).write_bytes(ORIGINAL[other])
    (root / name).write_bytes(data)
    try:
        bundle = load_problem(root)
    except BundleError as exc:
        assert str(exc), "a BundleError must say what is wrong"
        return
    assert isinstance(bundle, Bundle)


scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
                    st.text(max_size=12), st.sampled_from(["sinusoidal_pe", "x", "float64", "C", "public", "seed"]))
keys = st.one_of(st.text(max_size=10), st.sampled_from(
    ["id", "cases", "function", "args", "max_len", "d_model", "base", "x", "generate", "shape", "dtype", "seed",
     "limits", "functions", "name", "params", "tolerance", "atol", "rtol", "layout", "literal", "visibility",
     "imports", "allowed", "schema_version", "reference", "statement", "weight", "readonly", "mistakes"]))
yaml_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                            st.dictionaries(keys, inner, max_size=5)), max_leaves=25)


@FUZZ
@given(name=st.sampled_from(FILES), data=st.binary(max_size=600))
def test_loader_random_bytes(fuzz_bundle, name, data):
    _load_with(fuzz_bundle, name, data)


@FUZZ
@given(name=st.sampled_from(FILES), value=yaml_values)
def test_loader_random_yaml(fuzz_bundle, name, value):
    _load_with(fuzz_bundle, name, yaml.safe_dump(value, allow_unicode=True).encode())


@FUZZ
@given(name=st.sampled_from(FILES), data=st.data())
def test_loader_mutated_real_files(fuzz_bundle, name, data):
    lines = ORIGINAL[name].decode().splitlines(keepends=True)
    for _ in range(data.draw(st.integers(1, 4))):
        if not lines:
            break
        i = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["delete", "duplicate", "replace", "truncate", "number", "indent"]))
        if action == "delete" and len(lines) > 1:
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        elif action == "replace" and lines[i]:
            j = data.draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:j] + data.draw(st.sampled_from(list(":-[]{}'\"#&*!|>%@` \t0x"))) + lines[i][j + 1:]
        elif action == "truncate":
            lines = lines[:i]
        elif action == "number":
            lines[i] = lines[i].replace("1", data.draw(st.sampled_from(["-1", "0", "1e400", "99999999999", "nan",
                                                                        "true", "null"])), 1)
        elif action == "indent":
            lines[i] = "  " + lines[i]
    _load_with(fuzz_bundle, name, "".join(lines).encode())


# --------------------------------------------------------------------------- result decoder
# (fixtures ``prepared`` and ``results``: tests/conftest.py)

_PREFIX = struct.Struct("<8sI")
headers = st.fixed_dictionaries({}, optional={
    "outcome": st.one_of(st.sampled_from(["array", "other", "raised", "too_large"]), scalars),
    "time_ns": st.one_of(st.integers(-10, 2**70), scalars),
    "message": st.one_of(st.text(max_size=300), scalars),
    "changed": st.one_of(st.lists(st.sampled_from(["x", "base", "max_len", "??"]), max_size=70), scalars),
    "dtype": st.one_of(st.sampled_from(["<f8", "<f4", "<i8", "|u1", "<c16", "|O", "<M8[s]", ">f8", ""]), scalars),
    "shape": st.one_of(st.lists(st.one_of(st.integers(-3, 10), st.integers(-2**80, 2**80)), max_size=6),
                       st.lists(st.integers(0, 8192), min_size=2, max_size=2),
                       st.lists(st.sampled_from([0, 1, 2**40, 2**70]), min_size=1, max_size=3), scalars),
    "nbytes": st.one_of(st.integers(-1, 2**66), st.sampled_from([0, 96, 8 * 3 * 4, 8 * 2 * 5]), scalars),
})
slots = st.one_of(
    st.binary(min_size=0, max_size=64),  # raw bytes over the header
    headers.map(lambda h: _PREFIX.pack(b"JDGSLOT1", len(json.dumps(h).encode())) + json.dumps(h).encode()),
    st.tuples(st.binary(min_size=8, max_size=8), st.integers(0, 2**32 - 1), st.binary(max_size=40))
    .map(lambda t: _PREFIX.pack(t[0], t[1]) + t[2]),
)
def _report(fields: dict):
    from judge.sandbox.boundary.contract import RunReport

    return RunReport(**fields)


replies = st.fixed_dictionaries({}, optional={
    "exit_code": st.one_of(st.none(), st.integers(-1, 255)),
    "signal": st.one_of(st.none(), st.integers(0, 70)),
    "timed_out": st.sampled_from([None, "case", "total"]),
    "user_ns": st.integers(0, 10**11), "sys_ns": st.integers(0, 10**11), "wall_ns": st.integers(0, 10**11),
    "oom_kills": st.integers(0, 3), "pids_refused": st.one_of(st.none(), st.integers(0, 3)),
    "cpu_ns": st.one_of(st.none(), st.integers(0, 10**11)), "memory_killed": st.booleans(),
    "memory_peak": st.one_of(st.none(), st.integers(0, 2**40))}).map(_report)


@FUZZ
@given(data=st.data(), reply=replies)
def test_result_decoder_never_raises(prepared, results, data, reply):
    _decode(prepared, results, data, reply)


@pytest.mark.parametrize("shape", [[0, 2**70], [0, 2**62, 2**62], [2**63 - 1, 0], [0, -1]])
def test_forged_zero_size_shapes_are_handled(prepared, results, shape):
    """Found by the fuzzer: a zero-size shape with absurd dimensions once crashed the judge in np.ndarray."""
    from judge.grading.slots import judge_cases
    from judge.verdict import Status

    header = json.dumps({"outcome": "array", "dtype": "<f8", "shape": shape, "nbytes": 0}).encode()
    clear_slot_headers(prepared, results)
    case = prepared.cases[0]
    results[case.slot_offset:case.slot_offset + 12 + len(header)] = _PREFIX.pack(b"JDGSLOT1", len(header)) + header
    cases = judge_cases(prepared, _report({"exit_code": 0}), results).cases
    assert cases[0].status is Status.WRONG_ANSWER


def _decode(prepared, results, data, reply):
    from judge.grading.slots import judge_cases
    from judge.sandbox.boundary import wire

    results.seek(0)
    clear_slot_headers(prepared, results)
    chosen = data.draw(st.lists(st.integers(0, len(prepared.cases) - 1), max_size=6, unique=True))
    for index in chosen:
        case = prepared.cases[index]
        raw = data.draw(slots)[:wire.SLOT_HEADER_SIZE]
        results[case.slot_offset:case.slot_offset + len(raw)] = raw
        payload = data.draw(st.binary(max_size=256))
        start = case.slot_offset + wire.SLOT_HEADER_SIZE
        results[start:start + len(payload)] = payload
    judged = judge_cases(prepared, reply, results, rlimit_memory=data.draw(st.booleans()))
    cases, killed_for = judged.cases, judged.killed_for
    assert len(cases) == len(prepared.cases)
    assert killed_for is None or isinstance(killed_for, str)
