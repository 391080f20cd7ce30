"""Functions that return one number or a tuple (``returns:`` in problem.yaml): the packing both sides share, the
slot checks of each tuple item, and what a learner can send through them.

The harness packs what a learner's function returned (judge/sandbox/boundary/outputs.py) next to untrusted code: exact
types only, nothing the learner's objects define is called.  The judge re-validates every item's shape from the
header before it believes it; a forged header can only describe the learner's own output, badly.
"""

from __future__ import annotations

import mmap
from collections import namedtuple

import numpy as np
import pytest

from judge.sandbox.boundary import wire
from judge.sandbox.boundary.outputs import NotAnOutput, pack, unpack

# -- packing ---------------------------------------------------------------------------------------------------


def test_a_tuple_is_laid_out_item_by_item_with_shapes_and_dtypes():
    gx, gw, gb = np.arange(6.0).reshape(2, 3), np.ones((3, 4), np.float32), 2.5
    packed = pack((gx, gw, gb), "tuple:3")
    assert packed.values.dtype == np.float64 and packed.values.shape == (19,)
    assert packed.parts == (((2, 3), "float64"), ((3, 4), "float32"), ((), "float64"))
    back = unpack(packed.values, packed.part_shapes)
    assert [b.shape for b in back] == [(2, 3), (3, 4), ()]
    assert np.array_equal(back[0], gx) and np.array_equal(back[1], gw) and float(back[2]) == 2.5
    assert pack([gx, gw, gb], "tuple:3").parts == packed.parts  # a list of three is accepted too
    assert pack(namedtuple("G", "x w b")(gx, gw, gb), "tuple:3").parts == packed.parts


@pytest.mark.parametrize("value, kind", [(1.5, np.float64), (np.float32(2.0), np.float32), (np.array(3.0), np.float64),
                                         (7, np.int64)])
def test_one_number_is_a_0d_array_of_its_own_dtype(value, kind):
    packed = pack(value, "scalar")
    assert packed.values.shape == () and packed.values.dtype == kind and packed.parts is None


@pytest.mark.parametrize("value, returns, said", [
    ([1.0, 2.0], "scalar", "a list of 2 items"),
    (True, "scalar", "a bool"),
    ({"x": 1}, "tuple:3", "a value of type dict, not a tuple of 3"),
    ((np.ones(2),), "tuple:2", "a tuple of 1 item, not 2"),
    ((np.ones(2), "nope"), "tuple:2", "a tuple whose item 1 is a value of type str"),
    ((np.ones(2), np.ones(2, dtype=bool)), "tuple:2", "a tuple whose item 1 is a numpy.ndarray of dtype bool"),
    ((np.ones(2), np.ones(2).view(np.matrix)), "tuple:2", "subclass of numpy.ndarray"),
    (np.ones(3, dtype=object), "array", "a numpy.ndarray of dtype object"),
])
def test_what_is_not_an_output_is_said(value, returns, said):
    with pytest.raises(NotAnOutput) as caught:
        pack(value, returns)
    assert said in str(caught.value)


class _LyingTuple(tuple):
    """A tuple subclass whose own methods lie about its items."""

    def __len__(self):
        return 3

    def __getitem__(self, k):
        return np.zeros(10 ** 6)

    def __iter__(self):
        raise RuntimeError("never iterated by the harness")


class _LyingList(list):
    def __len__(self):
        return 3


def test_attack_a_tuple_subclass_is_read_by_tuple_itself():
    """The harness reads a tuple subclass with tuple's own C methods: its overridden length and items are not
    what is judged (two real items here, not the three it claims)."""
    value = _LyingTuple((np.ones(2), np.ones(2)))
    with pytest.raises(NotAnOutput, match="a _LyingTuple of 2 items, not 3"):
        pack(value, "tuple:3")
    packed = pack(value, "tuple:2")
    assert packed.values.tolist() == [1.0, 1.0, 1.0, 1.0]


def test_attack_a_list_subclass_is_no_tuple():
    with pytest.raises(NotAnOutput, match="_LyingList"):
        pack(_LyingList([np.ones(1)] * 3), "tuple:3")


# -- slots: the judge's side ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def backward():
    """linear-backward prepared in this process (a tuple-valued function), and a results buffer to write into."""
    from judge.grading.prepare import prepare
    from judge.problem.loader import load_problem

    prepared = prepare(load_problem("linear-backward"))
    results = mmap.mmap(-1, prepared.result_size)
    yield prepared, results
    results.close()
    prepared.close()


def _judge(prepared, results, index, array, **header):
    """Write one slot the way the harness does (array bytes, then the header) and judge it."""
    from judge.grading.slots import CaseJudging, _read

    case = prepared.cases[index]
    results[case.slot_offset:case.slot_offset + wire.SLOT_HEADER_SIZE] = bytes(wire.SLOT_HEADER_SIZE)
    fields = {"outcome": "array", "time_ns": 10, "changed": [], "spans": [], "dtype": array.dtype.str,
              "shape": list(array.shape), "nbytes": array.nbytes, **header}
    start = case.slot_offset + wire.SLOT_HEADER_SIZE
    results[start:start + array.nbytes] = array.tobytes()
    head = wire.encode_header(fields)
    results[case.slot_offset:case.slot_offset + len(head)] = head
    judging = CaseJudging(prepared, results)
    observed: dict = {}
    result = judging._judge(case, _read(judging._head(case)), index, observed)
    return result, observed.get(index)


def _items(case, *changes):
    """The expected items of ``case`` with ``changes`` (item index -> new array)."""
    items = [np.array(a) for a in unpack(np.asarray(case.expected), case.parts)]
    for k, value in changes:
        items[k] = value
    packed = pack(tuple(items), case.returns)
    return packed.values, {"parts": [list(s) for s, _ in packed.parts], "part_dtypes": [d for _, d in packed.parts]}


def test_each_item_is_checked_for_its_shape_and_dtype(backward):
    from judge.verdict import Status

    prepared, results = backward
    case = prepared.cases[0]  # ex-1: grad_x (1, 2), grad_w (2, 3), grad_b (3,)
    right, header = _items(case)
    result, _ = _judge(prepared, results, 0, right, **header)
    assert result.status is Status.ACCEPTED and result.expected_parts == [[1, 2], [2, 3], [3]]
    gb = np.asarray(unpack(np.asarray(case.expected), case.parts)[2])
    keepdims, header = _items(case, (2, gb.reshape(1, 3)))
    result, observed = _judge(prepared, results, 0, keepdims, **header)
    assert result.status is Status.WRONG_ANSWER and result.message == "grad_b has shape (1, 3), expected (3,)"
    assert observed.parts == ((1, 2), (2, 3), (1, 3)) and result.got_parts == [[1, 2], [2, 3], [1, 3]]
    halves, header = _items(case, (1, unpack(np.asarray(case.expected), case.parts)[1].astype(np.float32)))
    result, _ = _judge(prepared, results, 0, halves, **header)
    assert result.status is Status.WRONG_ANSWER and "grad_w has dtype float32, expected float64" in result.message
    off, header = _items(case, (1, unpack(np.asarray(case.expected), case.parts)[1] + [[0, 0, 0], [0, 0.5, 0]]))
    result, _ = _judge(prepared, results, 0, off, **header)
    assert "out of tolerance: 1 in grad_w" in result.message and "at grad_w[1, 1] expected" in result.message


@pytest.mark.parametrize("parts", [
    [[1, 2], [2, 3]],                  # one item missing
    [[1, 2], [2, 3], [-3]],            # a negative length
    [[1, 2], [2, 3], [4]],             # more values than the array holds
    [[1, 2], [2, 3], [1] * 40],        # too many axes
])
def test_attack_forged_item_shapes_are_not_believed(backward, parts):
    """Only code that reaches the harness's mapping can write a header; whatever it claims about the items, the
    judge compares them with the values' size and says the header is inconsistent (a wrong answer, never the
    judge's failure, never an accepted case)."""
    from judge.verdict import Status

    prepared, results = backward
    right, header = _items(prepared.cases[0])
    result, observed = _judge(prepared, results, 0, right, parts=parts, part_dtypes=header["part_dtypes"])
    assert result.status is Status.WRONG_ANSWER and "inconsistent" in result.message
    assert observed.parts is None


def test_one_number_expected_and_an_array_returned():
    from judge.grading.prepare import prepare
    from judge.problem.loader import load_problem
    from judge.verdict import Status

    prepared = prepare(load_problem("cross-entropy"))
    results = mmap.mmap(-1, prepared.result_size)
    try:
        assert prepared.cases[0].expected.shape == ()  # stays 0-d through the disk cache
        result, _ = _judge(prepared, results, 0, np.array([0.75]))
        assert result.status is Status.WRONG_ANSWER
        assert result.message == "returned an array of shape (1,); it must return one number (a float)"
        result, _ = _judge(prepared, results, 0, np.array(np.inf))
        assert result.message.startswith("the value is NaN or infinite") and "got inf" in result.message
        result, _ = _judge(prepared, results, 0, np.asarray(prepared.cases[0].expected, dtype=np.float64))
        assert result.status is Status.ACCEPTED
    finally:
        results.close()
        prepared.close()
