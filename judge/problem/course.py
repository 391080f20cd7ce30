"""A course: the problems of a problems folder in the order they are taught, from its ``course.yaml``.

``problems/course.yaml``::

    schema_version: 1
    title: Transformers in numpy
    problems:            # in course order; each an id of a bundle in this folder
      - sinusoidal-pe
      - rotary-embedding

``judge problems`` lists the course's problems in this order (the folder's other problems after them), the
service's problem list and the learner page follow it.  A folder without the file has no course: its problems
are listed by id.  The file names problems only; every bundle stays self-contained.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from judge.errors import BundleError
from judge.problem.locate import search_dirs
from judge.problem.models import _Strict
from judge.problem.yamlfile import _load_yaml, _validate

COURSE_FILE = "course.yaml"


class CourseSpec(_Strict):
    schema_version: Literal[1]
    title: str = Field(min_length=1, max_length=200)
    #: problem ids (a bundle's id syntax: never a path), in course order
    problems: list[Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$")]] = Field(min_length=1)

    @model_validator(mode="after")
    def _once_each(self) -> CourseSpec:
        seen: set[str] = set()
        for pid in self.problems:
            if pid in seen:
                raise ValueError(f"problems: {pid!r} is listed twice")
            seen.add(pid)
        return self


@dataclass(frozen=True)
class Course:
    """A loaded course: its spec and the folder whose bundles it orders."""

    spec: CourseSpec
    folder: Path

    @property
    def title(self) -> str:
        return self.spec.title

    def missing(self) -> list[str]:
        """The course's ids that name no bundle in its folder."""
        return [pid for pid in self.spec.problems if not (self.folder / pid / "problem.yaml").is_file()]

    def position(self, problem: str) -> int | None:
        """1-based place of ``problem`` in the course, or None."""
        return self.spec.problems.index(problem) + 1 if problem in self.spec.problems else None


def load_course(folder: Path) -> Course | None:
    """The course of a problems folder (None without a course.yaml); a broken file is a BundleError with its line."""
    path = folder / COURSE_FILE
    if not path.is_file():
        return None
    spec: CourseSpec = _validate(CourseSpec, path)
    course = Course(spec, folder)
    missing = course.missing()
    if missing:
        _, lines = _load_yaml(path)
        where = lines.get(("problems", spec.problems.index(missing[0])), lines.get(("problems",)))
        raise BundleError(str(path), where, f"no bundle {folder / missing[0]} for the course's problem "
                                            f"{missing[0]!r}")
    return course


def find_course(near: str | Path | None = None) -> Course | None:
    """The course of the first problems folder (in lookup order, :func:`judge.problem.locate.search_dirs`) that
    has one."""
    for folder in search_dirs(near):
        if (folder / COURSE_FILE).is_file():
            return load_course(folder)
    return None


def in_course_order(ids: list[str], course: Course | None) -> list[str]:
    """``ids`` with the course's problems first, in its order, then the others by id."""
    order = course.spec.problems if course is not None else []
    first = [pid for pid in order if pid in ids]
    return first + sorted(pid for pid in ids if pid not in order)


__all__ = ["COURSE_FILE", "Course", "CourseSpec", "find_course", "in_course_order", "load_course"]
