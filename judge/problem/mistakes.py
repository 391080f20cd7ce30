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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Literal

from pydantic import Field

from judge.errors import BundleError
from judge.problem.modules import import_bundle_file, require_callables
from judge.problem.models import Tolerance, _Strict

# Recognisers the judge implements itself, driven by facts; a bundle may reword them.
GENERIC_IDS = ("not_ndarray", "ndarray_subclass", "non_finite", "input_mutated", "transposed",
               "float32_precision", "constant_output", "forged_verdict", "monkeypatch_numpy")


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


class MistakesFile(_Strict):
    schema_version: Literal[1]
    module: str = "mistakes.py"
    match_tolerance: Tolerance = Tolerance(atol=1e-6, rtol=1e-6)
    max_elements: int = Field(1 << 18, ge=1, description="larger cases are not used to recognise mistakes")
    mistakes: list[MistakeSpec] = Field(default_factory=list)
    properties: list[PropertySpec] = Field(default_factory=list)


@dataclass
class Bank:
    spec: MistakesFile
    module: ModuleType | None
    path: Path

    def message(self, mistake_id: str, default: str) -> str:
        for m in self.spec.mistakes:
            if m.id == mistake_id:
                return m.message
        return default


def check_bank(path: Path, spec: MistakesFile, functions: set[str]) -> None:
    """Cross-references that need no import: ids unique, functions known, generic ids real."""
    seen: set[str] = set()
    for m in spec.mistakes:
        if m.id in seen:
            raise BundleError(str(path), None, f"mistake id {m.id!r} is used twice")
        seen.add(m.id)
        unknown = set(m.implements) - functions
        if unknown:
            raise BundleError(str(path), None, f"mistake {m.id}: unknown function {', '.join(sorted(unknown))}")
        if not m.implements and m.id not in GENERIC_IDS:
            raise BundleError(str(path), None, f"mistake {m.id}: needs 'implements' (generic recognisers are "
                                               f"{', '.join(GENERIC_IDS)})")
    for p in spec.properties:
        unknown = set(p.functions) - functions
        if unknown:
            raise BundleError(str(path), None, f"property {p.id}: unknown function {', '.join(sorted(unknown))}")


def load_bank(root: Path, name: str, functions: set[str]) -> Bank:
    """Load mistakes.yaml and import its module (in the judge's process, never in the sandbox)."""
    from judge.problem.loader import _validate

    path = root / name
    spec: MistakesFile = _validate(MistakesFile, path)
    check_bank(path, spec, functions)
    module_path = root / spec.module
    module = import_bundle_file(module_path, f"_judge_mistakes_{root.name.replace('-', '_')}", "the mistakes module")
    names = [a for m in spec.mistakes for a in m.implements.values()] + [p.check for p in spec.properties]
    require_callables(module, names, module_path, "the mistakes module")
    return Bank(spec=spec, module=module, path=path)
