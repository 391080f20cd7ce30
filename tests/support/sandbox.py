"""Helpers for the real-sandbox tests (test_sandbox_escape, test_limits, test_runner_protocol).

No mocks: every test grades through a real zygote, real namespaces, real cgroups.
Skips loudly when the machine cannot isolate; under CI=true it fails instead.
"""

from __future__ import annotations

import os
import re
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROBLEM_DIR = REPO / "problems" / "sinusoidal-pe"
SUBMISSIONS = REPO / "submissions" / "sinusoidal-pe"
NOBODY = 65534

# A known-correct submission, used after each attack to show the judge still works.
CORRECT = (SUBMISSIONS / "accepted" / "vectorised.py").read_text()

# add_positional_encoding that is harmless and wrong (zeros); attacks put their code in sinusoidal_pe.
HARMLESS_ADD = '''
def add_positional_encoding(x, base=10000.0):
    return np.zeros(np.shape(x))
'''


from tests.support.common import require_sandbox  # noqa: E402,F401 - one definition, shared by the sandbox tests
from tests.support.tiers import needs  # noqa: E402


def learner(body: str, add: str = HARMLESS_ADD, prelude: str = "") -> str:
    """A submission whose sinusoidal_pe runs ``body`` (indented for you), then returns zeros (wrong)."""
    body = textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    return (
        "import numpy as np\n"
        + textwrap.dedent(prelude)
        + "\n\ndef sinusoidal_pe(max_len, d_model, base=10000.0):\n"
        + body
        + "\n    return np.zeros((max_len, d_model))\n"
        + textwrap.dedent(add)
    )


def assert_still_grades(judge) -> None:
    """The judge (same warm zygote pool) still accepts a correct file."""
    from judge.verdict import Status

    v = judge.grade(CORRECT, "sinusoidal-pe")
    assert v.status is Status.ACCEPTED, (v.status, v.message)
    assert v.score == 1.0


def worker_name(verdict) -> str:
    """NAME from an isolation description like 'v1 memory:/judge/NAME pids:/judge/NAME ...'."""
    assert verdict.isolation is not None and verdict.isolation.cgroup, verdict.isolation
    m = re.search(r"pids:(\S*/judge/([^/\s]+))", verdict.isolation.cgroup)
    if m is None:  # v2: 'v2 /judge/NAME'
        m = re.search(r"(/judge/([^/\s]+))", verdict.isolation.cgroup)
    assert m, verdict.isolation.cgroup
    return m.group(2)


def pids_procs_file(verdict) -> Path:
    cg = verdict.isolation.cgroup
    m = re.search(r"pids:(\S+)", cg)
    if m:
        return Path("/sys/fs/cgroup/pids") / m.group(1).lstrip("/") / "cgroup.procs"
    m = re.search(r"v2 (\S+)", cg)
    assert m, cg
    return Path("/sys/fs/cgroup") / m.group(1).lstrip("/") / "cgroup.procs"


def _read_pids(procs: Path) -> list[int]:
    """The pids in one cgroup.procs, and in the leaves below it (v2 workers keep their processes in
    judge/NAME/run-K); a leaf removed while we read counts as empty."""
    found = []
    for f in [procs, *sorted(procs.parent.glob("*/cgroup.procs"))]:
        try:
            found += [int(x) for x in f.read_text().split()]
        except OSError:
            continue
    return sorted(found)


def cgroup_pids(verdict) -> list[int]:
    """Processes in the worker's cgroup.  After each reply a v2 zygote moves into a fresh leaf, so the
    group is read until two reads 20 ms apart agree."""
    procs = pids_procs_file(verdict)
    last = _read_pids(procs)
    for _ in range(50):
        time.sleep(0.02)
        now = _read_pids(procs)
        if now == last:
            return now
        last = now
    return last


def _proc_uid(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _proc_text(pid: str, name: str) -> str:
    try:
        with open(f"/proc/{pid}/{name}", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def nobody_processes() -> list[tuple[int, str, str]]:
    """(pid, cmdline, cgroup) of every host process whose real uid is 65534."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and _proc_uid(pid) == NOBODY:
            found.append((int(pid), _proc_text(pid, "cmdline"), _proc_text(pid, "cgroup")))
    return found


def leftover_learner_processes(name: str, wait: float = 3.0) -> list[tuple[int, str, str]]:
    """uid-65534 processes that belong to worker ``name`` (forked from its zygote or in its cgroup).

    Other judges on this machine may legitimately run uid-65534 children at the same
    time, so only our own worker's are counted; waits briefly for kernel reaping.
    """
    deadline = time.monotonic() + wait
    while True:
        ours = [p for p in nobody_processes() if name in p[1] or f"/judge/{name}" in p[2]]
        if not ours or time.monotonic() > deadline:
            return ours
        time.sleep(0.1)


# The learner body of the fork tests: 50 sleeping children, once; prints "MADE n REFUSED m".
FORK_50 = """
        os = __import__("o" + "s"); time = __import__("time")
        if not globals().get("_done"):
            globals()["_done"] = True
            made = refused = 0
            for _ in range(50):
                try:
                    pid = os.fork()
                except OSError:
                    refused += 1
                    continue
                if pid == 0:
                    try:
                        time.sleep(600)
                    finally:
                        os._exit(0)
                made += 1
            print("MADE", made, "REFUSED", refused)
"""


@needs("sandbox")
def require_mode(mode: str) -> None:
    """Skip (or fail under CI) when this machine cannot give isolation ``mode``."""
    import pytest

    from judge.sandbox.modes.ladder import check
    from tests.support.common import unavailable

    if mode == "rootless" and os.geteuid() == 0:
        pytest.skip("mode rootless is for normal users (root is exempt from RLIMIT_NPROC): "
                    "the rootless CI tier runs these tests as one")
    rung = check(mode)
    if not rung.ok and "not readable by an unprivileged uid" in rung.why:
        pytest.skip(f"mode {mode} cannot run on this host's Python ({rung.why}); "
                    "tests/containers/test_reduced_container.py runs it where it is meant to, in a default docker run")
    if not rung.ok:
        unavailable(f"ISOLATION MODE {mode} UNAVAILABLE, ITS TESTS NOT RUN: {rung.why}")
