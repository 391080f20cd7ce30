#!/usr/bin/env bash
# A Docker engine and the judge's images on a machine with no systemd and no Docker registry.
#
#   .ci/docker.sh start   install docker.io/debootstrap/nftables if missing; start dockerd in the
#                         background (own pidfile) unless an engine already answers; wait for it
#   .ci/docker.sh build   start, then: base image judge-base:bookworm from debootstrap (cached),
#                         numpy-judge:sandbox (--target sandbox) and numpy-judge:local on it
#   .ci/docker.sh platforms  start, base image, then the course platforms' grader images from `judge package`:
#                         numpy-judge-gradescope:ci (the zip built as Gradescope does), numpy-judge-prairielearn:ci,
#                         numpy-judge-exercism:ci, on judge-platform-base:bookworm (python3 + venv + pip); then
#                         numpy-judge-gradescope:jammy, the same zip on judge-platform-base:jammy (Ubuntu 22.04 from
#                         debootstrap, python3 3.10: Gradescope's default base)
#   .ci/docker.sh gradescope-jammy  start, then only numpy-judge-gradescope:jammy, from a zip packaged anew
#   .ci/docker.sh deploy  start, then what deploy/compose.yaml runs in CI: Debian's docker-compose (Compose v1.29),
#                         numpy-judge:service (deploy/service.Dockerfile: the judge image + the service extra; the
#                         judge image is built first if missing), and stand-ins for the official redis:7 and
#                         postgres:16 images from Debian's packages on the base (judge-standin-redis:bookworm,
#                         judge-standin-postgres:bookworm; deploy/standins/)
#   .ci/docker.sh stop    stop the dockerd this script started (by pid), remove the nft tables and
#                         the docker0 link it left behind; never touches an engine it did not start
#   .ci/docker.sh status  say whether an engine answers and which images exist
#
# For CI: `.ci/docker.sh build` before the tests, `.ci/docker.sh stop` after them (in a trap).
# Environment: JUDGE_DOCKER_BASE (default judge-base:bookworm; set python:3.11-slim where a registry
# is reachable), DEBIAN_MIRROR (default: the first Debian archive this machine's apt sources use), UBUNTU_MIRROR
# (default Ubuntu's own archive, as the ubuntu:22.04 image names it), JUDGE_DOCKER_STATE
# (default /run/numpy-judge-docker: pidfile, log, nft snapshot).
set -euo pipefail
cd "$(dirname "$0")/.."

STATE="${JUDGE_DOCKER_STATE:-/run/numpy-judge-docker}"
PIDFILE="$STATE/dockerd.pid"
LOG="$STATE/dockerd.log"
TABLES_BEFORE="$STATE/nft-tables-before"
BASE_IMAGE="${JUDGE_DOCKER_BASE:-judge-base:bookworm}"
# The archive apt already uses here, so the script names no host of its own.
apt_mirror() {
  { grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'
    grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}'; } | grep -v -- '-security' | head -n 1 || true
}
MIRROR="${DEBIAN_MIRROR:-$(apt_mirror)}"
UBUNTU_MIRROR="${UBUNTU_MIRROR:-http://archive.ubuntu.com/ubuntu}"
JAMMY_BASE=judge-base:jammy
SANDBOX_IMAGE="${JUDGE_CONTAINER_IMAGE:-numpy-judge:sandbox}"
JUDGE_IMAGE="${JUDGE_IMAGE:-numpy-judge:local}"
SERVICE_IMAGE="${JUDGE_SERVICE_IMAGE:-numpy-judge:service}"
STANDIN_REDIS="${JUDGE_STANDIN_REDIS:-judge-standin-redis:bookworm}"
STANDIN_POSTGRES="${JUDGE_STANDIN_POSTGRES:-judge-standin-postgres:bookworm}"
DOCKER=/usr/bin/docker  # the client of the same package as the dockerd we start
export DEBIAN_FRONTEND=noninteractive

log() { printf '== docker.sh: %s\n' "$*" >&2; }

engine_up() { "$DOCKER" version >/dev/null 2>&1; }

install_packages() {
  local missing=() pkg
  for pkg in docker.io debootstrap nftables; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]}"
    apt-get update -qq -o DPkg::Lock::Timeout=300
    apt-get install -y -qq -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null
  fi
}

nft_tables() { nft list tables 2>/dev/null | sort || true; }

start() {
  install_packages
  mkdir -p "$STATE"
  if engine_up; then
    log "an engine already answers; not starting another"
    return 0
  fi
  if [ -s "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    log "dockerd $(cat "$PIDFILE") is starting"
  else
    nft_tables >"$TABLES_BEFORE"
    log "starting dockerd (log $LOG)"
    # setsid: its own session, so it outlives this script's process group; stopped by pid only.
    setsid /usr/sbin/dockerd --pidfile "$PIDFILE.dockerd" --data-root /var/lib/docker \
      --exec-root /var/run/docker --host unix:///var/run/docker.sock >"$LOG" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
  fi
  local i
  for i in $(seq 1 120); do
    if engine_up; then
      [ -s "$PIDFILE.dockerd" ] && cp "$PIDFILE.dockerd" "$PIDFILE"
      log "engine up: $("$DOCKER" version --format '{{.Server.Version}}') (dockerd pid $(cat "$PIDFILE"))"
      return 0
    fi
    if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
      tail -20 "$LOG" >&2 || true
      log "dockerd exited during start-up"
      return 1
    fi
    sleep 0.5
  done
  tail -20 "$LOG" >&2 || true
  log "dockerd did not answer within 60 s"
  return 1
}

# The image's rootfs from debootstrap: base_image [IMAGE SUITE MIRROR [debootstrap options...]], by default
# $BASE_IMAGE from Debian bookworm (or pulled, where JUDGE_DOCKER_BASE names a registry's image).
base_image() {
  local image="${1:-$BASE_IMAGE}" suite="${2:-bookworm}" mirror="${3:-$MIRROR}"
  shift 3 2>/dev/null || shift $#
  if "$DOCKER" image inspect "$image" >/dev/null 2>&1; then
    log "base image $image exists"
    return 0
  fi
  case "$image" in
    judge-base:*) ;;
    *) log "pulling $image"; "$DOCKER" pull "$image"; return 0 ;;
  esac
  local dir
  dir="$(mktemp -d /var/tmp/judge-rootfs.XXXXXX)"
  log "debootstrap --variant=minbase $suite into $dir (~40 s)"
  if ! debootstrap --variant=minbase "$@" "$suite" "$dir" "$mirror" >"$STATE/debootstrap-$suite.log" 2>&1; then
    tail -20 "$STATE/debootstrap-$suite.log" >&2
    rm -rf "$dir"
    return 1
  fi
  if [ "$suite" = jammy ]; then
    # As the official ubuntu:22.04 image: its apt sources, and the updates since the release (22.04.x, not 22.04;
    # debootstrap --extra-suites fails on jammy's mix of versions).
    ubuntu_sources "$mirror" >"$dir/etc/apt/sources.list"
    log "apt-get dist-upgrade in the $suite rootfs (jammy-updates, jammy-security)"
    if ! chroot "$dir" sh -c 'apt-get update && apt-get -y dist-upgrade' >>"$STATE/debootstrap-$suite.log" 2>&1; then
      tail -20 "$STATE/debootstrap-$suite.log" >&2
      rm -rf "$dir"
      return 1
    fi
  fi
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
  log "docker import -> $image"
  tar -C "$dir" -c . | "$DOCKER" import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' - "$image" >/dev/null
  rm -rf "$dir"
}

# The official ubuntu:22.04 image's apt sources (it names security.ubuntu.com for jammy-security; the archive
# carries the same suite, so one host serves all four here).
ubuntu_sources() {
  local suite
  for suite in jammy jammy-updates jammy-backports jammy-security; do
    printf 'deb %s %s main restricted universe multiverse\n' "$1" "$suite"
  done
}

# Debian has no package with Ubuntu's archive key, so jammy's ubuntu-keyring .deb comes from Ubuntu's archive,
# checked against this sha256 before use (it holds the 2018 archive key F6ECB3762474EDA9D21B7022871920D1991BC93C
# that signs jammy's Release). Into a temporary folder under $STATE; the keyring path on stdout.
UBUNTU_KEYRING_DEB=pool/main/u/ubuntu-keyring/ubuntu-keyring_2021.03.26_all.deb
UBUNTU_KEYRING_SHA256=0d0e7ed6b112f5d03eabf3c7eb01ebdacf9c57714b279e90495cfc58c8c4520f
ubuntu_keyring() {
  local dir="$STATE/ubuntu-keyring"
  rm -rf "$dir" && mkdir -p "$dir"
  wget -q -O "$dir/keyring.deb" "$UBUNTU_MIRROR/$UBUNTU_KEYRING_DEB" \
    || { log "cannot download $UBUNTU_MIRROR/$UBUNTU_KEYRING_DEB"; return 1; }
  echo "$UBUNTU_KEYRING_SHA256  $dir/keyring.deb" | sha256sum -c --quiet - >&2 \
    || { log "ubuntu-keyring .deb does not match its pinned sha256"; return 1; }
  dpkg-deb -x "$dir/keyring.deb" "$dir/x"
  echo "$dir/x/usr/share/keyrings/ubuntu-archive-keyring.gpg"
}

# Ubuntu 22.04, Gradescope's default base image, as judge-base:jammy.
jammy_base() {
  "$DOCKER" image inspect "$JAMMY_BASE" >/dev/null 2>&1 && { log "base image $JAMMY_BASE exists"; return 0; }
  local keyring
  keyring="$(ubuntu_keyring)"
  base_image "$JAMMY_BASE" jammy "$UBUNTU_MIRROR" --keyring="$keyring"
  rm -rf "$STATE/ubuntu-keyring"
}

# CAs this machine added locally (e.g. a TLS-intercepting proxy in front of PyPI) for pip in the builds.
extra_ca() {
  local ca="" f
  for f in ${JUDGE_BUILD_CA_FILES:-/usr/local/share/ca-certificates/*.crt}; do
    [ -f "$f" ] && ca+="$(cat "$f")"$'\n'
  done
  printf '%s' "$ca"
}

build() {
  start
  base_image
  local args=(--build-arg "BASE=$BASE_IMAGE" --build-arg "EXTRA_CA_CERTS=$(extra_ca)")
  log "docker build --target sandbox -t $SANDBOX_IMAGE (BASE=$BASE_IMAGE)"
  DOCKER_BUILDKIT=0 "$DOCKER" build --force-rm "${args[@]}" --target sandbox -t "$SANDBOX_IMAGE" . >"$STATE/build.log" 2>&1 \
    || { tail -30 "$STATE/build.log" >&2; return 1; }
  log "docker build -t $JUDGE_IMAGE"
  DOCKER_BUILDKIT=0 "$DOCKER" build --force-rm "${args[@]}" -t "$JUDGE_IMAGE" . >>"$STATE/build.log" 2>&1 \
    || { tail -30 "$STATE/build.log" >&2; return 1; }
  "$DOCKER" image prune -f >/dev/null 2>&1 || true
  "$DOCKER" image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'judge' >&2 || true
}

# The course platforms' images, each built from what `judge package` writes, as the platform builds it.
platforms() {
  start
  base_image
  local out="$STATE/platforms" base=judge-platform-base:bookworm
  local judge=(python3 -m judge.cli)
  rm -rf "$out" && mkdir -p "$out"
  : >"$STATE/platforms.log"
  platform_base "$BASE_IMAGE" "$base"
  log "judge package gradescope / prairielearn / exercism (wheels downloaded once, cached)"
  "${judge[@]}" package gradescope sinusoidal-pe -o "$out/autograder.zip" >>"$STATE/platforms.log"
  "${judge[@]}" package prairielearn sinusoidal-pe -o "$out/prairielearn" --image numpy-judge-prairielearn:ci \
    >>"$STATE/platforms.log"
  "${judge[@]}" package exercism sinusoidal-pe -o "$out/exercism" --image numpy-judge-exercism:ci --no-smoke-tests \
    >>"$STATE/platforms.log"
  mkdir -p "$out/gradescope/source"
  python3 -m zipfile -e "$out/autograder.zip" "$out/gradescope/source"
  cp .ci/platforms/gradescope.Dockerfile "$out/gradescope/Dockerfile"
  local name dir
  for name in gradescope prairielearn exercism; do
    case "$name" in
      gradescope) dir="$out/gradescope" ;;
      prairielearn) dir="$out/prairielearn/grader-image" ;;
      exercism) dir="$out/exercism" ;;
    esac
    platform_image "$base" "numpy-judge-$name:ci" "$dir"
  done
  gradescope_jammy "$out/gradescope"
  "$DOCKER" image prune -f >/dev/null 2>&1 || true
}

# numpy-judge-gradescope:jammy: the Gradescope folder $1 (Dockerfile, source/ = the unpacked zip) built on
# Gradescope's default base, Ubuntu 22.04, whose python3 is 3.10 (so setup.sh installs python3.11 with apt).
# Without $1 (`.ci/docker.sh gradescope-jammy`): packaged anew into $STATE/jammy, the other images untouched.
gradescope_jammy() {
  local dir="${1:-}" started=$SECONDS
  if [ -z "$dir" ]; then
    start
    dir="$STATE/jammy/gradescope"
    rm -rf "$STATE/jammy" && mkdir -p "$dir/source"
    python3 -m judge.cli package gradescope sinusoidal-pe -o "$STATE/jammy/autograder.zip" >>"$STATE/platforms.log"
    python3 -m zipfile -e "$STATE/jammy/autograder.zip" "$dir/source"
    cp .ci/platforms/gradescope.Dockerfile "$dir/Dockerfile"
  fi
  jammy_base
  platform_base "$JAMMY_BASE" judge-platform-base:jammy
  platform_image judge-platform-base:jammy numpy-judge-gradescope:jammy "$dir"
  log "Ubuntu 22.04 stand-in and its Gradescope image: $((SECONDS - started)) s"
}

# A platform's base: .ci/platforms/base.Dockerfile (python3, venv, pip) on the rootfs image $1, tagged $2.
platform_base() {
  log "docker build $2 (python3, venv, pip on $1)"
  DOCKER_BUILDKIT=0 "$DOCKER" build --force-rm --build-arg "BASE=$1" -t "$2" \
    -f .ci/platforms/base.Dockerfile .ci/platforms >>"$STATE/platforms.log" 2>&1 \
    || { tail -30 "$STATE/platforms.log" >&2; return 1; }
}

# A platform's grader image: the folder $3 (Dockerfile and what it adds) built on base $1, tagged $2.
platform_image() {
  log "docker build $2 (on $1)"
  DOCKER_BUILDKIT=0 "$DOCKER" build --force-rm --build-arg "BASE=$1" -t "$2" "$3" \
    >>"$STATE/platforms.log" 2>&1 || { tail -30 "$STATE/platforms.log" >&2; return 1; }
}

# deploy/compose.yaml's images (see the usage above); the log is $STATE/deploy.log.
deploy() {
  start
  if ! command -v docker-compose >/dev/null 2>&1; then
    log "installing docker-compose (Debian's Compose v1.29)"
    apt-get update -qq -o DPkg::Lock::Timeout=300
    apt-get install -y -qq -o DPkg::Lock::Timeout=300 docker-compose >/dev/null
  fi
  base_image
  "$DOCKER" image inspect "$JUDGE_IMAGE" >/dev/null 2>&1 || build
  : >"$STATE/deploy.log"
  log "docker build $SERVICE_IMAGE (deploy/service.Dockerfile on $JUDGE_IMAGE)"
  DOCKER_BUILDKIT=0 "$DOCKER" build --force-rm --build-arg "JUDGE_IMAGE=$JUDGE_IMAGE" \
    --build-arg "EXTRA_CA_CERTS=$(extra_ca)" -f deploy/service.Dockerfile -t "$SERVICE_IMAGE" . \
    >>"$STATE/deploy.log" 2>&1 || { tail -30 "$STATE/deploy.log" >&2; return 1; }
  local name image
  for name in redis postgres; do
    image="$STANDIN_REDIS"; [ "$name" = postgres ] && image="$STANDIN_POSTGRES"
    log "docker build $image (Debian's $name on $BASE_IMAGE: stand-in for the official image)"
    DOCKER_BUILDKIT=0 "$DOCKER" build --force-rm --build-arg "BASE=$BASE_IMAGE" -f "deploy/standins/$name.Dockerfile" \
      -t "$image" deploy/standins >>"$STATE/deploy.log" 2>&1 || { tail -30 "$STATE/deploy.log" >&2; return 1; }
  done
  "$DOCKER" image prune -f >/dev/null 2>&1 || true
}

stop() {
  if [ ! -s "$PIDFILE" ]; then
    log "no dockerd started by this script"
    return 0
  fi
  local pid i
  pid="$(cat "$PIDFILE")"
  if kill -0 "$pid" 2>/dev/null; then
    # Containers of the judge's tests first, so dockerd does not wait on them.
    "$DOCKER" ps -aq --filter label=numpy-judge.sandbox | xargs -r "$DOCKER" rm -f >/dev/null 2>&1 || true
    log "stopping dockerd $pid"
    kill -TERM "$pid"
    for i in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "dockerd $pid still running after 30 s; SIGKILL"
      kill -KILL "$pid" || true
    fi
  fi
  rm -f "$PIDFILE"
  # dockerd's iptables-nft rules outlive it (FORWARD policy drop): remove the tables it added.
  if command -v nft >/dev/null 2>&1 && [ -f "$TABLES_BEFORE" ]; then
    local table
    while read -r table; do
      [ -n "$table" ] || continue
      if ! grep -qxF "$table" "$TABLES_BEFORE"; then
        log "nft delete ${table#table }"
        # shellcheck disable=SC2086
        nft delete ${table} 2>/dev/null || true
      fi
    done < <(nft_tables)
    rm -f "$TABLES_BEFORE"
  fi
  ip link delete docker0 2>/dev/null || true
}

status() {
  if engine_up; then
    log "engine up: $("$DOCKER" version --format '{{.Server.Version}}')"
    "$DOCKER" image ls --format '{{.Repository}}:{{.Tag}} {{.ID}} {{.Size}}' | grep -E 'judge' || true
  else
    log "no engine answers"
    return 1
  fi
}

case "${1:-}" in
  start) start ;;
  build) build ;;
  platforms) platforms ;;
  gradescope-jammy) gradescope_jammy ;;
  deploy) deploy ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|build|platforms|gradescope-jammy|deploy|stop|status" >&2; exit 2 ;;
esac
