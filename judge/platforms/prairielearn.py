"""PrairieLearn external grading: a question folder, a grader image, and ``judge pl-grade``.

PrairieLearn (docs/externalGrading.md) runs the question's
``externalGradingOptions.image`` with ``entrypoint``, the question's ``tests/``
folder at ``/grade/tests``, the learner's files at ``/grade/student``, the
question's data at ``/grade/data/data.json``; the entry point creates
``/grade/results/`` and writes ``results.json`` there (under 1 MB).  The grader
host reads it only when the container exits 0, with no network, 2 GiB of
memory without swap, 0.9 CPU and 1024 processes.

``judge package prairielearn PROBLEM... -o DIR`` writes:

- ``DIR/questions/<id>/`` for each problem: ``info.json`` (``gradingMethod: External``),
  ``question.html`` (``<pl-file-editor>`` and ``<pl-external-grader-results>``),
  ``tests/problem/`` (the bundle: PrairieLearn never shows ``tests/`` to
  learners);
- ``DIR/grader-image/``: one Dockerfile for them all and the wheels it installs from (no
  network), with a copy of every bundle (``problems/<id>``) to pre-compute their expected outputs in
  the image, so each job starts warm; the bundle in ``/grade/tests`` stays the
  authority (a cache made from another version of it is simply not used).
"""

from __future__ import annotations

import json
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.i18n.negotiate import DEFAULT
from judge.platforms.assets import build_wheels, copy_bundle, expected_file, submission_name
from judge.platforms.course_language import ENV, for_package
from judge.platforms.runner import SUBMITTED, Submission, find_submission, run_packaged
from judge.problem.translations import bundle_text, statement
from judge.progress import Progress

if TYPE_CHECKING:
    from judge.problem.loader import Bundle
    from judge.verdict import Verdict

GRADER_HOME = "/opt/numpy-judge"
ENTRYPOINT = [f"{GRADER_HOME}/venv/bin/judge", "pl-grade"]
MAX_TIMEOUT = 600          # PrairieLearn's ceiling for externalGradingOptions.timeout

DOCKERFILE = """\
# numpy-judge grader image for PrairieLearn external grading (written by `judge package prairielearn`).
# Build and push it where PrairieLearn can pull it, under the name info.json gives:
#   docker build -t __IMAGE__ . && docker push __IMAGE__
# BASE: any Debian or Ubuntu image with Python >= 3.11 (python3 and its venv module).
ARG BASE=python:3.11-slim
FROM ${BASE}
ENV LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \\
    JUDGE_CACHE_DIR=__HOME__/cache JUDGE_MIN_ISOLATION=__MIN_ISOLATION__ MPLCONFIGDIR=/tmp/matplotlib
COPY wheels /tmp/wheels
COPY problems __HOME__/problems
RUN set -eux; \\
    python3 -c 'import sys, ensurepip; assert sys.version_info >= (3, 11), sys.version'; \\
    python3 -m venv __HOME__/venv; \\
    __HOME__/venv/bin/python -m pip install -q --no-index --find-links /tmp/wheels 'numpy-judge[pictures]'; \\
    rm -rf /tmp/wheels; \\
    mkdir -p __HOME__/cache; \\
    for p in __HOME__/problems/*/; do __HOME__/venv/bin/python -m judge.platforms warm "$p"; done; \\
    chmod 755 __HOME__; chmod -R go-rwx __HOME__/problems __HOME__/cache
WORKDIR /grade
ENTRYPOINT __ENTRYPOINT__
"""

QUESTION_HTML = """\
<pl-question-panel>
  <markdown>
__STATEMENT__
  </markdown>
  <p>__WRITE_IN__</p>
</pl-question-panel>

<pl-file-editor file-name="__FILE__" ace-mode="ace/mode/python"></pl-file-editor>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""


def _uuid(info: Path) -> str:
    """The question's UUID: kept from an earlier package (PrairieLearn tracks questions by it), else a new v4."""
    try:
        return str(uuid.UUID(json.loads(info.read_text())["uuid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return str(uuid.uuid4())


def info_json(bundle: Bundle, image: str, uuid_text: str, lang: str = DEFAULT) -> dict:
    """The question's info.json; the course's language reaches the grader as PrairieLearn passes settings to it,
    in ``externalGradingOptions.environment`` (PrairieLearn's data.json tells it no learner's language)."""
    limits = bundle.spec.limits
    timeout = int(min(MAX_TIMEOUT, max(30, limits.wall_seconds * 2 + 15)))
    return {
        "uuid": uuid_text,
        "title": bundle_text(bundle, lang, "title", "", bundle.spec.title),
        "topic": "numpy",
        "tags": ["numpy-judge", bundle.id],
        "type": "v3",
        "gradingMethod": "External",
        "singleVariant": True,
        "externalGradingOptions": {
            "enabled": True,
            "image": image,
            "entrypoint": ENTRYPOINT,
            "timeout": timeout,
            "enableNetworking": False,
            "environment": {ENV: lang},
        },
    }


def _html_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def package(
    bundles: Bundle | list[Bundle],
    out: Path,
    image: str,
    min_isolation: str = "reduced",
    pythons: tuple[str, ...] = ("3.11",),
    wheel_cache: Path | None = None,
    progress: Progress | None = None,
    lang: str | None = None,
) -> Path:
    """Write a question folder per bundle (one bundle or a list: a course's) and the one grader image's build
    folder, holding every bundle, under ``out``; ``lang``: the course's language (the statement, when the bundle
    has it in that language, and the grader's results)."""
    course = for_package(lang)
    bundles = bundles if isinstance(bundles, (list, tuple)) else [bundles]
    image_dir = out / "grader-image"
    for bundle in bundles:
        question = out / "questions" / bundle.id
        question.mkdir(parents=True, exist_ok=True)
        info = question / "info.json"
        info.write_text(json.dumps(info_json(bundle, image, _uuid(info), course), indent=2, ensure_ascii=False)
                        + "\n")
        name = submission_name(bundle.id)
        text, _ = statement(bundle, course)
        write_in = _html_text(say(m.PK_WRITE_IN, course, file="\0")).replace("\0", f"<code>{name}</code>")
        (question / "question.html").write_text(
            QUESTION_HTML.replace("__STATEMENT__", _html_text(text.strip())).replace("__WRITE_IN__", write_in)
            .replace("__FILE__", name))
        copy_bundle(bundle.root, question / "tests" / "problem")
        copy_bundle(bundle.root, image_dir / "problems" / bundle.id)
    build_wheels(
        image_dir / "wheels", pythons, wheel_cache, extras=("pictures",), progress=progress
    )  # images in results.json
    (image_dir / "Dockerfile").write_text(
        DOCKERFILE.replace("__IMAGE__", image).replace("__HOME__", GRADER_HOME)
        .replace("__MIN_ISOLATION__", min_isolation).replace("__ENTRYPOINT__", json.dumps(ENTRYPOINT)))
    return out


def _from_data(grade: Path) -> Submission | None:
    """The learner's file from data.json's ``submitted_answers._files`` (custom elements), if there is exactly one."""
    import base64

    try:
        data = json.loads((grade / "data" / "data.json").read_text())
        files = [f for f in data["submitted_answers"]["_files"] if str(f.get("name", "")).endswith(SUBMITTED)]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if len(files) != 1:
        return None
    try:
        return Submission(base64.b64decode(files[0]["contents"], validate=True), name=str(files[0]["name"]))
    except (ValueError, KeyError, TypeError):
        return None


def run(grade: Path, problem: Path | None = None) -> int:
    """Grade ``grade/student`` against the bundle in ``grade/tests/problem``; write ``grade/results/results.json``."""
    from judge.formats.prairielearn import results

    problem = problem or grade / "tests" / "problem"
    for private in (grade / "tests", grade / "data", grade / "serverFilesCourse"):
        try:   # the learner's code runs as uid 65534 in this container: it must not read the bundle or the data
            private.chmod(0o700)
        except OSError:
            pass

    def render(verdict: Verdict, bundle: Bundle | None, lang: str) -> str:
        return json.dumps(results(verdict, bundle, Path(pictures), lang), indent=2)

    def submission() -> Submission:
        found = find_submission(grade / "student", expected_file(problem))
        if found.source is None and not any((grade / "student").glob("*")):
            return _from_data(grade) or found
        return found

    with tempfile.TemporaryDirectory(prefix="judge-pictures-") as pictures:   # root-only, gone after the run
        return run_packaged("prairielearn", problem, submission, grade / "results" / "results.json",
                            render, Path(pictures))

