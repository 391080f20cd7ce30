"""``judge case add``: append a validated case to cases.yaml without learning the YAML by heart.

The case is built from the command line (function, arguments as JSON or YAML flow), validated by the same
models and cross-checks the loader uses, run through the reference (it must return a finite array, or raise
what ``--raises`` says), and only then appended as a block at the end of cases.yaml: the file's comments
and layout stay as they are.  The id is generated from the function and arguments unless given.  The kill
matrix row of the new case (which bank mistakes it catches, which of them no other case catches) is
reported at once.  A call whose array has a dtype the function's domain has a rule for (float32 inputs may
give float32 outputs, within a looser tolerance) gets that rule's ``output_dtypes`` and ``tolerance``."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from judge.authoring.killers import mistake_killers
from judge.errors import BundleError, JudgeError
from judge.grading.prepare import prepare
from judge.problem.loader import load_problem, resolve
from judge.problem.models import CaseSpec


@dataclass
class AddedCase:
    case_id: str
    path: Path
    catches: list[str]  # bank mistakes the new case catches
    unique: list[str]  # ... that no other case caught before
    uncaught_before: list[str]


def parse_args(text: str) -> dict:
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise JudgeError(f"--args is neither JSON nor YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(value, dict):
        raise JudgeError("--args must be a mapping of parameter names to values, e.g. "
                         "'{x: {generate: {shape: [4, 8], seed: 3}}, base: 100.0}'")
    return value


def _slug(value: object) -> str:
    if isinstance(value, dict):
        gen = value.get("generate")
        if isinstance(gen, dict) and "shape" in gen:
            return "x".join(map(str, gen["shape"])) + (f"-{gen['dtype']}" if "dtype" in gen else "")
        if "literal" in value:
            return "lit"
        return "arr"
    return re.sub(r"[^A-Za-z0-9.]+", "", str(value))[:12] or "v"


def generate_id(function: str, args: dict, taken: set[str]) -> str:
    base = "-".join([function.replace("_", "-")] + [_slug(v) for v in args.values()])[:48].strip("-.")
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def _flow(value: object) -> str:
    """One value in YAML flow style, on one line."""
    if isinstance(value, (dict, list)):
        return yaml.safe_dump(value, default_flow_style=True, width=10_000, sort_keys=False).strip()
    if isinstance(value, str) and re.match(r"^[A-Za-z][A-Za-z0-9_.-]*$", value):
        return value
    return json.dumps(value)  # YAML is a superset of JSON: quoted strings, numbers, true/false/null


def case_block(case: dict, indent: str = "  ") -> str:
    """The case as a block-style YAML list item whose values are flow mappings (like the bundles' own),
    its dash ``indent`` from the margin (as the file's other cases are)."""
    lines = [f"{indent}- id: {case['id']}"]
    for key, value in case.items():
        if key != "id":
            lines.append(f"{indent}  {key}: {_flow(value)}")
    return "\n".join(lines) + "\n"


def list_indent(text: str) -> str:
    """How far the cases file indents its list items (``  - id:`` in the bundles, ``- id:`` as PyYAML writes)."""
    found = re.search(r"^( *)- (?:id|function):", text, flags=re.MULTILINE)
    return found.group(1) if found else "  "


def dtype_rule(bundle, function: str, args: dict) -> dict:  # noqa: ANN001 - a loaded Bundle
    """How the function's domain says a call with these array dtypes is judged (``output_dtypes``,
    ``tolerance``), e.g. a float32 input: a counterexample's ``judge case add`` line then adds a case judged
    exactly as the search judged it."""
    try:
        domain = bundle.spec.function(function).domain
    except KeyError:
        return {}
    rule = domain.rule_for(args) if domain is not None else None
    return rule.model_dump(exclude_none=True) if rule is not None else {}


def _array_dtype(value: object) -> str | None:
    if isinstance(value, dict):
        return value.get("dtype") or (value.get("generate") or {}).get("dtype") or \
            ("float64" if "generate" in value or "literal" in value else None)
    return None


def check_dtypes(bundle, case: dict, where: str) -> None:  # noqa: ANN001 - a loaded Bundle
    """The new case's array dtypes against the bundle: each allowed by the function's domain (when it has one),
    and the reference's output dtype among those the case accepts (else every correct learner would fail it).
    ``where``: problem.yaml, named in the errors."""
    from judge.problem.expected import load_reference
    from judge.problem.inputs import materialize
    from judge.problem.models import ArrayDomain

    spec = bundle.spec.function(case["function"])
    if spec.domain is not None:
        for name, value in case["args"].items():
            dtype, allowed = _array_dtype(value), spec.domain.args.get(name)
            if dtype is not None and isinstance(allowed, ArrayDomain) and dtype not in allowed.array.dtypes:
                raise JudgeError(f"case not added: {name} is {dtype}, which {spec.name}'s domain in {where} does not "
                                 f"allow for {name} (dtypes: {', '.join(allowed.array.dtypes)}): add {dtype} there "
                                 "first if such calls are valid")
    if case.get("raises"):
        return
    try:
        out = getattr(load_reference(bundle), spec.name)(**materialize(case["args"]))
    except Exception:  # noqa: BLE001 - the trial bundle's preparation reports what the reference does
        return
    accepted = case.get("output_dtypes") or spec.output_dtypes
    produced = str(getattr(out, "dtype", ""))
    if produced and produced not in accepted:
        given = next((d for d in map(_array_dtype, case["args"].values()) if d), produced)
        widened = ", ".join(dict.fromkeys([*accepted, produced]))
        raise JudgeError(f"case not added: the reference returns {produced} on it, but the case accepts only "
                         f"{', '.join(accepted)} ({spec.name}'s output_dtypes in {where}), so a correct solution "
                         f"would fail it. Say how {given} calls are judged, under {spec.name}'s domain: "
                         f"`dtypes: {{{given}: {{output_dtypes: [{widened}]}}}}` (or widen output_dtypes), or make the "
                         f"reference return {accepted[0]}")


def add_case(problem: str, function: str, args: dict, case_id: str | None = None, visibility: str = "hidden",
             description: str = "", raises: str | None = None, tags: list[str] | None = None) -> AddedCase:
    root = resolve(problem)
    before = load_problem(root)
    cases_path = root / before.spec.cases
    taken = {c.id for c in before.cases.cases}
    case: dict[str, Any] = {"id": case_id or generate_id(function, args, taken), "function": function}
    if visibility != "hidden":
        case["visibility"] = visibility
    if description:
        case["description"] = description
    if tags:
        case["tags"] = tags
    case["args"] = args
    if raises:
        case["raises"] = raises
    case.update(dtype_rule(before, function, args))
    CaseSpec.model_validate(case)  # field errors before anything is written
    check_dtypes(before, case, str(root / "problem.yaml"))
    text = cases_path.read_text(encoding="utf-8")
    block = case_block(case, list_indent(text))
    new_text = text + ("" if text.endswith("\n") else "\n") + block
    with tempfile.TemporaryDirectory() as tmp:  # the whole bundle, checked with the new case, before writing
        trial = Path(tmp) / root.name
        shutil.copytree(root, trial)
        (trial / before.spec.cases).write_text(new_text, encoding="utf-8")
        try:
            prepared = prepare(load_problem(trial))
        except BundleError as exc:  # named for the real bundle, not the trial copy
            hint = " (if the call must raise, say so with --raises)" if "the reference raised" in exc.message else ""
            raise JudgeError(f"case {case['id']} not added: {exc.message}{hint}") from None
        try:
            killers = mistake_killers(prepared)
        finally:
            prepared.close()
    cases_path.write_text(new_text, encoding="utf-8")
    new = case["id"]
    catches = [k.name for k in killers if k.caught.get(new)]
    others = {k.name: [c for c in k.caught_by() if c != new] for k in killers}
    unique = [name for name in catches if not others[name]]
    uncaught = [k.name for k in killers if not k.caught_by()]
    return AddedCase(new, cases_path, catches, unique, uncaught)
