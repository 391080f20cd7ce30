"""The bundle's bank of known mistakes: mistakes.yaml plus a module of small wrong implementations.

mistakes.yaml::

    schema_version: 1
    module: mistakes.py            # imported in the judge's process only, like reference.py
    match_tolerance: {atol: 1.0e-6, rtol: 1.0e-6}
    mistakes:
      - id: sin_cos_swapped
        message: "..."             # short, for learners
        implements: {sinusoidal_pe: swapped_pe, add_positional_encoding: swapped_add}
      - id: transposed             # no ``implements``: a generic recogniser of the judge,
        message: "..."             # with the exercise's own wording
    properties:
      - id: unit_circle
        description: "each sin/cos pair lies on the unit circle"
        functions: [sinusoidal_pe, add_positional_encoding]
        check: unit_circle         # check(function, args, got) -> bool | None (None: not applicable)
    family:                        # optional: a small model of the plausible answers (see FamilySpec)
      build: family_build          # build(function, args, choice) -> ndarray | None
      components:
        - id: order
          name: sin/cos order
          options:                 # the first option is the right answer
            - {id: sin_first, text: "sin in column 2i, cos in 2i+1"}
            - {id: cos_first, text: "puts cos in column 2i and sin in 2i+1", mistake: sin_cos_swapped}
      recover: family_recover      # recover(function, args, got) -> dict: a first guess, and facts
      facts:                       # the facts recover may report, by id: {"id": "frequencies", "params": {...}}
        frequencies: "row 1 gives the frequencies w_i = {values}"    # {name}, {name:.4g}: str.format fields
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from judge.errors import BundleError
from judge.problem.models import Tolerance, _Strict
from judge.problem.modules import import_bundle_file
from judge.problem.yamlfile import LineMap, validate_with_lines

# Recognisers the judge implements itself, driven by facts; a bundle may reword them.
GENERIC_IDS = ("not_ndarray", "ndarray_subclass", "non_finite", "input_mutated", "transposed",
               "float32_precision", "constant_output", "forged_verdict", "monkeypatch_numpy", "extra_leading_axis")

if TYPE_CHECKING:
    from judge.problem.recorded import RecordedModule


class MistakeSpec(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    message: str = Field(min_length=1, max_length=600)
    implements: dict[str, str] = Field(default_factory=dict,
                                       description="function name -> attribute of the module computing the mistake")


class PropertySpec(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    description: str
    functions: list[str] = Field(min_length=1)
    check: str


class FamilyOption(_Strict):
    """One way of computing a component; ``text`` says what the learner's code does, in the exercise's terms."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    text: str = Field(min_length=1, max_length=300)
    mistake: str | None = Field(None, description="the bank's id for this choice, if the bank names it")
    match_tolerance: Tolerance | None = Field(None, description="looser matching for this choice (e.g. float32)")


class FamilyComponent(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    name: str = Field(min_length=1, max_length=80)
    options: list[FamilyOption] = Field(min_length=2, description="the first option is the right answer")


class FamilySpec(_Strict):
    """The family of plausible answers: components with options; ``build`` computes any combination.

    The judge fits a learner's outputs to the family (judge.diagnosis.recover): the
    combination that reproduces them says what they computed, component by component."""

    build: str = Field(description="build(function, args, choice: dict[str, str]) -> ndarray | None")
    recover: str | None = Field(None, description="recover(function, args, got) -> dict: a first guess, read "
                                                  "directly off the output")
    components: list[FamilyComponent] = Field(min_length=1)
    facts: dict[str, str] = Field(default_factory=dict, description="the facts ``recover`` reports by id "
                                  "({'id': ..., 'params': {...}}), their English texts with str.format fields; "
                                  "translated in translations/<lang>.yaml under family.facts")
    max_changes: int = Field(3, ge=1, le=4, description="how many components may differ from the right answer")


class MistakesFile(_Strict):
    schema_version: Literal[1]
    module: str = "mistakes.py"
    match_tolerance: Tolerance = Tolerance(atol=1e-6, rtol=1e-6)
    max_elements: int = Field(1 << 18, ge=1, description="larger cases are not used to recognise mistakes")
    mistakes: list[MistakeSpec] = Field(default_factory=list)
    properties: list[PropertySpec] = Field(default_factory=list)
    family: FamilySpec | None = None


CACHE_BYTES = 256 << 20  # outputs of the bank's implementations, reused across verdicts (judge process)


@dataclass(eq=False)
class Bank:
    spec: MistakesFile
    module: ModuleType | RecordedModule | None  # a hand-out's recorded outputs stand for the module
    path: Path
    cache: dict = field(default_factory=dict, repr=False)
    cached_bytes: int = 0

    def remember(self, key: tuple, value: Any) -> Any:
        """Keep a computed output (bounded: the cache is emptied when it grows past CACHE_BYTES)."""
        size = getattr(value[0] if isinstance(value, tuple) else value, "nbytes", 0)
        if self.cached_bytes + size > CACHE_BYTES:
            self.cache.clear()
            self.cached_bytes = 0
        self.cache[key] = value
        self.cached_bytes += size
        return value

    def message(self, mistake_id: str, default: str) -> str:
        for m in self.spec.mistakes:
            if m.id == mistake_id:
                return m.message
        return default


def fact_fields(text: str) -> set[str] | None:
    """The parameters a fact's text names (``{values}``, ``{w:.4g}``: ``values``, ``w``), or None when it is not a
    format string (an unclosed brace, a positional ``{}`` or ``{0}``, an attribute or an index): a fact is said
    from its parameters by name, in English and in every translation."""
    import string

    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    except ValueError:
        return None
    if any(not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", f) for f in fields):
        return None
    return set(fields)


def check_bank(path: Path, spec: MistakesFile, functions: set[str], lines: LineMap | None = None) -> None:
    """Cross-references that need no import: ids unique, functions known, generic ids real; each error at the
    line of mistakes.yaml it is about (``lines``)."""
    def at(*key: object) -> int | None:
        return None if lines is None else next((lines[key[:n]] for n in range(len(key), 0, -1) if key[:n] in lines),
                                               None)

    seen: set[str] = set()
    for k, m in enumerate(spec.mistakes):
        if m.id in seen:
            raise BundleError(str(path), at("mistakes", k, "id"), f"mistake id {m.id!r} is used twice")
        seen.add(m.id)
        unknown = sorted(set(m.implements) - functions)
        if unknown:
            raise BundleError(str(path), at("mistakes", k, "implements", unknown[0]),
                              f"mistake {m.id}: unknown function {', '.join(unknown)} (the problem's functions: "
                              f"{', '.join(sorted(functions))})")
        if not m.implements and m.id not in GENERIC_IDS:
            raise BundleError(str(path), at("mistakes", k, "id"), f"mistake {m.id}: needs 'implements' (generic "
                                                                  f"recognisers are {', '.join(GENERIC_IDS)})")
    if spec.family is not None:
        for key, text in spec.family.facts.items():
            if not re.fullmatch(r"[a-z0-9][a-z0-9_]*", key) or not text.strip() or fact_fields(text) is None:
                why = ("an id is lowercase letters, digits and _" if not re.fullmatch(r"[a-z0-9][a-z0-9_]*", key)
                       else "empty text" if not text.strip() else
                       "not a format string: name each parameter in braces ({values}, {w:.4g}); write {{ for a brace")
                raise BundleError(str(path), at("family", "facts", key), f"family: facts: {key}: {why}")
        ids = [c.id for c in spec.family.components]
        if len(set(ids)) != len(ids):
            raise BundleError(str(path), at("family", "components"), "family: a component id is used twice")
        for j, c in enumerate(spec.family.components):
            for q, o in enumerate(c.options):
                if o.mistake is not None and o.mistake not in seen and o.mistake not in GENERIC_IDS:
                    raise BundleError(str(path), at("family", "components", j, "options", q, "mistake"),
                                      f"family component {c.id}, option {o.id}: unknown mistake {o.mistake!r}")
    for k, p in enumerate(spec.properties):
        unknown = sorted(set(p.functions) - functions)
        if unknown:
            raise BundleError(str(path), at("properties", k, "functions"),
                              f"property {p.id}: unknown function {', '.join(unknown)}")


def _named_in_yaml(spec: MistakesFile) -> list[tuple[tuple, str, str]]:
    """Every name of the mistakes module that mistakes.yaml uses: the key it is written at, the name, where that
    is in words."""
    names: list[tuple[tuple, str, str]] = [(("mistakes", k, "implements", fn), attr, f"mistake {m.id}, implements {fn}")
             for k, m in enumerate(spec.mistakes) for fn, attr in m.implements.items()]
    names += [(("properties", k, "check"), p.check, f"property {p.id}, check") for k, p in enumerate(spec.properties)]
    if spec.family is not None:
        names.append((("family", "build"), spec.family.build, "family, build"))
        if spec.family.recover:
            names.append((("family", "recover"), spec.family.recover, "family, recover"))
    return names


def load_bank(root: Path, name: str, functions: set[str], recorded: str | None = None) -> Bank:
    """Load mistakes.yaml and import its module (in the judge's process, never in the sandbox); in a hand-out
    (``recorded``: its folder of recorded outputs) the module's outputs on the public cases stand for it."""
    path = root / name
    spec, lines = validate_with_lines(MistakesFile, path)
    check_bank(path, spec, functions, lines)
    if recorded is not None:
        from judge.problem.recorded import load_recorded

        if spec.properties or spec.family is not None:
            raise BundleError(str(path), None, "a hand-out's bank holds mistakes only (properties and the family "
                                               "need the mistakes module's code)")
        module_path = root / recorded
        module: ModuleType | RecordedModule = load_recorded(module_path, "mistakes")
    else:
        module_path = root / spec.module
        module = import_bundle_file(module_path, f"_judge_mistakes_{root.name.replace('-', '_')}",
                                    "the mistakes module")
    for key, name, label in _named_in_yaml(spec):  # a misspelt name is the YAML's typo: blamed on its line there
        if not callable(getattr(module, name, None)):
            defined = sorted(n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n, None)))
            close = difflib.get_close_matches(name, defined, n=1)
            hint = (
                f" (did you mean {close[0]!r}?)" if close else f" (it defines: {', '.join(defined[:12]) or 'nothing'})"
            )
            raise BundleError(str(path), lines.get(key), f"{label}: {name}() is not defined in {module_path.name}"
                                                         f"{hint}")
    return Bank(spec=spec, module=module, path=path)
