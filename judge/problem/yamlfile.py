"""Reading a bundle's YAML files with errors that name the file, the line and the field.

YAML is composed once to learn where every key sits, then validated by the
pydantic models; a validation error's location is mapped back to a line, as
Kattis' verifyproblem does for its own files but without a traceback.  Shared
by the loader and the mistake bank (so neither imports the other for it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from judge.errors import BundleError

MAX_BUNDLE_FILE = 4 << 20


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


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)   # libyaml when PyYAML has it: parsing is most of a cold load


class LineMap:
    """Where each key of a YAML file sits, found by a second parse only when an error needs a line number.

    A bundle that loads cleanly (every cold `judge grade`) never pays for it.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._lines: dict[tuple, int] | None = None

    def _map(self) -> dict[tuple, int]:
        if self._lines is None:
            node = yaml.compose(self._text, Loader=_LOADER)
            self._lines = _line_map(node) if node is not None else {}
        return self._lines

    def get(self, key: tuple, default: int | None = None) -> int | None:
        return self._map().get(key, default)

    def __contains__(self, key: tuple) -> bool:
        return key in self._map()

    def __getitem__(self, key: tuple) -> int:
        return self._map()[key]


def _load_yaml(path: Path) -> tuple[Any, LineMap]:
    text = _read_text(path)
    try:
        data = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise BundleError(str(path), line, f"invalid YAML: {getattr(exc, 'problem', None) or exc}") from None
    return data, LineMap(text)


def _validate(model: type[BaseModel], path: Path) -> Any:
    return validate_with_lines(model, path)[0]


def validate_with_lines(model: type[BaseModel], path: Path) -> tuple[Any, LineMap]:
    """The file validated by ``model``, and where its keys sit (for errors found after validation)."""
    data, lines = _load_yaml(path)
    if not isinstance(data, dict):
        raise BundleError(str(path), 1, "expected a mapping at the top level")
    try:
        return model.model_validate(data), lines
    except ValidationError as exc:
        problems = _problems(model, exc, lines)
        first_line, first = problems[0]
        rest = "".join(f"\n{path}:{line}: {text}" if line else f"\n{path}: {text}" for line, text in problems[1:])
        raise BundleError(str(path), first_line, first + rest) from None


_TYPE_TAGS = {"ArrayArg", "int", "float", "bool", "str", "none"}


def _problems(model: type, exc: ValidationError, lines: LineMap) -> list[tuple[int | None, str]]:
    """Every validation error as (line, text), in file order: a misspelt key is named at its own line with the
    key it was probably meant to be ("did you mean"), and the "field required" its typo caused is not repeated."""
    errors = [(_readable_loc(e), e) for e in exc.errors()]
    unknown = {loc: _suggest(model, loc) for loc, e in errors if e["type"] == "extra_forbidden"}
    meant = {loc[:-1] + (hint,) for loc, hint in unknown.items() if hint}
    out: list[tuple[int | None, str]] = []
    for loc, err in errors:
        if err["type"] == "missing" and loc in meant:
            continue  # its misspelling is reported, at its own line
        line = next((lines[loc[:n]] for n in range(len(loc), -1, -1) if loc[:n] in lines), None)
        where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in loc).replace(".[", "[") or "top level"
        if err["type"] == "extra_forbidden":
            hint = unknown[loc]
            text = f"{where}: unknown key {loc[-1]!r}" + (f" (did you mean {hint!r}?)" if hint else "")
        else:
            text = f"{where}: {err['msg']}"
        if (line, text) not in out:
            out.append((line, text))
    return sorted(out, key=lambda item: (item[0] is None, item[0] or 0))


def _readable_loc(error: Any) -> tuple:
    """The error's location as the file spells it: pydantic's union tags (``int``, ``ArrayArg``...) dropped, but an
    unknown key is the file's own word and kept even when it happens to read like a tag (a key named ``none``)."""
    loc = tuple(error["loc"])
    keep_last = error["type"] == "extra_forbidden" and loc
    body = loc[:-1] if keep_last else loc
    kept = tuple(p for p in body if not (isinstance(p, str) and p in _TYPE_TAGS) and "[" not in str(p))
    return kept + (loc[-1],) if keep_last else kept


def _suggest(model: type, loc: tuple) -> str | None:
    """The field name closest to the unknown key at ``loc`` among the fields the model allows there."""
    import difflib

    allowed = _fields_at(model, loc[:-1])
    close = difflib.get_close_matches(str(loc[-1]), allowed, n=1, cutoff=0.7)
    return close[0] if close else None


def _fields_at(model: type[BaseModel], loc: tuple) -> list[str]:
    """The field names of the sub-model at ``loc`` (through nested models, lists and optionals), if one is found."""
    import typing

    def models(annotation: Any) -> list[type[BaseModel]]:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return [annotation]
        return [m for arg in typing.get_args(annotation) for m in models(arg)]

    current = [model]
    for part in loc:
        if isinstance(part, int):
            continue  # an item of a list: the list's item model, already in ``current``
        nxt: list[type[BaseModel]] = []
        for m in current:
            field = m.model_fields.get(part)
            if field is not None:
                nxt += models(field.annotation)
        if not nxt:
            return []
        current = nxt
    return sorted({name for m in current for name in m.model_fields})
