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
from pydantic import ValidationError

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
