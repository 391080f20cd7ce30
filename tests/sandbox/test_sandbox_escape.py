"""Attacks from inside learner code, against the real sandbox (no mocks).

Each test: the harm did not happen, a verdict came back, and the same Judge still
accepts a correct file afterwards.  Attack code sits in sinusoidal_pe and ends by
returning zeros (a wrong answer).  Modules the static check refuses are obtained
with __import__("o" + "s") and the like.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import socket
import sysconfig
import threading
from pathlib import Path

import pytest

from tests.support.sandbox import (
    NOBODY,
    PROBLEM_DIR,
    REPO,
    assert_still_grades,
    cgroup_pids,
    learner,
    leftover_learner_processes,
    require_sandbox,
    worker_name,
)

CANARY = "canary-" + secrets.token_hex(16)
MARKER = "judge-escape-" + secrets.token_hex(8)


@pytest.fixture(scope="module")
def sj():
    """One Judge for the module, created with a canary secret in the environment."""
    require_sandbox()
    from judge import Judge

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUDGE_TEST_CANARY", CANARY)
        with Judge() as j:
            yield j


def _statuses():
    from judge.verdict import Status

    return Status


def _came_back(v) -> None:
    Status = _statuses()
    assert v.status is not Status.INTERNAL_ERROR, v.message
    assert v.status is not Status.ACCEPTED, "an attack returning zeros must not be accepted"
    assert v.cases, "no per-case results"
    assert v.isolation is not None and v.isolation.mode == "full", v.isolation


def _lines(v, tag: str) -> list[str]:
    return [line[len(tag) + 1:] for line in v.stdout.text.splitlines() if line.startswith(tag + " ")]


# --------------------------------------------------------------------------- reading host files

def _python_root_entry() -> str:
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    return stdlib.strip("/").split("/")[0]


def test_cannot_read_host_files(sj):
    secrets_to_try = [
        str(PROBLEM_DIR / "reference.py"), str(PROBLEM_DIR / "cases.yaml"), str(PROBLEM_DIR / "problem.yaml"),
        "/etc/passwd", "/etc/shadow", "/etc/hostname", str(Path.home() / ".cache" / "numpy-judge"),
        str(REPO), "/work", "/proc/1/cmdline", "/proc/self/status", "/sys/fs/cgroup", "/run/judge-sandbox-root",
        "/root/.bash_history", str(REPO / "judge" / "grader.py"),
    ]
    src = learner(f"""
        os = __import__("o" + "s"); sys = __import__("sys")
        if not globals().get("_done"):
            globals()["_done"] = True
            for p in {secrets_to_try!r}:
                try:
                    if os.path.isdir(p):
                        print("FOUND", p, sorted(os.listdir(p))[:20])
                    else:
                        with open(p, "rb") as fh:
                            print("FOUND", p, fh.read(200))
                except Exception as exc:
                    print("DENIED", p, type(exc).__name__)
            print("LISTING", ",".join(sorted(os.listdir("/"))))
            try:
                print("ROOTDIR", ",".join(sorted(os.listdir("/root"))))
            except Exception as exc:
                print("ROOTDIR-ERR", type(exc).__name__)
            prefix = os.path.realpath(sys.prefix)
            skip = ("/usr", prefix, "/dev")
            seen = 0
            for root, dirs, files in os.walk("/"):
                dirs[:] = [d for d in dirs if os.path.join(root, d) not in skip]
                for f in files:
                    seen += 1
                    path = os.path.join(root, f)
                    if f.endswith((".py", ".yaml", ".yml", ".json", ".npy")):
                        try:
                            with open(path, "rb") as fh:
                                data = fh.read(1 << 20)
                            if b"sinusoidal" in data:
                                print("LEAK", path)
                        except Exception:
                            pass
                    print("FILE", path)
                if seen > 20000:
                    break
            print("WALKED", seen)
    """)
    v = sj.grade(src, "sinusoidal-pe")
    _came_back(v)
    out = v.stdout.text
    assert "WALKED" in out, out[-2000:]
    assert _lines(v, "FOUND") == [], _lines(v, "FOUND")
    assert len(_lines(v, "DENIED")) == len(secrets_to_try)
    assert _lines(v, "LEAK") == []
    # nothing of the reference's text or the cases reached the child
    reference = (PROBLEM_DIR / "reference.py").read_text()
    assert "np.power(float(base), exponents)" in reference
    assert "np.power(float(base), exponents)" not in out
    assert "ex-table-3x4" not in out
    # the root holds only system folders, the python prefix's top folder and /tmp, /dev
    allowed = {"bin", "dev", "lib", "lib32", "lib64", "libx32", "sbin", "tmp", "usr", _python_root_entry()}
    listing = set(_lines(v, "LISTING")[0].split(","))
    assert listing <= allowed, listing - allowed
    assert {"tmp", "usr", "dev"} <= listing
    assert not listing & {"etc", "work", "proc", "sys", "home", "var", "run", "opt", "srv", "mnt"}
    if _python_root_entry() == "root":
        # /root is only the path down to the interpreter, e.g. /root/.pyenv
        first = os.path.realpath(sysconfig.get_paths()["stdlib"]).strip("/").split("/")[1]
        assert _lines(v, "ROOTDIR") == [first]
    # files visible outside /usr, the python prefix and /dev: none at all (/tmp is fresh and empty)
    assert _lines(v, "FILE") == [], _lines(v, "FILE")[:20]
    assert_still_grades(sj)


# --------------------------------------------------------------------------- environment secrets

def test_environment_secret_not_reachable(sj):
    assert os.environ.get("JUDGE_TEST_CANARY") == CANARY  # the judge's own process has it
    src = learner("""
        os = __import__("o" + "s"); sys = __import__("sys")
        print("ENVIRON", dict(os.environ))
        print("ARGV", sys.argv, sys.orig_argv if hasattr(sys, "orig_argv") else None)
        for p in ("/proc/1/environ", "/proc/self/environ", "/proc/%d/environ" % os.getppid(),
                  "/proc/%d/environ" % os.getpid(), "/proc/self/cmdline"):
            try:
                with open(p, "rb") as fh:
                    print("READ", p, fh.read())
            except Exception as exc:
                print("DENIED", p, type(exc).__name__)
        print("GETENV", os.environ.get("JUDGE_TEST_CANARY"))
    """)
    v = sj.grade(src, "sinusoidal-pe")
    _came_back(v)
    assert "ENVIRON" in v.stdout.text
    assert _lines(v, "READ") == []
    blob = v.model_dump_json()
    assert CANARY not in blob
    assert "JUDGE_TEST_CANARY" not in _lines(v, "ENVIRON")[0]
    assert "GETENV None" in v.stdout.text
    assert_still_grades(sj)


# --------------------------------------------------------------------------- writing outside

def _tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_cannot_write_outside(sj):
    problems = REPO / "problems"
    saved = {p: p.read_bytes() for p in problems.rglob("*") if p.is_file()}
    before = _tree_digest(problems)
    targets = [f"/tmp/../{MARKER}", f"/usr/{MARKER}", str(PROBLEM_DIR / "reference.py"), f"/root/{MARKER}",
               f"/{MARKER}", f"/var/tmp/{MARKER}", f"/dev/shm/{MARKER}", f"/dev/{MARKER}",
               str(PROBLEM_DIR / MARKER)]
    src = learner(f"""
        os = __import__("o" + "s")
        for p in {targets!r}:
            try:
                with open(p, "ab") as fh:
                    fh.write(b"# {MARKER}\\n")
                print("WROTE", p)
            except Exception as exc:
                print("DENIED", p, type(exc).__name__)
        try:
            with open("/tmp/{MARKER}", "wb") as fh:  # the private /tmp is writable, and private
                fh.write(b"x")
            print("PRIVATE-TMP-OK")
        except Exception as exc:
            print("PRIVATE-TMP-ERR", exc)
    """)
    try:
        v = sj.grade(src, "sinusoidal-pe")
        _came_back(v)
        assert _lines(v, "WROTE") == []
        assert "PRIVATE-TMP-OK" in v.stdout.text
        assert _tree_digest(problems) == before
        for host_path in (f"/tmp/{MARKER}", f"/{MARKER}", f"/usr/{MARKER}", f"/root/{MARKER}",
                          f"/var/tmp/{MARKER}", f"/dev/shm/{MARKER}", f"/dev/{MARKER}", str(PROBLEM_DIR / MARKER),
                          f"/run/judge-sandbox-root/tmp/{MARKER}"):
            assert not os.path.exists(host_path), f"{host_path} was created on the host"
        assert not any(MARKER in p.name for p in Path("/tmp").iterdir())
    finally:  # never leave the repository damaged, even if the sandbox failed
        for p, data in saved.items():
            if p.read_bytes() != data:
                p.write_bytes(data)
        for p in problems.rglob(f"*{MARKER}*"):
            p.unlink()
    assert_still_grades(sj)


# --------------------------------------------------------------------------- network

class _Listeners:
    """A TCP listener, a UDP socket and an abstract AF_UNIX listener on the host, counting contacts."""

    def __init__(self) -> None:
        self.contacts: list[str] = []
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(8)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix_name = "\0" + MARKER
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(self.unix_name)
        self.unix.listen(8)
        self.unix_path = f"/tmp/{MARKER}.sock"
        self.unix_fs = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix_fs.bind(self.unix_path)
        os.chmod(self.unix_path, 0o777)
        self.unix_fs.listen(8)
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._accept, args=(s, n), daemon=True)
                         for s, n in ((self.tcp, "tcp"), (self.unix, "unix"), (self.unix_fs, "unix-fs"))]
        self._threads.append(threading.Thread(target=self._recv, daemon=True))
        for t in self._threads:
            t.start()

    def _accept(self, s: socket.socket, name: str) -> None:
        s.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = s.accept()
                self.contacts.append(name)
                conn.close()
            except TimeoutError:
                continue
            except OSError:
                return

    def _recv(self) -> None:
        self.udp.settimeout(0.1)
        while not self._stop.is_set():
            try:
                self.udp.recvfrom(4096)
                self.contacts.append("udp")
            except TimeoutError:
                continue
            except OSError:
                return

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(2)
        for s in (self.tcp, self.udp, self.unix, self.unix_fs):
            s.close()
        if os.path.exists(self.unix_path):
            os.unlink(self.unix_path)


def test_no_network(sj):
    from judge.verdict import Status

    ears = _Listeners()
    try:
        tcp_port = ears.tcp.getsockname()[1]
        udp_port = ears.udp.getsockname()[1]
        src = learner(f"""
            socket = __import__("socket")
            def attempt(name, fn):
                try:
                    fn()
                    print("CONNECTED", name)
                except Exception as exc:
                    print("REFUSED", name, type(exc).__name__, exc)
            def tcp():
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM); s.settimeout(1)
                s.connect(("127.0.0.1", {tcp_port}))
            def udp():
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.sendto(b"hello", ("127.0.0.1", {udp_port}))
            def unix_abstract():
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect({ears.unix_name!r})
            def unix_path():
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect({ears.unix_path!r})
            def pair():
                socket.socketpair()
            for name, fn in (("tcp", tcp), ("udp", udp), ("unix", unix_abstract), ("unix-fs", unix_path),
                             ("socketpair", pair)):
                attempt(name, fn)
        """)
        v = sj.grade(src, "sinusoidal-pe")
        import time
        time.sleep(0.3)  # let the listener threads notice anything late
    finally:
        ears.close()
    _came_back(v)
    assert v.status in (Status.RUNTIME_ERROR, Status.WRONG_ANSWER), v.status
    assert ears.contacts == []
    assert _lines(v, "CONNECTED") == []
    assert len(_lines(v, "REFUSED")) >= 5, v.stdout.text[:2000]
    assert_still_grades(sj)


# --------------------------------------------------------------------------- processes

def test_forked_and_daemonised_processes_do_not_survive(sj):
    src = learner("""
        os = __import__("o" + "s"); time = __import__("time")
        if not globals().get("_done"):
            globals()["_done"] = True
            for _ in range(3):
                try:
                    if os.fork() == 0:
                        try:
                            time.sleep(1000)
                        finally:
                            os._exit(0)
                except OSError as exc:
                    print("FORK-FAILED", exc)
            try:  # classic double fork + setsid daemon
                if os.fork() == 0:
                    try:
                        os.setsid()
                        if os.fork() == 0:
                            time.sleep(1000)
                    finally:
                        os._exit(0)
            except OSError as exc:
                print("FORK-FAILED", exc)
            time.sleep(0.2)
            print("FORKED")
    """)
    v = sj.grade(src, "sinusoidal-pe")
    _came_back(v)
    assert "FORKED" in v.stdout.text
    assert "FORK-FAILED" not in v.stdout.text  # the children really existed
    name = worker_name(v)
    assert leftover_learner_processes(name) == []
    assert len(cgroup_pids(v)) == 1, cgroup_pids(v)  # only the zygote stays in the worker's group
    assert_still_grades(sj)
    assert len(cgroup_pids(v)) == 1


def test_no_uid_nobody_processes_left_on_host(sj):
    """After the attacks above, no uid-65534 process of this module's worker is left anywhere on the host."""
    v = sj.grade(learner("pass"), "sinusoidal-pe")
    assert leftover_learner_processes(worker_name(v)) == []


# --------------------------------------------------------------------------- killing the parent

def test_killing_the_parent(sj):
    src = learner("""
        os = __import__("o" + "s")
        print("PPID", os.getppid(), "PID", os.getpid())
        for what, fn in (("ppid", lambda: os.kill(os.getppid(), 9)), ("all", lambda: os.kill(-1, 9)),
                         ("pg", lambda: os.killpg(0, 9)), ("pid1", lambda: os.kill(1, 9))):
            try:
                fn()
                print("SENT", what)
            except Exception as exc:
                print("FAILED", what, type(exc).__name__)
    """)
    from judge.verdict import Status

    v = sj.grade(src, "sinusoidal-pe")
    _came_back(v)
    # the learner is PID 2 of its own pid namespace, under the sandbox's init: the init has no
    # handlers, so the kernel drops signals to it; kill(-1) reaches only the learner itself, which dies
    assert _lines(v, "PPID")[0].split() == ["1", "PID", "2"]
    assert v.status is Status.RUNTIME_ERROR, (v.status, v.message)
    assert "SIGKILL" in v.message and v.resources.signal == 9
    v2 = sj.grade(src, "sinusoidal-pe")
    _came_back(v2)
    assert_still_grades(sj)
    assert_still_grades(sj)


# --------------------------------------------------------------------------- forging a verdict

def test_forged_output_is_not_believed(sj):
    from judge.verdict import Status

    src = learner("""
        os = __import__("o" + "s")
        print("accepted")
        print('{"status": "accepted", "score": 1.0}')
        for fd in range(256):
            try:
                os.write(fd, b'{"status": "accepted"}')
            except Exception:
                pass
    """, prelude="""
        _os = __import__("o" + "s")
        for _fd in range(256):
            try:
                _os.write(_fd, b'{"status": "accepted"}')
            except Exception:
                pass
    """)
    v = sj.grade(src, "sinusoidal-pe")
    _came_back(v)
    assert v.status is Status.WRONG_ANSWER, (v.status, v.message)
    assert v.score < 1.0
    assert "accepted" in v.stdout.text
    assert_still_grades(sj)


# --------------------------------------------------------------------------- namespaces/ptrace/mount via ctypes

def test_privileged_syscalls_fail(sj):
    src = learner("""
        ctypes = __import__("ctypes")
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        calls = {
            "unshare_user": lambda: libc.unshare(0x10000000),
            "unshare_net": lambda: libc.unshare(0x40000000),
            "unshare_ns": lambda: libc.unshare(0x00020000),
            "mount_tmpfs": lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None),
            "remount_rw": lambda: libc.mount(None, b"/", None, 32 | 4096, None),
            "ptrace_traceme": lambda: libc.ptrace(0, 0, None, None),
            "ptrace_attach1": lambda: libc.ptrace(16, 1, None, None),
            "chroot": lambda: libc.chroot(b"/tmp"),
            "setuid0": lambda: libc.setuid(0),
            "setns": lambda: libc.setns(0, 0),
        }
        for name, fn in calls.items():
            print("RC", name, fn(), ctypes.get_errno())
    """)
    v = sj.grade(src, "sinusoidal-pe")
    _came_back(v)
    rcs = {line.split()[0]: (int(line.split()[1]), int(line.split()[2])) for line in _lines(v, "RC")}
    assert len(rcs) == 10, (v.stdout.text[:2000], v.stderr.text[-2000:])
    assert all(rc == -1 for rc, _ in rcs.values()), rcs
    assert all(err == errno.EPERM for _, err in rcs.values()), rcs  # seccomp / no capabilities
    assert_still_grades(sj)


# --------------------------------------------------------------------------- uid

def test_runs_as_nobody(sj):
    src = learner("""
        os = __import__("o" + "s")
        print("IDS", os.getuid(), os.geteuid(), os.getgid(), os.getegid(), len(os.getgroups()))
        print("RESUID", *os.getresuid())
    """)
    v = sj.grade(src, "sinusoidal-pe")
    _came_back(v)
    ids = _lines(v, "IDS")
    assert ids, v.stdout.text[:1000]
    assert ids[0].split() == [str(NOBODY)] * 4 + ["0"]
    assert _lines(v, "RESUID")[0].split() == [str(NOBODY)] * 3
    assert v.isolation.uid == NOBODY
    assert_still_grades(sj)
