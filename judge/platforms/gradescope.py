"""Gradescope: the autograder zip, and the run inside Gradescope's container.

Gradescope (gradescope/autograder_samples, docs/specs.md) unpacks the zip to
``/autograder/source``, runs ``setup.sh`` once as root while building its
image, copies ``run_autograder`` to ``/autograder/run_autograder`` and runs it
per submission, as root, with cwd ``/autograder``, the learner's files in
``/autograder/submission/`` and the results expected in
``/autograder/results/results.json``.

The zip holds ``setup.sh``, ``run_autograder``, the bundle under ``problem/``
and wheels of the judge and its dependencies under ``wheels/``.  ``setup.sh``
needs one of the Python versions the zip holds wheels for (``--python``,
default 3.11; where the base image has none, it installs the first that apt
offers: on Gradescope's default Ubuntu 22.04, whose Python is 3.10, that is
``python3.11`` 3.11.0~rc1 from universe in jammy-updates), makes a
virtual environment in ``/opt/numpy-judge/venv`` from the wheels (no network),
copies the bundle to ``/opt/numpy-judge/problems`` and pre-computes its
expected outputs in ``/opt/numpy-judge/cache``; both, and
``/autograder/source``, are root-only, so the learner's code (dropped to uid
65534 by the judge) cannot read them.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from judge.errors import JudgeError
from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.platforms.assets import DEFAULT_PYTHONS, build_wheels, copy_bundle, expected_file
from judge.platforms.course_language import for_package
from judge.platforms.runner import find_submission, run_packaged
from judge.progress import Progress

if TYPE_CHECKING:
    from judge.problem.loader import Bundle
    from judge.verdict import Verdict

HOME = "/opt/numpy-judge"
#: "policy": the bundle's feedback policy decides (judge.formats.gradescope.for_learners)
VISIBILITIES = ("policy", "hidden", "after_due_date", "after_published", "visible")

SETUP_SH = r"""#!/usr/bin/env bash
# numpy-judge autograder set-up.  Gradescope runs this once, as root, while it builds the
# autograder image (the zip is unpacked in /autograder/source).  No network is needed
# beyond installing Python >= 3.11 with apt when the base image's Python is older.
set -euo pipefail
SRC=/autograder/source
HOME_DIR=__HOME__
PROBLEM=__PROBLEM__

export DEBIAN_FRONTEND=noninteractive
apt_install() { apt-get update -qq && apt-get install -y -qq "$@" >/dev/null; }
# The Python versions this zip holds wheels for (judge package --python), preferred in this order.
VERSIONS="__VERSIONS__"
PY=""
for v in $VERSIONS; do
  if command -v "python$v" >/dev/null 2>&1; then PY="$(command -v "python$v")"; break; fi
done
if [ -z "$PY" ]; then
  # Ubuntu 22.04 (Gradescope's default) has python3 3.10; its universe has python3.11 (3.11.0~rc1 in jammy-updates).
  apt-get update -qq
  for v in $VERSIONS; do
    candidate="$(apt-cache policy "python$v-venv" 2>/dev/null | awk '/Candidate:/ {print $2}')"
    if [ -n "$candidate" ] && [ "$candidate" != "(none)" ]; then
      echo "setup.sh: no python$v here; installing python$v $candidate with apt" >&2
      apt-get install -y -qq "python$v" "python$v-venv" >/dev/null
      PY="$(command -v "python$v")"
      break
    fi
  done
  if [ -z "$PY" ]; then
    echo "setup.sh: this image has no Python $VERSIONS (the versions this zip holds wheels for) and apt offers none;" \
      "package again with judge package gradescope --python set to this image's Python" >&2
    exit 1
  fi
fi
if ! "$PY" -c 'import ensurepip' 2>/dev/null; then   # Debian and Ubuntu ship venv's pip separately
  apt_install "python$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv"
fi
echo "setup.sh: using $PY ($("$PY" --version 2>&1))" >&2

mkdir -p "$HOME_DIR"
chmod 755 "$HOME_DIR"
"$PY" -m venv "$HOME_DIR/venv"
"$HOME_DIR/venv/bin/python" -m pip install -q --no-index --find-links "$SRC/wheels" --disable-pip-version-check numpy-judge

# The bundle and its expected outputs: root-only (the learner's code runs as uid 65534).
mkdir -p "$HOME_DIR/problems" "$HOME_DIR/cache"
rm -rf "$HOME_DIR/problems/$PROBLEM"
cp -r "$SRC/problem/$PROBLEM" "$HOME_DIR/problems/$PROBLEM"
chmod -R go-rwx "$HOME_DIR/problems" "$HOME_DIR/cache" "$SRC"
JUDGE_CACHE_DIR="$HOME_DIR/cache" "$HOME_DIR/venv/bin/python" -m judge.platforms warm "$HOME_DIR/problems/$PROBLEM"
echo "setup.sh: numpy-judge ready for $PROBLEM" >&2
"""  # noqa: E501 - a file written verbatim: its lines are its own

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# numpy-judge autograder run.  Gradescope runs this per submission, as root, in /autograder.
# It always leaves /autograder/results/results.json and exits 0.
HOME_DIR=__HOME__
RESULTS=/autograder/results/results.json
mkdir -p /autograder/results && chmod 755 /autograder/results
rm -f "$RESULTS"
# Nothing the learner's code (uid 65534) could read: the zip's folder, the submission's metadata.
chmod 700 /autograder/source 2>/dev/null || true
chmod 600 /autograder/submission_metadata.json 2>/dev/null || true
export JUDGE_CACHE_DIR="$HOME_DIR/cache" JUDGE_MIN_ISOLATION="${JUDGE_MIN_ISOLATION:-__MIN_ISOLATION__}"
# The course's language (judge package --lang): the results' words; Gradescope tells the runner no learner's.
export JUDGE_COURSE_LANG=__LANG__
if [ -x "$HOME_DIR/venv/bin/judge" ]; then
  "$HOME_DIR/venv/bin/judge" gradescope-grade --root /autograder --problem "$HOME_DIR/problems/__PROBLEM__" \
    --hidden-visibility __VISIBILITY__
fi
if [ ! -s "$RESULTS" ]; then
  echo "run_autograder: the judge left no results (was setup.sh run?)" >&2
  printf '%s\n' __FALLBACK__ > "$RESULTS"
fi
exit 0
"""  # noqa: E501 - a file written verbatim: its lines are its own


def _script(template: str, **values: str) -> str:
    for key, value in values.items():
        template = template.replace(f"__{key}__", shlex.quote(value) if key in ("HOME", "PROBLEM", "LANG", "FALLBACK")
                                    else value)
    return template


def package(bundle: Bundle, out: Path, hidden_visibility: str = "policy", min_isolation: str = "reduced",
            pythons: tuple[str, ...] = DEFAULT_PYTHONS, wheel_cache: Path | None = None,
            progress: Progress | None = None, lang: str | None = None) -> Path:
    """Write the autograder zip for ``bundle`` to ``out``; ``lang``: the course's language, the results' words
    (checked here: :func:`judge.platforms.course_language.for_package`)."""
    if hidden_visibility not in VISIBILITIES:
        raise ValueError(f"hidden visibility must be one of {', '.join(VISIBILITIES)}")
    if not pythons or not all(re.fullmatch(r"3\.\d+", v) for v in pythons):
        raise JudgeError(f"--python takes versions like 3.11,3.12, not {','.join(pythons)!r}")
    course = for_package(lang)
    fallback = {"score": 0.0, "output": say(m.PK_SETUP_BROKEN, course), "output_format": "text",
                "extra_data": {"status": "internal_error"}, "tests": []}
    values = {"HOME": HOME, "PROBLEM": bundle.id, "VISIBILITY": hidden_visibility, "MIN_ISOLATION": min_isolation,
              "VERSIONS": " ".join(pythons), "LANG": course, "FALLBACK": json.dumps(fallback)}
    with tempfile.TemporaryDirectory(prefix="judge-gradescope-") as tmp:
        stage = Path(tmp)
        copy_bundle(bundle.root, stage / "problem" / bundle.id)
        build_wheels(stage / "wheels", pythons, wheel_cache, progress=progress)
        (stage / "setup.sh").write_text(_script(SETUP_SH, **values))
        (stage / "run_autograder").write_text(_script(RUN_AUTOGRADER, **values))
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(stage.rglob("*")):
                if path.is_file():
                    info = zipfile.ZipInfo(str(path.relative_to(stage)), date_time=(2020, 1, 1, 0, 0, 0))
                    executable = path.name in ("setup.sh", "run_autograder")
                    info.external_attr = ((stat.S_IFREG | (0o755 if executable else 0o644)) << 16)
                    info.compress_type = zipfile.ZIP_STORED if path.suffix == ".whl" else zipfile.ZIP_DEFLATED
                    zf.writestr(info, path.read_bytes())
        os.replace(partial, out)
    return out


def run(root: Path, problem: Path, hidden_visibility: str | None = None) -> int:
    """Grade ``root/submission`` and write ``root/results/results.json``; always 0.  Hidden tests' visibility
    follows the bundle's feedback policy unless ``hidden_visibility`` insists on one."""
    from judge.formats.gradescope import for_learners

    def render(verdict: Verdict, bundle: Bundle | None, lang: str) -> str:
        return json.dumps(for_learners(verdict, bundle, hidden_visibility=hidden_visibility, lang=lang), indent=2)

    return run_packaged("gradescope", problem,
                        lambda: find_submission(root / "submission", expected_file(problem)),
                        root / "results" / "results.json", render, cuts_itself=True)

