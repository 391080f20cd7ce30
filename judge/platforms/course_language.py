"""The language a packaged runner writes its result file in: the course's, from the package, or the learner's
where the platform tells it.

Why a course language in the package: a platform's grader container knows nothing of the learner's language.
Gradescope's ``submission_metadata.json`` names the submission, the assignment and its users (id, name, email),
PrairieLearn's ``data.json`` holds the question's ``params``, answers and scores, Exercism's runner gets a slug
and two folders, otter's plugin gets Gradescope's metadata, nbgrader's preprocessors get the notebook and a
student id: none of them carries a locale.  The container's own ``LANG`` is the image's (``C.UTF-8``), not the
learner's, so it is not read either.  So ``judge package PLATFORM --lang fr`` writes the course's language where
the platform passes settings to its runner (``JUDGE_COURSE_LANG`` in Gradescope's ``run_autograder``, in
PrairieLearn's ``info.json`` ``externalGradingOptions.environment``, in Exercism's ``bin/run.sh``; ``lang`` in
otter's plugin configuration and nbgrader's ``JudgeExecute.lang``), and the runner reads it there.  A language a
platform told per learner would win over the course's; none of these tells one.

The value is checked twice: at ``judge package`` (an unknown language is an error naming it and the choices)
and at run time, where a teacher's edit or a corrupted file must not stop a grade: anything but a language the
judge speaks is English, said once on the run's stderr line, never a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from judge.errors import JudgeError
from judge.i18n.negotiate import DEFAULT, SUPPORTED, supported

#: Where the container platforms' packages put the course language for the runner to read.
ENV = "JUDGE_COURSE_LANG"


def for_package(lang: str | None) -> str:
    """The course language ``judge package --lang`` writes (``fr-FR`` is ``fr``); None is English.  An unknown
    language is a :class:`JudgeError` naming it and the choices."""
    if lang is None:
        return DEFAULT
    found = supported(lang)
    if found is None:
        raise JudgeError(f"--lang {lang[:40]!r}: not a language the judge speaks; choose one of {', '.join(SUPPORTED)}")
    return found


@dataclass(frozen=True)
class CourseLanguage:
    """The language a run renders in, and, when the configured one could not be used, what was wrong (for the
    run's one stderr line: the teacher's log, not the learner's page)."""

    lang: str = DEFAULT
    problem: str = ""


def at_run(value: object, where: str) -> CourseLanguage:
    """The course language a package's ``where`` holds (``value``: as read, any type); English with a note when
    it is set but is not one the judge speaks."""
    if value is None or value == "":
        return CourseLanguage()
    found = supported(value)
    if found is None:
        shown = repr(value)[:40]
        return CourseLanguage(problem=f"course language {shown} in {where} is not one of {', '.join(SUPPORTED)}: "
                                      f"English used")
    return CourseLanguage(found)


def from_environment(environ: Mapping[str, str]) -> CourseLanguage:
    """The course language a container platform's package set (``JUDGE_COURSE_LANG``)."""
    return at_run(environ.get(ENV), ENV)

