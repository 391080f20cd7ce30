"""Checks made before running: decoding, syntax, required functions, import allow-list."""

from __future__ import annotations

import pytest

from judge.grading.static_check import check_source, decode_source

FUNCS = ["sinusoidal_pe", "add_positional_encoding"]
ALLOWED = ["numpy", "math", "functools"]
OK = ("import numpy as np\ndef sinusoidal_pe(a, b, base=1.0):\n    pass\n"
      "def add_positional_encoding(x, base=1.0):\n    pass\n")


def test_a_good_file_passes():
    assert check_source(OK, FUNCS, ALLOWED) is None


@pytest.mark.parametrize("extra,words,line", [
    ("import os\n", "module 'os' on line 6", 6),
    ("from subprocess import run\n", "module 'subprocess' on line 6", 6),
    ("def f():\n    import socket\n", "module 'socket' on line 7", 7),
    ("import numpy.ctypeslib, ctypes\n", "module 'ctypes'", 6),
    ("from . import x\n", "relative import", 6),
])
def test_refused_imports_are_named(extra, words, line):
    problem = check_source(OK + extra, FUNCS, ALLOWED)
    assert problem is not None and words in problem.message and problem.line == line


def test_allowed_submodule_and_alias():
    assert check_source(OK + "import numpy.linalg as la\nfrom math import sin\n", FUNCS, ALLOWED) is None


def test_syntax_error_has_line_and_column():
    problem = check_source("def sinusoidal_pe(:\n", FUNCS, ALLOWED)
    assert problem is not None and "syntax error" in problem.message and problem.line == 1


def test_missing_functions_are_listed():
    problem = check_source("def sinusoidal_pe(a, b):\n    pass\n", FUNCS, ALLOWED)
    assert problem is not None and "add_positional_encoding()" in problem.message


def test_functions_bound_by_assignment_count():
    src = "def _f(*a):\n    pass\nsinusoidal_pe = _f\nadd_positional_encoding = _f\n"
    assert check_source(src, FUNCS, ALLOWED) is None


def test_decoding_limits():
    text, problem = decode_source(b"x = '\xff'\n", 1000)
    assert text is None and "not valid UTF-8" in problem.message and problem.line == 1
    text, problem = decode_source(b"#" * 2000, 1000)
    assert text is None and "2000 bytes" in problem.message
    text, problem = decode_source("print('é')".encode(), 1000)
    assert text == "print('é')" and problem is None


def test_null_bytes_do_not_crash():
    problem = check_source("x = 1\0\n", FUNCS, ALLOWED)
    assert problem is not None
