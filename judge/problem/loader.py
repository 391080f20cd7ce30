"""Loading a bundle from disk, with errors that name the file, the line and the field.

YAML is composed once to learn where every key sits, then validated by the
pydantic models; a validation error's location is mapped back to a line, as
Kattis' verifyproblem does for its own files but without a traceback.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from judge.errors import BundleError
from judge.problem.models import CasesFile, ProblemSpec

# JUDGE_PROBLEMS_DIR overrides the problems folder beside the package (e.g. /opt/judge/problems in the image).
PROBLEMS_DIR = Path(os.environ.get("JUDGE_PROBLEMS_DIR") or Path(__file__).resolve().parents[2] / "problems")
MAX_BUNDLE_FILE = 4 << 20


@dataclass(frozen=True)
class Bundle:
    """A loaded, validated problem bundle.  ``digest`` changes whenever any of its files does."""

    root: Path
    spec: ProblemSpec
    cases: CasesFile
    statement: str
    digest: str

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def reference_path(self) -> Path:
        return self.root / self.spec.reference


def _line_map(node: yaml.Node, path: tuple = (), out: dict | None = None) -> dict[tuple, int]:
    out = {} if out is None else out
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = path + (key.value,)
            out[sub] = key.start_mark.line + 1
            _line_map(value, sub, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _line_map(item, path + (i,), out)
    return out


def _read_text(path: Path) -> str:
    if not path.is_file():
        raise BundleError(str(path), None, "file not found")
    size = path.stat().st_size
    if size > MAX_BUNDLE_FILE:
        raise BundleError(str(path), None, f"file is {size} bytes, more than {MAX_BUNDLE_FILE}")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleError(str(path), None, f"not UTF-8 (byte {exc.start})") from None


def _load_yaml(path: Path) -> tuple[Any, dict[tuple, int]]:
    text = _read_text(path)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise BundleError(str(path), line, f"invalid YAML: {getattr(exc, 'problem', None) or exc}") from None
    return data, (_line_map(node) if node is not None else {})


def _validate(model: type, path: Path) -> Any:
    data, lines = _load_yaml(path)
    if not isinstance(data, dict):
        raise BundleError(str(path), 1, "expected a mapping at the top level")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p in {"ArrayArg", "int", "float", "bool", "str", "none"}) and "[" not in str(p))
        line = None
        for n in range(len(loc), -1, -1):
            if loc[:n] in lines:
                line = lines[loc[:n]]
                break
        where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in loc).replace(".[", "[")
        more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
        raise BundleError(str(path), line, f"{where or 'top level'}: {err['msg']}{more}") from None


def resolve(problem: str | Path) -> Path:
    """A problem id in the problems folder, or a path to a bundle folder."""
    candidate = Path(problem)
    if candidate.is_dir() and (candidate / "problem.yaml").is_file():
        return candidate.resolve()
    by_id = PROBLEMS_DIR / str(problem)
    if "/" not in str(problem) and (by_id / "problem.yaml").is_file():
        return by_id
    known = ", ".join(available()) or "none"
    raise BundleError(str(problem), None, f"unknown problem (known: {known})")


def available() -> list[str]:
    if not PROBLEMS_DIR.is_dir():
        return []
    return sorted(p.name for p in PROBLEMS_DIR.iterdir() if (p / "problem.yaml").is_file())


def load_problem(problem: str | Path) -> Bundle:
    """Load and cross-check a bundle; raises :class:`BundleError` naming file and line."""
    root = resolve(problem)
    spec_path = root / "problem.yaml"
    spec: ProblemSpec = _validate(ProblemSpec, spec_path)
    cases_path = root / spec.cases
    cases: CasesFile = _validate(CasesFile, cases_path)
    _, lines = _load_yaml(cases_path)
    names = {f.name: f for f in spec.functions}
    seen: set[str] = set()
    for i, case in enumerate(cases.cases):
        line = lines.get(("cases", i))
        if case.id in seen:
            raise BundleError(str(cases_path), line, f"case id {case.id!r} is used twice")
        seen.add(case.id)
        if case.function not in names:
            raise BundleError(str(cases_path), lines.get(("cases", i, "function"), line),
                              f"case {case.id}: unknown function {case.function!r} (declared: {', '.join(names)})")
        unknown = set(case.args) - set(names[case.function].params)
        if unknown:
            raise BundleError(str(cases_path), lines.get(("cases", i, "args"), line),
                              f"case {case.id}: {case.function} has no parameter {', '.join(sorted(unknown))}")
    for i, check in enumerate(spec.reference_checks):
        if check.function not in names:
            raise BundleError(str(spec_path), None, f"reference_checks[{i}]: unknown function {check.function!r}")
    statement = _read_text(root / spec.statement)
    reference = _read_text(root / spec.reference)
    parts = [spec_path.read_bytes(), cases_path.read_bytes(), reference.encode()]
    if spec.mistakes:
        from judge.problem.mistakes import MistakesFile, check_bank

        bank: MistakesFile = _validate(MistakesFile, root / spec.mistakes)
        check_bank(root / spec.mistakes, bank, set(names))
        parts += [(root / spec.mistakes).read_bytes(), _read_text(root / bank.module).encode()]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return Bundle(root=root, spec=spec, cases=cases, statement=statement, digest=digest.hexdigest()[:16])
