#!/usr/bin/env bash
# The isolation ladder's CI tiers, run by .ci/run after the main tests, as root:
#
#   rootless  an unprivileged user (created here) runs the examples (judge verify), the attack corpus
#             and the limit tests in mode rootless, from a copy of the repository it can read, with a
#             Python environment of its own (the CI's interpreter may live under /root)
#   reduced   the judge image (numpy-judge:local, .ci/docker.sh build) under a default `docker run`:
#             root in the container, Docker's default capabilities and seccomp profile, nothing added;
#             every example and attack file must get its folder's verdict in mode reduced
#
#   .ci/isolation-tiers.sh [rootless] [rootless-user] [reduced]   (default: rootless and reduced; .ci/run
#                      makes the user first (rootless-user), then runs rootless: its main pytest run already
#                      holds the reduced tests)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"
USER_NAME="${JUDGE_ROOTLESS_USER:-judge-rootless}"
VENV="${JUDGE_ROOTLESS_VENV:-/opt/numpy-judge-rootless-venv}"
log() { printf '\n== isolation tiers: %s\n' "$*"; }

rootless_user() {
  # The user and its venv alone (the cgroup v2 VM tier's delegation test uses them too, and starts before this
  # tier's tests so that the two run side by side).
  id "$USER_NAME" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$USER_NAME"
  if [ ! -x "$VENV/bin/python" ]; then
    log "Python environment for $USER_NAME ($VENV)"
    /usr/bin/python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check numpy pydantic PyYAML click pytest hypothesis
  fi
}

rootless() {
  rootless_user
  local copy
  copy="$(mktemp -d /tmp/numpy-judge-rootless.XXXXXX)"
  git ls-files -z | xargs -0 cp --parents -t "$copy"
  # The memory examples are verified against the bundle with room to reach its memory limit (this project's VMs
  # back guest memory lazily: touching 512 MiB can outlast the 4 s per call); every other example as it is.
  "$VENV/bin/python" - "$copy" <<'PY'
import pathlib, shutil, sys
import yaml
copy = pathlib.Path(sys.argv[1])
examples = copy / "submissions" / "sinusoidal-pe"
roomy = copy / "roomy" / "sinusoidal-pe"
shutil.copytree(copy / "problems" / "sinusoidal-pe", roomy)
spec = yaml.safe_load((roomy / "problem.yaml").read_text())
spec["limits"].update(case_wall_seconds=30, wall_seconds=60)
(roomy / "problem.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
for folder in examples.iterdir():
    if folder.is_dir():
        side = "memory-examples" if folder.name == "memory_limit_exceeded" else "other-examples"
        shutil.copytree(folder, copy / side / folder.name)
PY
  chown -R "$USER_NAME:" "$copy"
  log "mode rootless as $USER_NAME: doctor, every example (judge verify), attacks, limits"
  runuser -u "$USER_NAME" -- env -i HOME="/home/$USER_NAME" PATH=/usr/bin:/bin CI=true PYTHONPATH="$copy" \
    bash -c "cd '$copy' && '$VENV/bin/python' -m judge.cli doctor | grep -q '^isolation: rootless' \
      && '$VENV/bin/python' -m judge.cli verify sinusoidal-pe --submissions other-examples --isolation rootless -j 2 >/tmp/rootless-verify.log \
      && '$VENV/bin/python' -m judge.cli verify roomy/sinusoidal-pe --submissions memory-examples --isolation rootless -j 2 >>/tmp/rootless-verify.log \
      && '$VENV/bin/python' -m judge.cli verify rotary-embedding --isolation rootless -j 2 >>/tmp/rootless-verify.log \
      && '$VENV/bin/python' -c \"from judge import check; v = check('sinusoidal-pe', 'submissions/sinusoidal-pe/accepted/vectorised.py', show=False); assert (v.status.value, v.isolation.mode) == ('accepted', 'rootless'), v.isolation; print('check():', v.isolation.mode)\" \
      && '$VENV/bin/python' -m pytest -q -p no:cacheprovider tests/sandbox/test_attacks.py tests/sandbox/test_isolation_modes.py tests/sandbox/test_cross_run.py tests/sandbox/test_search_isolation.py \
           -k 'rootless or corpus_is_complete or unknown_and_weaker or cli_isolation or doctor_prints' " \
    || { tail -40 /tmp/rootless-verify.log 2>/dev/null; rm -rf "$copy"; return 1; }
  rm -rf "$copy"
}

reduced() {
  log "mode reduced: numpy-judge:local under a default docker run (no added capability, default seccomp)"
  JUDGE_IMAGE="${JUDGE_IMAGE:-numpy-judge:local}" CI=true python3 -m pytest -q -p no:cacheprovider \
    tests/containers/test_reduced_container.py tests/containers/test_container.py -k 'reduced or without_flags'
}

tiers=("$@")
[ "${#tiers[@]}" -gt 0 ] || tiers=(rootless reduced)
for tier in "${tiers[@]}"; do
  case "$tier" in
    rootless) rootless ;;
    rootless-user) rootless_user ;;
    reduced) reduced ;;
    *) echo "usage: $0 [rootless] [rootless-user] [reduced]" >&2; exit 2 ;;
  esac
done
