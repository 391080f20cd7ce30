"""Exercism: a test-runner image folder, and the run inside it.

Exercism (exercism/docs, building/tooling/test-runners/interface.md and
docker.md) runs ``docker run --network none --read-only --mount
...=/solution --mount ...=/output --tmpfs /tmp IMAGE SLUG /solution/
/output/``; the image's entry point (``/opt/test-runner/bin/run.sh``, workdir
``/opt/test-runner``) writes ``/output/results.json`` (version 3, under 500 KB)
and exits 0 whatever the tests did, within 20 s and 3 GB.

``judge package exercism PROBLEM -o DIR`` writes a runner folder in Exercism's
layout: ``Dockerfile``, ``bin/run.sh`` (the entry point), ``bin/run-tests.sh``
and ``bin/run-tests-in-docker.sh`` (the smoke tests), ``problems/<slug>/`` (the
bundle; the slug is the problem id), ``wheels/``, and
``tests/<name>/<slug>.py`` + ``expected_results.json`` generated from the
problem's example submissions.  The image is read-only at run time, so the
expected outputs are computed while it is built and live in the image.
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from judge.i18n import messages as m
from judge.i18n.catalog import say as said
from judge.platforms.assets import build_wheels, copy_bundle, submission_name
from judge.platforms.course_language import for_package
from judge.platforms.runner import find_submission, learner_safe, run_packaged
from judge.progress import Progress, quiet

if TYPE_CHECKING:
    from judge.problem.loader import Bundle
    from judge.verdict import Verdict

RUNNER = "/opt/test-runner"
RESULTS_CAP = 500_000   # Exercism's limit on results.json

DOCKERFILE = """\
# numpy-judge test runner for Exercism (written by `judge package exercism`).
#   docker build -t __IMAGE__ .
#   docker run --rm --network none --read-only --tmpfs /tmp -v "$PWD/solution:/solution" \\
#       -v "$PWD/output:/output" __IMAGE__ __SLUG__ /solution/ /output/
# BASE: any Debian or Ubuntu image with Python >= 3.11 (python3 and its venv module).
ARG BASE=python:3.11-slim
FROM ${BASE}
ENV LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 HOME=/tmp \\
    JUDGE_CACHE_DIR=__RUNNER__/cache JUDGE_MIN_ISOLATION=__MIN_ISOLATION__
COPY wheels /tmp/wheels
COPY problems __RUNNER__/problems
COPY bin __RUNNER__/bin
RUN set -eux; \\
    python3 -c 'import sys, ensurepip; assert sys.version_info >= (3, 11), sys.version'; \\
    python3 -m venv __RUNNER__/venv; \\
    __RUNNER__/venv/bin/python -m pip install -q --no-index --find-links /tmp/wheels numpy-judge; \\
    rm -rf /tmp/wheels; \\
    mkdir -p __RUNNER__/cache; \\
    for p in __RUNNER__/problems/*/; do __RUNNER__/venv/bin/python -m judge.platforms warm "$p"; done; \\
    chmod 755 __RUNNER__ __RUNNER__/bin __RUNNER__/bin/*.sh; \\
    chmod -R go-rwx __RUNNER__/problems __RUNNER__/cache   # the root is read-only at run time: hide them now
WORKDIR __RUNNER__
ENTRYPOINT ["__RUNNER__/bin/run.sh"]
"""

RUN_SH = """\
#!/usr/bin/env sh
# Exercism test runner entry point: run.sh SLUG INPUT_DIR OUTPUT_DIR
# Writes OUTPUT_DIR/results.json (version 3) and exits 0 whatever the tests did.
if [ "$#" -lt 3 ]; then
  echo "usage: $0 SLUG INPUT_DIR OUTPUT_DIR" >&2
  exit 2
fi
slug="$1"; input="$2"; output="$3"
# The course's language (judge package --lang): the results' words; Exercism tells the runner no learner's.
export JUDGE_COURSE_LANG=__LANG__
__RUNNER__/venv/bin/judge exercism-grade "$slug" "$input" "$output" --problems __RUNNER__/problems
if [ ! -s "${output%/}/results.json" ]; then
  printf '%s\\n' __FALLBACK__ > "${output%/}/results.json"
fi
exit 0
"""  # noqa: E501 - a file written verbatim: its lines are its own

RUN_TESTS_SH = """\
#!/usr/bin/env sh
# Smoke tests (Exercism's convention): run each tests/<name>/ through bin/run.sh and compare
# results.json with expected_results.json (statuses, test names and code; messages must be present
# where expected: their numbers vary with the machine).  Exit 1 if any differs.
cd "$(dirname "$0")/.." || exit 2
failed=0
for dir in tests/*/; do
  name="$(basename "$dir")"
  case "$name" in *--*) slug="${name%%--*}" ;; *) slug=__SLUG__ ;; esac   # <slug>--<test>: a runner of several
  out="$(mktemp -d)"
  bin/run.sh "$slug" "$dir" "$out/" 2>/dev/null
  if ! __RUNNER__/venv/bin/python -m judge.platforms.exercism compare "$dir/expected_results.json" "$out/results.json"; then
    echo "FAIL $name"; failed=1
  else
    echo "ok   $name"
  fi
  rm -rf "$out"
done
exit "$failed"
"""  # noqa: E501 - a file written verbatim: its lines are its own

RUN_TESTS_IN_DOCKER_SH = """\
#!/usr/bin/env sh
# Build the image and run each smoke test in it with Exercism's own flags.
cd "$(dirname "$0")/.." || exit 2
image="${1:-__IMAGE__}"
docker build -q -t "$image" . >/dev/null || exit 2
failed=0
for dir in tests/*/; do
  name="$(basename "$dir")"
  case "$name" in *--*) slug="${name%%--*}" ;; *) slug=__SLUG__ ;; esac
  out="$(mktemp -d)"; chmod 777 "$out"
  docker run --rm --network none --read-only --tmpfs /tmp -v "$PWD/$dir:/solution" -v "$out:/output" \\
    "$image" "$slug" /solution/ /output/ 2>/dev/null
  if docker run --rm --network none --read-only -v "$PWD/$dir:/t:ro" -v "$out:/o:ro" --entrypoint \\
      __RUNNER__/venv/bin/python "$image" -m judge.platforms.exercism compare /t/expected_results.json /o/results.json; then
    echo "ok   $name"
  else
    echo "FAIL $name"; failed=1
  fi
  rm -rf "$out"
done
exit "$failed"
"""  # noqa: E501 - a file written verbatim: its lines are its own


def _fill(template: str, **values: str) -> str:
    for key, value in values.items():
        template = template.replace(f"__{key}__", value)
    return template


def smoke_view(results: dict) -> dict:
    """What a smoke test compares: everything that does not depend on the machine."""
    return {"version": results.get("version"), "status": results.get("status"),
            "has_message": bool(results.get("message")),
            "tests": [{"name": t.get("name"), "status": t.get("status"), "test_code": t.get("test_code"),
                       "has_message": t.get("message") is not None} for t in results.get("tests", [])]}


def smoke_examples(examples: Path) -> list[Path]:
    """The examples a runner's smoke tests are made from: every ``<status>/*.py`` but the red team's attacks
    (``attack_*``), which belong in the judge's own tests, not in a runner repository others build and run."""
    return [p for p in sorted(examples.glob("*/*.py")) if not p.name.startswith("attack_")]


def smoke_tests(
    bundle: Bundle,
    dest: Path,
    say: Callable[[str], object],
    examples: Path | None = None,
    prefix: str = "",
    progress: Progress | None = None,
    lang: str = "en",
) -> list[str]:
    """``dest/<prefix><status>-<name>/`` per example in ``examples/<status>/*.py`` (every one the teacher chose),
    or by default the bundle's ``submissions/<id>/`` without its attacks (:func:`smoke_examples`), with the results
    this machine's judge gives (``prefix``: ``<slug>--`` in a runner of several exercises, which
    bin/run-tests.sh reads the slug from)."""
    from judge.engine import Judge
    from judge.errors import SandboxUnavailable
    from judge.formats.exercism import results
    from judge.i18n.localize import localize

    chosen_by_teacher = examples is not None
    examples = examples or bundle.root.parent.parent / "submissions" / bundle.id
    if not examples.is_dir():
        say(f"no example submissions at {examples}: no smoke tests (--examples FOLDER of <status>/*.py makes them)")
        return []
    chosen = sorted(examples.glob("*/*.py")) if chosen_by_teacher else smoke_examples(examples)
    try:
        judge = Judge()
    except SandboxUnavailable as exc:
        say(f"no smoke tests: the examples cannot be graded here ({exc})")
        return []
    progress = progress or quiet()
    progress.total = (progress.total or 0) + len(chosen)
    names = []
    with judge:
        for path in chosen:
            name = prefix + f"{path.parent.name}-{path.stem}".replace("_", "-")
            progress.step(f"smoke test {name}: grading {path.parent.name}/{path.name}")
            folder = dest / name
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, folder / submission_name(bundle.id))
            verdict = judge.grade(path.read_bytes(), bundle.root, name=path.name)
            # what the packaged runner writes: the learner's view, cut by the bundle's feedback policy
            seen = localize(learner_safe(verdict, bundle), lang, bundle)
            (folder / "expected_results.json").write_text(json.dumps(results(seen, bundle, lang), indent=2) + "\n")
            names.append(name)
    return names


def package(
    bundles: Bundle | list[Bundle],
    out: Path,
    image: str,
    with_smoke_tests: bool = True,
    min_isolation: str = "reduced",
    pythons: tuple[str, ...] = ("3.11",),
    wheel_cache: Path | None = None,
    examples: Path | None = None,
    say: Callable[[str], object] = print,
    progress: Progress | None = None,
    lang: str | None = None,
) -> list[str]:
    """Write the runner folder for one bundle or several (a track's runner grades every exercise it holds, by
    slug); return the names of the smoke tests written.  ``lang``: the course's language, the results' words
    (set in ``bin/run.sh``; the smoke tests' expected results are written in it too)."""
    course = for_package(lang)
    bundles = bundles if isinstance(bundles, (list, tuple)) else [bundles]
    bundle = bundles[0]
    fallback = {"version": 3, "status": "error", "message": said(m.PK_RUNNER_FAILED, course), "tests": []}
    values = {"RUNNER": RUNNER, "SLUG": bundle.id, "IMAGE": image, "MIN_ISOLATION": min_isolation,
              "LANG": shlex.quote(course), "FALLBACK": shlex.quote(json.dumps(fallback))}
    out.mkdir(parents=True, exist_ok=True)
    for each in bundles:
        copy_bundle(each.root, out / "problems" / each.id)
    build_wheels(out / "wheels", pythons, wheel_cache, progress=progress)
    (out / "bin").mkdir(exist_ok=True)
    for name, template in (("run.sh", RUN_SH), ("run-tests.sh", RUN_TESTS_SH),
                           ("run-tests-in-docker.sh", RUN_TESTS_IN_DOCKER_SH)):
        (out / "bin" / name).write_text(_fill(template, **values))
        (out / "bin" / name).chmod(0o755)
    (out / "Dockerfile").write_text(_fill(DOCKERFILE, **values))
    (out / ".dockerignore").write_text("tests\n")
    if not with_smoke_tests:
        return []
    if len(bundles) == 1:
        return smoke_tests(bundle, out / "tests", say, examples, progress=progress, lang=course)
    return [name for each in bundles
            for name in smoke_tests(each, out / "tests", say, None, f"{each.id}--", progress=progress, lang=course)]


def _not_the_solution(rel: Path) -> bool:
    """Exercise files beside the solution: test files and Exercism's metadata."""
    return rel.name.endswith("_test.py") or rel.name.startswith("test_") or rel.parts[0] in ("tests", "test")


def run(slug: str, input_dir: Path, output_dir: Path, problems: Path) -> int:
    """Grade the solution in ``input_dir`` for exercise ``slug``; write ``output_dir/results.json``; always 0."""
    from judge.formats.exercism import results

    def render(verdict: Verdict, bundle: Bundle | None, lang: str) -> str:
        text = json.dumps(results(verdict, bundle, lang), indent=2)
        if len(text.encode()) > RESULTS_CAP:   # keep the statuses, drop the long texts
            data = json.loads(text)
            for test in data["tests"]:
                test["message"] = test["message"] and test["message"][:200]
                test["output"] = None
            text = json.dumps(data)
        return text

    problem = problems / slug
    if "/" in slug or slug.startswith(".") or not problem.is_dir():
        problem = problems / "__unknown_exercise__"   # reported as an unusable bundle, in the results file
    return run_packaged("exercism", problem,
                        lambda: find_submission(input_dir, submission_name(slug), _not_the_solution),
                        output_dir / "results.json", render)


def compare(expected: Path, got: Path) -> int:
    """0 when ``got`` matches ``expected`` in :func:`smoke_view`; else print the difference and return 1."""
    want, have = (smoke_view(json.loads(p.read_text())) for p in (expected, got))
    if want == have:
        return 0
    print(json.dumps({"expected": want, "got": have}, indent=1))
    return 1


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    print("usage: python -m judge.platforms.exercism compare EXPECTED GOT", file=sys.stderr)
    sys.exit(2)
