#!/usr/bin/env bash
# Installs the servers the service tests run: redis-server and PostgreSQL (Debian packages).
# It only installs them: each test starts its own private instance on a random loopback port
# (tests/support/service.py) and stops it by pid, so no system service is started here.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  need+=(postgresql)
fi
if [ "${#need[@]}" -gt 0 ]; then
  printf '\n== installing Debian packages for the service tests: %s\n' "${need[*]}"
  apt-get update -qq
  # policy-rc.d 101: the packages' maintainer scripts must not start system-wide servers
  policy=/usr/sbin/policy-rc.d
  made_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && made_policy=1
  fi
  apt-get install -y -qq "${need[@]}" >/dev/null
  if [ "$made_policy" = 1 ]; then rm -f "$policy"; fi
fi
command -v redis-server >/dev/null
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null
id postgres >/dev/null
