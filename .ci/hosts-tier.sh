#!/usr/bin/env bash
# The hosts tier: the scaled-out service spread over network namespaces as separate hosts on this machine
# (broker, db, api, two worker hosts; tests/support/hosts.py) and the faults of tests/hosts/test_hosts*.py: a worker host
# killed mid-job, one cut off longer than the visibility timeout.  Runs as root; exit status = pytest's.
# Whatever this run leaves (namespaces jh<pid>-*, link jh<pid>h, by the pytest process's pid) is removed on exit.
set -uo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

if [ "$(id -u)" != 0 ]; then echo "hosts-tier: needs root (network namespaces, nft)" >&2; exit 1; fi

need=()
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v nft >/dev/null 2>&1 || need+=(nftables)
{ command -v nsenter && command -v unshare && command -v setpriv; } >/dev/null 2>&1 || need+=(util-linux)
if [ "${#need[@]}" -gt 0 ]; then
  printf '\n== installing Debian packages for the hosts tier: %s\n' "${need[*]}"
  apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${need[@]}" >/dev/null || exit 1
fi
bash .ci/services.sh || exit 1   # redis-server and PostgreSQL

# -s: the fault tests print "RECOVERY <fault>: <seconds> s"; the logs of every host are kept for a failure
export JUDGE_HOSTS_KEEP_LOGS="${JUDGE_HOSTS_KEEP_LOGS:-test-artifacts/hosts}"
python3 -m pytest -p no:cacheprovider -m hosts -v -s --durations=0 tests/hosts/test_hosts*.py &
pytest_pid=$!
cleanup() { PYTHONPATH="$PWD" python3 tests/support/hosts.py cleanup "jh${pytest_pid}" || true; }
trap cleanup EXIT
trap 'kill -INT "$pytest_pid" 2>/dev/null' INT TERM
wait "$pytest_pid"
status=$?
cleanup
trap - EXIT
left=$(ip netns list | awk -v p="jh${pytest_pid}-" 'index($1, p) == 1 {print $1}')
if [ -n "$left" ]; then echo "hosts-tier: namespaces left behind: $left" >&2; [ "$status" = 0 ] && status=1; fi
exit "$status"
