#!/bin/bash
# What CI runs INSIDE the cgroup-v2-only VM (.ci/cgroup2-vm bash .ci/vm-tier.sh), in one boot:
# the kernel, `judge doctor`, then the cgroup tests, the v2-only tier (marker vm), the peak of
# every run and example submissions (accepted, memory hog, fork bomb, sleep: one warm judge; the
# limit and attack modules are left out, each would start its own zygote: minutes under emulation), and
# mode rootless in a cgroup delegated to the rootless tier's user (tests/sandbox/test_rootless_delegation.py: that
# user and its venv come from .ci/isolation-tiers.sh rootless-user, which .ci/run runs first), and a one-shot `judge grade`
# whose zygote leaves its v2 leaf and removes its own group after the judge exits.  Time limits are scaled by
# JUDGE_TIME_SCALE (set by .ci/cgroup2-vm).  Exit status = pytest's, so a failure fails CI.
set -euo pipefail
echo "== VM kernel $(uname -r), cgroup mounts: $(awk '$3 ~ /cgroup/ {print $3" "$2}' /proc/mounts | tr '\n' ' ')"
echo "== judge doctor (JUDGE_TIME_SCALE=${JUDGE_TIME_SCALE:-1})"
python3 -m judge.cli doctor
echo "== tests"
export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1   # no hypothesis/anyio/schemathesis start-up: minutes under emulation
exec python3 -m pytest -p no:cacheprovider -m "" -v --durations=0 \
  tests/sandbox/test_cgroups.py tests/sandbox/test_cgroup_v2.py tests/sandbox/test_rootless_delegation.py \
  tests/grading/test_cold_path.py::test_a_one_shot_zygote_finishes_alone_after_the_judge_exits
