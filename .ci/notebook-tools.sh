#!/usr/bin/env bash
# The otter-grader and nbgrader virtualenv for tests/notebooks/test_notebook_courses.py (their dependencies stay out of the
# test environment): $JUDGE_NBTOOLS, default /opt/judge-nbtools.  Idempotent; about a minute the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${JUDGE_NBTOOLS:-/opt/judge-nbtools}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "otter-grader>=6,<8" "nbgrader>=0.9,<0.10" -e . \
  2>&1 | grep -v "^WARNING: Location" || true
echo "== notebook-tools.sh: $("$venv/bin/python" -c 'import otter, nbgrader; print("otter", otter.__version__, "nbgrader", nbgrader.__version__)') in $venv"
