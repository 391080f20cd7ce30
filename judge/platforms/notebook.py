"""A hand-out for notebook courses: ``judge package notebook PROBLEM -o DIR``.

DIR gets what a learner opens and what ``check()`` reads in their kernel:

* ``<id>.ipynb``: the statement as markdown (its formulas stay LaTeX, which Jupyter, Colab and VS Code render),
  ``import numpy as np``, one stub cell per function with the bundle's signature, and a check cell;
* ``<id>/``: the public part of the bundle (a *hand-out bundle*, ``handout:`` in its problem.yaml): the public
  cases, the statement, the limits, tolerance and allowed imports, and, instead of ``reference.py`` and
  ``mistakes.py``, their outputs on the public cases (:mod:`judge.problem.recorded`), so that the check names
  the same mistakes as a submission on those cases.

Nothing in DIR computes an answer or shows a hidden case: no reference, no mistakes module, no input domain
(counterexamples are searched when the learner submits), no reference checks, and of the hidden cases only how
many there are.  ``tests/notebooks/test_notebook_handout.py`` scans the folder for all of it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from judge.errors import BundleError
from judge.problem.loader import Bundle
from judge.problem.recorded import INDEX, RAISES, inputs_key
from judge.problem.translations import write_handout as write_translations

RECORDED = "recorded"


def package(bundle: Bundle, out: Path) -> tuple[Path, Path]:
    """Write the hand-out of ``bundle`` into ``out``; returns (the starter notebook, the hand-out bundle)."""
    if bundle.spec.handout is not None:
        raise BundleError(
            str(bundle.root / "problem.yaml"), None, "this is already a hand-out; package the full bundle"
        )
    public = [i for i, c in enumerate(bundle.cases.cases) if c.visibility == "public"]
    if not public:
        raise BundleError(str(bundle.root / bundle.spec.cases), None, "no public case to hand out (check() runs them)")
    out.mkdir(parents=True, exist_ok=True)
    target = out / bundle.id
    if target.exists():
        if not (target / "problem.yaml").is_file() or "handout:" not in (target / "problem.yaml").read_text():
            raise BundleError(str(target), None, "exists and is not a hand-out this command wrote; choose another -o")
        shutil.rmtree(target)
    target.mkdir()
    _write_bundle(bundle, target, public)
    notebook = out / f"{bundle.id}.ipynb"
    notebook.write_text(json.dumps(starter_notebook(bundle), indent=1, ensure_ascii=False) + "\n")
    return notebook, target


# -- the hand-out bundle ------------------------------------------------------------------------------------------
def _write_bundle(bundle: Bundle, target: Path, public: list[int]) -> None:
    root = bundle.root
    spec = yaml.safe_load((root / "problem.yaml").read_text())
    spec.pop("reference", None)
    spec.pop("reference_checks", None)
    for function in spec.get("functions", []):
        function.pop("domain", None)
    hidden = len(bundle.cases.cases) - len(public)
    spec["handout"] = {"hidden_cases": hidden, "recorded": RECORDED, "source_digest": bundle.digest}
    cases_doc = yaml.safe_load((root / bundle.spec.cases).read_text())
    cases_doc["cases"] = [c for c in cases_doc["cases"] if c.get("visibility") == "public"]
    (target / bundle.spec.cases).write_text(_yaml(cases_doc))
    shutil.copyfile(root / bundle.spec.statement, target / bundle.spec.statement)
    write_translations(bundle, target)  # the learner's language in check(), cut to what a hand-out holds
    if bundle.spec.mistakes and bundle.bank is not None:
        bank = yaml.safe_load((root / bundle.spec.mistakes).read_text())
        for key in ("module", "properties", "family"):
            bank.pop(key, None)
        (target / bundle.spec.mistakes).write_text(_yaml(bank))
    (target / "problem.yaml").write_text(
        f"# The hand-out of {bundle.id} (judge package notebook): public cases and recorded outputs only.\n"
        + _yaml(spec))
    _record(bundle, target / RECORDED, public)


def save_output(folder: Path, stem: str, values: np.ndarray, parts: tuple | None, dtypes: list | None = None) -> str:
    """One recorded output: ``stem.npy``, or for a tuple output ``stem.npz`` holding its items in order (a
    recorded function then returns the tuple again, :mod:`judge.problem.recorded`).  The file's name."""
    from judge.sandbox import unpack

    if parts is None:
        np.save(folder / f"{stem}.npy", values, allow_pickle=False)
        return f"{stem}.npy"
    items = unpack(np.asarray(values), parts)
    if dtypes is not None:
        items = [item.astype(d) for item, d in zip(items, dtypes)]
    np.savez(folder / f"{stem}.npz", **{f"item_{k}": item for k, item in enumerate(items)})  # type: ignore[arg-type]  # numpy's stub: **kwds as allow_pickle
    return f"{stem}.npz"


def _yaml(doc: Any) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=110)


def _record(bundle: Bundle, folder: Path, public: list[int]) -> None:
    """The reference's and each mistake's outputs on the public cases, by the digest of their inputs."""
    from judge.problem.cache import bundle_cache_dir
    from judge.problem.expected import expected_outputs
    from judge.problem.inputs import build_input_file

    inputs = build_input_file(bundle.cases.cases, bundle_cache_dir(bundle.id, bundle.digest))
    try:
        expected = expected_outputs(bundle, inputs)
        reference: dict[str, dict[str, str]] = {f.name: {} for f in bundle.spec.functions}
        mistakes: dict[str, dict[str, str]] = {}
        (folder / "reference").mkdir(parents=True)
        for i in public:
            case = bundle.cases.cases[i]
            key = inputs_key(inputs.cases[i].values)
            if case.raises is not None:
                reference[case.function][key] = RAISES + case.raises
            else:
                reference[case.function][key] = save_output(folder, f"reference/{case.id}", expected[i].values,
                                                            expected[i].parts)
        if bundle.bank is not None:
            (folder / "mistakes").mkdir()
            for mistake in bundle.bank.spec.mistakes:
                for function, attr in mistake.implements.items():
                    table = mistakes.setdefault(attr, {})
                    for i in public:
                        case = bundle.cases.cases[i]
                        if case.function != function:
                            continue
                        table[inputs_key(inputs.cases[i].values)] = _record_one(
                            bundle, folder, f"mistakes/{attr}-{case.id}", attr, inputs.cases[i].values,
                            bundle.spec.function(function))
        (folder / INDEX).write_text(json.dumps({"reference": reference, "mistakes": mistakes}, indent=1) + "\n")
    finally:
        inputs.close()


def _record_one(bundle: Bundle, folder: Path, name: str, attr: str, values: dict, function) -> str:  # noqa: ANN001
    from judge.problem.expected import packed_output
    from judge.sandbox import NotAnOutput

    try:
        assert bundle.bank is not None  # recorded only for a bundle with a bank
        with np.errstate(all="ignore"):
            value = getattr(bundle.bank.module, attr)(**values)
        packed = packed_output(function, value)
    except NotAnOutput:
        return RAISES + "TypeError"
    except Exception as exc:  # noqa: BLE001 - a mistake that raises on a case explains nothing there
        return RAISES + type(exc).__name__
    return save_output(folder, name, packed.values, packed.part_shapes,
                       [d for _, d in packed.parts] if packed.parts else None)


# -- the starter notebook -----------------------------------------------------------------------------------------
def _cell(kind: str, source: str, cell_id: str) -> dict:
    cell: dict[str, Any] = {"cell_type": kind, "id": cell_id, "metadata": {}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _statement_cell(title: str, statement: str) -> str:
    """The statement as the notebook's first cell: its own title when it has one (not the title twice), and
    "define them in the cells below" where a file-graded statement says "write one Python file"."""
    text = statement.strip()
    if not text.startswith("# "):
        text = f"# {title}\n\n{text}"
    return re.sub(r"Write one Python file that defines", "In the cells below, define", text) + "\n"


def starter_notebook(bundle: Bundle) -> dict:
    """nbformat 4.5: the statement, one stub per function, the check; written as JSON without nbformat's help so
    that packaging needs no optional dependency (tests validate it with nbformat)."""
    spec = bundle.spec
    hidden = sum(1 for c in bundle.cases.cases if c.visibility != "public")
    cells = [_cell("markdown", _statement_cell(spec.title, bundle.statement), "statement"),
             _cell("code", "import numpy as np", "imports")]
    for k, function in enumerate(spec.functions):
        doc = function.summary.strip() or f"See the statement: {function.name}."
        cells.append(_cell("markdown", f"## `{function.signature}`\n\n{doc}", f"about-{k}"))
        cells.append(_cell("code", f"def {function.signature}:\n    \"\"\"{doc}\"\"\"\n    # your code here\n"
                                   f"    raise NotImplementedError", f"answer-{k}"))
    cells.append(_cell("markdown", "## Check your answer\n\nRuns your functions on the public cases, in a sandbox, "
                                   f"and explains what differs. {hidden} hidden cases run when you submit.",
                       "about-check"))
    cells.append(_cell("code", f"from judge import check\n\nverdict = check({bundle.id!r})", "check"))
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}, "judge": {"problem": bundle.id}}}
