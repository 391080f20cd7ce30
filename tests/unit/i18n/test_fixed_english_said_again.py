"""The judge's lower layers say some things in fixed English (the notebook reader, which runs in a small child
process on the standard library; the sandbox's side, describing what came back instead of an array); the judge
says them again as message ids.  Each sentence those layers really write must be one the judge knows (not said
verbatim, so not left in English) and must read exactly as written in English."""

from __future__ import annotations

import collections
import json

import numpy as np
import pytest

from judge.grading.refusals import refusal_said
from judge.grading.slots import described
from judge.i18n.catalog import VERBATIM, render
from judge.notebooks.extract import graded_cells
from judge.notebooks.read import NotebookProblem, cells_of, parse_json, read_cells
from judge.sandbox.boundary.outputs import NotAnOutput, pack


def _refusal(call, *args) -> str:  # noqa: ANN001 - a reader function
    with pytest.raises(NotebookProblem) as raised:
        call(*args)
    return raised.value.message


def _cell(source: str) -> dict:
    return {"cell_type": "code", "source": source, "metadata": {}, "outputs": [], "execution_count": None}


REFUSALS = {
    "deep JSON": lambda: _refusal(parse_json, "[" * 100_000 + "]" * 100_000),
    "huge number": lambda: _refusal(parse_json, '{"n": ' + "9" * 5000 + "}"),
    "not JSON": lambda: _refusal(parse_json, '{"cells": [}'),
    "cut JSON": lambda: _refusal(parse_json, '{"cells": ['),
    "not UTF-8": lambda: _refusal(parse_json, b'{"cells": "\xff"}'),
    "not a notebook": lambda: _refusal(cells_of, {"metadata": {}}),
    "old format": lambda: _refusal(cells_of, {"worksheets": [], "nbformat": 3}),
    "no code": lambda: _refusal(cells_of, {"cells": [{"cell_type": "markdown", "source": "# hi"}], "nbformat": 4}),
    "syntax error": lambda: _refusal(graded_cells, read_cells(json.dumps(
        {"cells": [_cell("def f(:\n    pass")], "nbformat": 4, "nbformat_minor": 5})), ["f"]),
    "nothing defined": lambda: _refusal(graded_cells, read_cells(json.dumps(
        {"cells": [_cell("x = 1")], "nbformat": 4, "nbformat_minor": 5})), ["f"]),
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_every_refusal_of_the_notebook_reader_is_said_in_the_catalogs_words(name):
    text = REFUSALS[name]()
    said = refusal_said(text)
    assert said.id != VERBATIM, text
    assert render(said, "en") == text
    assert render(said, "fr") != text and render(said, "ru") != text


Three = collections.namedtuple("Three", "a b")


class Lying(np.ndarray):
    pass


OUTPUTS = {
    "a dict for a tuple": ({"a": 1}, "tuple:3"),
    "a namedtuple of two for three": (Three(np.zeros(1), np.zeros(1)), "tuple:3"),
    "a subclass inside a tuple": ((np.zeros(2).view(Lying), np.zeros(1), np.zeros(1)), "tuple:3"),
    "text inside a tuple": ((np.array(["a"]), np.zeros(1), np.zeros(1)), "tuple:3"),
    "a list for a scalar": ([1.0], "scalar"),
}


@pytest.mark.parametrize("name", list(OUTPUTS))
def test_every_description_of_what_came_back_is_said_in_the_catalogs_words(name):
    value, returns = OUTPUTS[name]
    with pytest.raises(NotAnOutput) as raised:
        pack(value, returns)
    text = str(raised.value)
    said = described(text)
    assert said.id != VERBATIM, text
    assert render(said, "en") == text
    assert "not" not in render(said, "fr").split() and "whose" not in render(said, "ru"), render(said, "fr")


@pytest.mark.parametrize("title", ["case ex-1: expected", "case ex-1: yours, batch index (1)",
                                   "case hidden case 2 of 5: yours - expected, batch index (0, 2)",
                                   "case ex-2: column pairs, expected vs yours"])
def test_a_pictures_title_is_said_in_the_learners_language(title):
    """Pictures are drawn once; their titles (judge.diagnosis.pictures' words) are said again at the door."""
    from judge.i18n.localize import picture_title
    from tests.support.i18n import english_sentences

    assert picture_title(title, "en") == title
    for lang in ("fr", "ru"):
        said = picture_title(title, lang)
        assert said != title and english_sentences(said) == [] and "expected" not in said and "yours" not in said
