"""Loading a bundle from disk, with errors that name the file, the line and the field.

YAML is composed once to learn where every key sits, then validated by the
pydantic models; a validation error's location is mapped back to a line, as
Kattis' verifyproblem does for its own files but without a traceback.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from judge.errors import BundleError
from judge.problem.locate import PROBLEMS_DIR, available, resolve  # noqa: F401 - re-exported
from judge.problem.mistakes import Bank, load_bank
from judge.problem.models import CasesFile, ProblemSpec
from judge.problem.timescale import scale_times
from judge.problem.translations import Translations, load_translations
from judge.problem.yamlfile import MAX_BUNDLE_FILE, _load_yaml, _read_text, _validate  # noqa: F401 - used by others


@dataclass(frozen=True)
class Bundle:
    """A loaded, validated problem bundle.  ``digest`` changes whenever any of its files does."""

    root: Path
    spec: ProblemSpec
    cases: CasesFile
    statement: str
    digest: str
    bank: Bank | None = None  # the known mistakes (mistakes.yaml + its module), loaded and checked once
    translations: Translations = Translations()  # statement.<lang>.md and translations/<lang>.yaml, checked

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def reference_path(self) -> Path:
        return self.root / self.spec.reference


def _check_domains(spec: ProblemSpec, spec_path: Path) -> None:
    """Each function's input domain names exactly its parameters, and every ``match`` an axis that exists."""
    from judge.problem.models import ArrayDomain

    _, lines = _load_yaml(spec_path)
    for k, function in enumerate(spec.functions):
        domain = function.domain
        if domain is None:
            continue
        where = lines.get(("functions", k, "domain"), lines.get(("functions", k)))
        missing = [p for p in function.params if p not in domain.args]
        unknown = [a for a in domain.args if a not in function.params]
        if missing or unknown:
            raise BundleError(
                str(spec_path),
                where,
                f"{function.name}: the domain must name every parameter and "
                f"no other (missing: {', '.join(missing) or 'none'}; unknown: {', '.join(unknown) or 'none'})",
            )
        for name, arg in domain.args.items():
            if not isinstance(arg, ArrayDomain):
                continue
            for axis, other in arg.array.match.items():
                target = domain.args.get(other)
                if not isinstance(target, ArrayDomain) or axis not in target.array.axes or other == name:
                    raise BundleError(str(spec_path), where, f"{function.name}: {name}: match {{{axis}: {other}}} "
                                      f"names no axis {axis!r} of another array argument")
            like = arg.array.leading_like
            if like is not None and (like == name or not isinstance(domain.args.get(like), ArrayDomain)):
                raise BundleError(str(spec_path), where, f"{function.name}: {name}: leading_like {like!r} names no "
                                  "other array argument")
            if arg.array.indexes is not None:
                other, axis = arg.array.indexes.split(".", 1)
                target = domain.args.get(other)
                if not isinstance(target, ArrayDomain) or axis not in target.array.axes or not arg.array.integer:
                    raise BundleError(str(spec_path), where, f"{function.name}: {name}: indexes {arg.array.indexes!r} "
                                      "must name an axis of another array argument, and the values be integer: true")


def _check_handout(spec: ProblemSpec, cases: CasesFile, spec_path: Path) -> None:
    """A hand-out holds public cases only and nothing that needs the reference's code."""
    hidden = [c.id for c in cases.cases if c.visibility != "public"]
    if hidden:
        raise BundleError(str(spec_path), None, f"a hand-out bundle holds public cases only (hidden: {len(hidden)})")
    if spec.reference_checks or any(f.domain is not None for f in spec.functions):
        raise BundleError(str(spec_path), None, "a hand-out bundle has no reference: no reference_checks and no "
                                                "input domains (counterexamples are searched when submitted)")


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
        if case.id in seen:
            raise BundleError(str(cases_path), lines.get(("cases", i)), f"case id {case.id!r} is used twice")
        seen.add(case.id)
        if case.function not in names:
            raise BundleError(str(cases_path), lines.get(("cases", i, "function"), lines.get(("cases", i))),
                              f"case {case.id}: unknown function {case.function!r} (declared: {', '.join(names)})")
        unknown = set(case.args) - set(names[case.function].params)
        if unknown:
            raise BundleError(str(cases_path), lines.get(("cases", i, "args"), lines.get(("cases", i))),
                              f"case {case.id}: {case.function} has no parameter {', '.join(sorted(unknown))}")
    _check_domains(spec, spec_path)
    for i, check in enumerate(spec.reference_checks):
        if check.function not in names:
            raise BundleError(str(spec_path), None, f"reference_checks[{i}]: unknown function {check.function!r}")
        items = names[check.function].part_names
        if (check.item is not None) != (items is not None) or (items and check.item not in items):
            raise BundleError(str(spec_path), None, f"reference_checks[{i}]: item names one of a tuple's items "
                              f"({', '.join(items) if items else f'{check.function} returns no tuple'})")
    statement = _read_text(root / spec.statement)
    if spec.handout is not None:  # a hand-out: recorded outputs stand where the reference's code would
        from judge.problem.recorded import index_bytes

        _check_handout(spec, cases, spec_path)
        reference = index_bytes(root / spec.handout.recorded).decode("utf-8", "replace")
    else:
        reference = _read_text(root / spec.reference)
    parts = [spec_path.read_bytes(), cases_path.read_bytes(), reference.encode()]
    bank = None
    if spec.mistakes:
        bank = load_bank(root, spec.mistakes, set(names), spec.handout.recorded if spec.handout else None)
        if spec.handout is None:
            parts += [(root / spec.mistakes).read_bytes(), _read_text(root / bank.spec.module).encode()]
        else:
            parts.append((root / spec.mistakes).read_bytes())
    translations = load_translations(root, spec, cases, bank)  # not in the digest: no output depends on them
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    spec, cases = scale_times(spec, cases)  # JUDGE_TIME_SCALE, after the digest: the files are unchanged
    return Bundle(root=root, spec=spec, cases=cases, statement=statement, digest=digest.hexdigest()[:16], bank=bank,
                  translations=translations)
