"""Problem pages for the API: statement, limits and public examples with their expected outputs."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from judge.grading.prepare import bundle_mtimes
from judge.problem.loader import available, load_problem, resolve

_cache: dict[str, tuple[tuple, dict]] = {}
_lock = threading.Lock()


def known(problem: str) -> bool:
    """Only ids of the problems folder: a platform never names a path on the server."""
    return problem in available()


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):  # a function returning a tuple: its items in order
        return [_jsonable(v) for v in value]
    return value


def summaries() -> list[dict]:
    """Every problem, the course's first in course order (problems/course.yaml)."""
    from judge.problem.course import find_course, in_course_order

    out = []
    for pid in in_course_order(available(), find_course()):
        bundle = load_problem(pid)
        out.append({"id": pid, "title": bundle.spec.title, "functions": [f.name for f in bundle.spec.functions]})
    return out


def detail(problem: str) -> dict:
    root = resolve(problem)
    stamp = bundle_mtimes(root)
    with _lock:
        hit = _cache.get(problem)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    from judge.problem.expected import load_reference
    from judge.problem.inputs import build_input_file

    bundle = load_problem(problem)
    spec = bundle.spec
    public = [c for c in bundle.cases.cases if c.visibility == "public"]
    inputs = build_input_file(public)
    reference = load_reference(bundle)
    examples = []
    try:
        for case, args in zip(public, inputs.cases):
            example = {"id": case.id, "function": case.function, "description": case.description,
                       "args": {k: _jsonable(v) for k, v in args.values.items()}}
            if case.raises:  # the call must raise: there is no expected array to show
                example["raises"] = case.raises
            else:
                example["expected"] = _jsonable(getattr(reference, case.function)(**args.values))
            examples.append(example)
    finally:
        inputs.close()
    page = {
        "id": spec.id, "title": spec.title, "statement": bundle.statement,
        "functions": [f.model_dump() for f in spec.functions],
        "limits": spec.limits.model_dump(), "tolerance": spec.tolerance.model_dump(),
        "allowed_imports": list(spec.imports.allowed), "examples": examples, "digest": bundle.digest,
    }
    with _lock:
        _cache[problem] = (stamp, page)
    return page


def _titles(root: Any) -> dict[str, str]:
    """A problem's translated titles (``translations/<lang>.yaml``'s ``title``), read alone: the course listing
    names every problem without loading their bundles (a bundle's translations are checked when it loads)."""
    import yaml

    from judge.problem.translations import FOLDER

    titles = {}
    for path in sorted((root / FOLDER).glob("*.yaml")) if (root / FOLDER).is_dir() else []:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            continue
        if isinstance(data, dict) and isinstance(data.get("title"), str) and data["title"].strip():
            titles[path.stem] = data["title"].strip()
    return titles


def course_listing() -> dict | None:
    """The course the problems folder holds, for the learner page: its title and its problems' ids and titles, in
    course order (None without a course)."""
    from judge.problem.course import find_course

    course = find_course()
    if course is None:
        return None
    files = [course.folder / "course.yaml"] + [course.folder / pid / "problem.yaml" for pid in course.spec.problems]
    stamp = tuple(f.stat().st_mtime_ns for f in files)
    with _lock:
        hit = _cache.get("\0course")
        if hit is not None and hit[0] == stamp:
            return hit[1]
    from judge.problem.models import ProblemSpec
    from judge.problem.yamlfile import _validate

    listing = {"title": course.title,  # titles from problem.yaml alone: no bundle module imported per page
               "problems": [{"id": pid, "title": _validate(ProblemSpec, f).title, "titles": _titles(f.parent)}
                            for pid, f in zip(course.spec.problems, files[1:])]}
    with _lock:
        _cache["\0course"] = (stamp, listing)
    return listing


def in_language(problem: str, lang: str) -> dict:
    """The problem's words a learner page shows, in ``lang``: ``statement`` and the language it is in
    (``statement_lang``: English where the bundle has no translation), ``title`` and the public cases'
    ``descriptions`` (the English ones where untranslated); cached like :func:`detail` until the bundle changes."""
    stamp = bundle_mtimes(resolve(problem))
    key = f"\0lang:{lang}:{problem}"
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    from judge.problem.translations import bundle_text, statement

    bundle = load_problem(problem)
    text, used = statement(bundle, lang)
    words = {"statement": text, "statement_lang": used,
             "title": bundle_text(bundle, lang, "title", "", bundle.spec.title),
             "descriptions": {c.id: bundle_text(bundle, lang, "case", c.id, c.description)
                              for c in bundle.cases.cases if c.visibility == "public" and c.description}}
    with _lock:
        _cache[key] = (stamp, words)
    return words
