"""``judge new ID``: a bundle skeleton an author fills in, and the check that says what is still to fill in.

Every placeholder carries the marker ``TODO(author):`` followed by what to do; ``judge verify`` on a bundle
that still has one lists each (file, line, what) and runs nothing else, so a fresh skeleton fails with one
clear line per thing to fill in, never a traceback.  The skeleton is valid YAML and Python throughout, so
filling it in is editing, not fixing syntax."""

from __future__ import annotations

import re
from pathlib import Path

from judge.errors import JudgeError

MARKER = "TODO(author):"
STATUS_FOLDERS = ("accepted", "wrong_answer", "runtime_error", "time_limit_exceeded", "memory_limit_exceeded",
                  "compile_error")
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")

PROBLEM_YAML = """\
# {id}: everything the judge needs to know about this problem.  The judge's code names no problem:
# this file, cases.yaml, reference.py, statement.md and the mistake bank are the whole exercise.
schema_version: 1                 # the bundle format's version (1)
id: {id}                          # must equal the folder's name: lowercase letters, digits, dashes
title: "{title}"                  # TODO(author): the exercise's title, as learners see it
statement: statement.md           # the statement learners read (Markdown)
reference: reference.py           # your correct solution; runs only in the judge's process
cases: cases.yaml                 # the test cases
mistakes: mistakes.yaml           # known mistakes and property checks (delete the line if you have none)

functions:                        # every function learners write, in the order the statement gives them
  - name: {function}              # TODO(author): the function's name
    signature: "{function}(x, scale=1.0)"   # as shown to learners
    params: [x, scale]            # every parameter, in order; cases may pass any of them by name
    returns: array                # array, scalar (one number), or {{tuple: [grad_x, grad_w]}} (named items)
    output_dtypes: [float64]      # the dtypes a returned array may have (a case may widen it)
    summary: the input times scale   # one line: what it returns
    axes: []                      # optional: names for the output's trailing axes, e.g. {{name: position, symbol: p}}
    leading_axes: batch           # what axes before `axes` are called in feedback

limits:                           # what one submission may use (verdicts say which limit it hit)
  cpu_seconds: 10                 # CPU time of all cases together; `judge verify --calibrate` sets it
  wall_seconds: 20                # wall time of the whole run
  case_wall_seconds: 2            # wall time of any one call
  memory_mib: 512                 # address space / cgroup memory
  processes: 8                    # processes and threads at once
  output_kib: 1024                # stdout + stderr the learner may print
  source_kib: 256                 # largest accepted source file

# |got - expected| <= atol + rtol * |expected|, elementwise; a case may override it.  judge verify reports
# how far correct and wrong implementations sit from it (aim for a 100x margin on both sides).
tolerance: {{atol: 1.0e-9, rtol: 1.0e-9}}   # float64 answers; float32 ones need ~1e-6 (per case)

imports:                          # anything else is refused before the code runs
  allowed: [numpy, math, functools, itertools, typing]   # modules a submission may import

scoring: {{mode: fraction}}         # fraction: share of passed cases; weights: cases' `weight`

# Hand-checked values that guard the reference itself: function, args, index into the output, value.
reference_checks: []              # e.g. - {{function: {function}, args: {{x: [1.0], scale: 2.0}}, index: [0], value: 2.0}}
"""  # noqa: E501 - a file written verbatim: its lines are its own

CASES_YAML = """\
# Cases run in this order; the public ones first (learners see them; the statement shows them, in order).
# Expected outputs are computed by reference.py.  `judge case add {id} --function F --args '{{...}}'` appends one.
schema_version: 1
cases:
  # One example of each kind of case:
  - id: ex-literal                # TODO(author): public example with literal arguments
    function: {function}
    visibility: public
    description: statement example 1
    args: {{x: {{literal: [[1.0, 2.0], [3.0, 4.0]]}}, scale: 2.0}}
  - id: generated                 # TODO(author): hidden case with a seeded random array
    function: {function}
    description: a seeded random array
    tags: [random]
    args: {{x: {{generate: {{shape: [3, 16, 8], distribution: normal, seed: 1}}}}, scale: 3.0}}
  - id: float32-strided           # TODO(author): dtype, layout and a looser tolerance for one case
    function: {function}
    description: float32, a non-contiguous read-only view
    args: {{x: {{generate: {{shape: [10, 6], seed: 2, dtype: float32}}, layout: strided, readonly: true}}}}
    output_dtypes: [float64, float32]
    tolerance: {{atol: 1.0e-6, rtol: 1.0e-6}}
  - id: rejects-bad-input         # TODO(author): a call that must raise (remove if nothing must raise)
    function: {function}
    description: a negative scale must raise ValueError
    args: {{x: {{literal: [1.0]}}, scale: -1.0}}
    raises: ValueError
"""

REFERENCE_PY = '''"""Reference solution for {id}, in float64.  Runs only in the judge's process."""

import numpy as np


def {function}(x, scale=1.0):
    # TODO(author): replace with the correct solution (every function named in problem.yaml)
    if scale < 0:
        raise ValueError("scale must be >= 0")
    return np.asarray(x, dtype=np.float64) * scale
'''

STATEMENT_MD = """\
# {title}

<!-- TODO(author): the statement learners read: what to compute, the rules, the constraints. -->

## Signatures

```python
def {function}(x, scale=1.0): ...
```

## Examples

<!-- judge verify checks every code block holding only numbers against the reference: they are the
     public cases that return an array, in cases.yaml order, rounded to the decimals shown. -->

`{function}(np.array([[1.0, 2.0], [3.0, 4.0]]), 2.0)`:

```
[[2.0, 4.0],
 [6.0, 8.0]]
```
"""

MISTAKES_YAML = """\
# Known mistakes: each `implements` names a wrong implementation in mistakes.py (judge process only).
# judge verify runs each against every case (the kill matrix); the grader names it when it reproduces a
# learner's output.  Entries without `implements` reword a generic recogniser (input_mutated, transposed,
# float32_precision, not_ndarray, ndarray_subclass, non_finite, constant_output, ...).
schema_version: 1
module: mistakes.py
match_tolerance: {{atol: 1.0e-6, rtol: 1.0e-6}}
mistakes:
  - id: scale_ignored             # TODO(author): the mistakes learners make
    message: "The scale argument is ignored: multiply x by scale."
    implements: {{{function}: scale_ignored}}
  - id: input_mutated
    message: "{function} changed its input x; return a new array."
properties: []                    # e.g. - {{id: ..., description: ..., functions: [{function}], check: a_check}}
"""

MISTAKES_PY = '''"""Known mistakes for {id}: each has the signature of the function it gets wrong."""

import numpy as np


def scale_ignored(x, scale=1.0):
    # TODO(author): one small wrong implementation per mistake in mistakes.yaml
    if scale < 0:
        raise ValueError("scale must be >= 0")
    return np.asarray(x, dtype=np.float64)
'''

ACCEPTED_PY = '''"""Accepted: TODO(author): at least one correct solution here, ideally several formulations."""
import numpy as np


def {function}(x, scale=1.0):
    if scale < 0:
        raise ValueError("scale must be >= 0")
    return np.multiply(x, scale, dtype=np.float64)
'''

WRONG_PY = '''"""Wrong answer: TODO(author): one file per banked mistake (and real learners' code)."""
# diagnosis: scale_ignored
import numpy as np


def {function}(x, scale=1.0):
    if scale < 0:
        raise ValueError("scale must be >= 0")
    return np.array(x, dtype=np.float64)
'''


def new_bundle(problem_id: str, problems: Path, submissions: Path, function: str = "solve",
               title: str | None = None) -> list[Path]:
    """Write the skeleton; refuses to overwrite anything.  Returns the files and folders written."""
    if not _ID.match(problem_id):
        raise JudgeError(f"{problem_id!r}: a problem id is lowercase letters, digits and dashes")
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", function):
        raise JudgeError(f"{function!r} is not a Python function name")
    root = problems / problem_id
    examples = submissions / problem_id
    for path in (root, examples):
        if path.exists():
            raise JudgeError(f"{path} already exists: judge new never overwrites a bundle")
    fields = {"id": problem_id, "function": function, "title": title or problem_id.replace("-", " ").capitalize()}
    files = {root / "problem.yaml": PROBLEM_YAML, root / "cases.yaml": CASES_YAML,
             root / "reference.py": REFERENCE_PY, root / "statement.md": STATEMENT_MD,
             root / "mistakes.yaml": MISTAKES_YAML, root / "mistakes.py": MISTAKES_PY,
             examples / "accepted" / "solution.py": ACCEPTED_PY,
             examples / "wrong_answer" / "scale_ignored.py": WRONG_PY}
    written: list[Path] = []
    for folder in STATUS_FOLDERS:
        (examples / folder).mkdir(parents=True, exist_ok=True)
        written.append(examples / folder)
    root.mkdir(parents=True)
    for path, template in files.items():
        path.write_text(template.format(**fields), encoding="utf-8")
        written.append(path)
    return written


def unfinished(root: Path) -> list[tuple[str, str]]:
    """(file:line, what to do) for every ``TODO(author):`` left in the bundle and its examples."""
    examples = root.parent.parent / "submissions" / root.name
    paths = sorted(p for p in root.glob("*") if p.is_file()) + \
        (sorted(examples.glob("*/*.py")) if examples.is_dir() else [])
    todo = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for n, line in enumerate(lines, 1):
            if MARKER in line:
                where = f"{path.relative_to(root.parent.parent) if examples in path.parents else path.name}:{n}"
                todo.append((where if examples in path.parents else f"{root.name}/{where}",
                             re.sub(r'\s*(-->|""")\s*$', "", line.split(MARKER, 1)[1]).strip()))
    return todo
