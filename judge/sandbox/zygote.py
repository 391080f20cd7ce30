"""The zygote: a warm, secret-free process that forks one sandboxed run per request.

The judge starts it as a fresh interpreter with a scrubbed environment, so the
memory every child inherits holds numpy and this package's sandbox code, and
nothing else: no reference solution, no expected output, no token.  It joins
its worker cgroup once (joining is slow after an idle gap; children inherit
membership at fork) and serves requests over a Unix socket, one at a time.

Wire protocol (both ways): a 4-byte little-endian length, then JSON.  Requests
carry the result memfd and, when the cases have array inputs, the sealed input
memfd as SCM_RIGHTS ancillary data.
"""

from __future__ import annotations

import gc
import json
import mmap
import os
import socket
import struct
import sys
import time

import numpy  # noqa: F401 - imported so every child starts warm

from judge.sandbox import linux
from judge.sandbox.progress import ProgressPage
from judge.sandbox.rootfs import RootPlan
from judge.sandbox.supervisor import RunMaps, supervise

_LEN = struct.Struct("<I")
MAX_MESSAGE = 64 << 20
CAPTURE_BYTES = 64 << 10  # how much of stdout/stderr the zygote reads back


def send_message(sock: socket.socket, payload: dict, fds: list[int] | None = None) -> None:
    data = json.dumps(payload).encode()
    frame = _LEN.pack(len(data)) + data
    if fds:
        socket.send_fds(sock, [frame[:4]], fds)
        sock.sendall(frame[4:])
    else:
        sock.sendall(frame)


def recv_message(sock: socket.socket, max_fds: int = 0) -> tuple[dict | None, list[int]]:
    """One message and the fds that came with it; (None, []) at end of stream."""
    if max_fds:
        head, fds, _, _ = socket.recv_fds(sock, 4, max_fds)
    else:
        head, fds = sock.recv(4), []
    while head and len(head) < 4:
        more = sock.recv(4 - len(head))
        if not more:
            break
        head += more
    if len(head) < 4:
        return None, fds
    (length,) = _LEN.unpack(head)
    if length > MAX_MESSAGE:
        raise ValueError(f"message of {length} bytes is too large")
    chunks, got = [], 0
    while got < length:
        chunk = sock.recv(min(length - got, 1 << 20))
        if not chunk:
            return None, fds
        chunks.append(chunk)
        got += len(chunk)
    return json.loads(b"".join(chunks)), fds


def read_capture(fd: int) -> dict:
    """The first CAPTURE_BYTES of a capture file, and its full size."""
    size = os.fstat(fd).st_size
    head = os.pread(fd, CAPTURE_BYTES, 0)
    return {"text": head.decode("utf-8", errors="replace"), "bytes": size}


class Zygote:
    def __init__(self, sock: socket.socket, isolate: bool, name: str) -> None:
        self.sock = sock
        self.isolate = isolate
        self.cgroup = None
        self.peak_fresh = True  #: the cgroup's peak counts from after the last run (see reset_peak)
        self.plan: RootPlan | None = None
        self.seccomp = None
        self.notes: list[str] = []
        if isolate:
            from judge.sandbox.cgroups import create_worker_cgroup, prune_stale_worker_cgroups
            from judge.sandbox.seccomp import DenyListFilter

            self.plan = RootPlan.for_this_interpreter()
            self.seccomp = DenyListFilter()
            prune_stale_worker_cgroups()  # groups of judges that were killed before they could clean up
            self.cgroup = create_worker_cgroup(name)
            self.cgroup.add_process(os.getpid())
            self.cgroup.reset_peak()  # a reused v1 group keeps its old watermark; right after joining this is cheap
            try:  # needs CAP_SYS_RESOURCE; children raise theirs to 1000 regardless (isolation.py)
                with open("/proc/self/oom_score_adj", "w") as f:
                    f.write("-1000")
            except OSError:
                self.notes.append("could not lower the zygote's oom_score_adj (no CAP_SYS_RESOURCE)")
            linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
        gc.collect()
        gc.freeze()  # keep the warm heap shared with children instead of copied by the collector

    def describe(self) -> dict:
        return {
            "isolation": "full" if self.isolate else "none",
            "cgroup": self.cgroup.path_description if self.cgroup else None,
            "seccomp_denied": len(self.seccomp.denied) if self.seccomp else 0,
            "pid": os.getpid(),
        }

    def run(self, request: dict, fds: list[int]) -> dict:
        result_fd = fds[0]
        input_fd = fds[1] if len(fds) > 1 else None
        limits = request["limits"]
        results = mmap.mmap(result_fd, request["result_size"], access=mmap.ACCESS_WRITE)
        inputs = pristine = None
        if input_fd is not None and request["input_size"]:
            inputs = mmap.mmap(input_fd, request["input_size"], access=mmap.ACCESS_COPY)
            pristine = mmap.mmap(input_fd, request["input_size"], access=mmap.ACCESS_READ)
        stdout_fd = os.memfd_create("stdout", os.MFD_CLOEXEC)
        stderr_fd = os.memfd_create("stderr", os.MFD_CLOEXEC)
        progress = ProgressPage()
        before = None
        if self.cgroup is not None:
            if not self.peak_fresh:  # the reset after the last reply failed: try once more, on this run's time
                self.reset_peak()
            before = self.cgroup.snapshot()
            self.cgroup.set_limits(before.memory_current + limits["memory_bytes"] + request["result_size"],
                                   limits["max_processes"] + 3)  # + zygote, supervisor, sandbox init
        report_r, report_w = os.pipe()
        started = time.monotonic_ns()
        pid = os.fork()
        if pid == 0:
            os.close(report_r)
            maps = RunMaps(inputs, pristine, results, stdout_fd, stderr_fd)
            supervise(request, maps, progress, self.plan, self.seccomp, report_w)
        os.close(report_w)
        chunks = []
        while chunk := os.read(report_r, 65536):
            chunks.append(chunk)
        os.close(report_r)
        os.waitpid(pid, 0)
        reply: dict = {"supervisor": json.loads(b"".join(chunks) or b"{}")}
        reply["elapsed_ns"] = time.monotonic_ns() - started
        if self.cgroup is not None and before is not None:
            left = self.cgroup.kill_all(keep={os.getpid()})
            after = self.cgroup.snapshot()
            base = before.memory_current
            reply["cgroup"] = {
                "oom_kills": after.oom_kills - before.oom_kills,
                "pids_refused": after.pids_refused - before.pids_refused,
                "cpu_ns": after.cpu_ns - before.cpu_ns,
                "memory_peak": None if after.memory_peak is None or not self.peak_fresh
                else max(0, after.memory_peak - base),
                "processes_left": left,
            }
        reply["stdout"] = read_capture(stdout_fd)
        reply["stderr"] = read_capture(stderr_fd)
        for m in (results, inputs, pristine):
            if m is not None:
                m.close()
        progress.close()
        for fd in [stdout_fd, stderr_fd, *fds]:
            os.close(fd)
        return reply

    def reset_peak(self) -> None:
        """Restart the peak-memory watermark for the next run.

        Called after each reply, so that its cost is off the verdict's path: on
        cgroup v2 it moves the zygote into a fresh group (memory.peak cannot be
        reset before kernel 6.12), which takes 7-13 ms after an idle gap.  If it
        fails, the next run tries again and reports no peak rather than a stale one.
        """
        from judge.sandbox.cgroups import CgroupError

        try:
            self.cgroup.reset_peak()
            self.peak_fresh = True
        except CgroupError as exc:
            self.peak_fresh = False
            print(f"zygote: cannot reset the peak-memory watermark: {exc}", file=sys.stderr, flush=True)

    def serve(self) -> None:
        send_message(self.sock, {"ready": self.describe()})
        while True:
            request, fds = recv_message(self.sock, max_fds=4)
            if request is None:
                break
            try:
                reply = self.run(request, fds)
            except Exception as exc:  # noqa: BLE001 - report, keep serving
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            send_message(self.sock, reply)
            if self.cgroup is not None:
                self.reset_peak()
        if self.cgroup is not None:
            self.cgroup.kill_all(keep={os.getpid()})


def main() -> None:
    """Entry point: ``python -E -s -c ... main() full|none NAME FD``, FD the socket to the judge."""
    isolate = sys.argv[1] == "full"
    name = sys.argv[2]
    sock = socket.socket(fileno=int(sys.argv[3]))
    try:
        zygote = Zygote(sock, isolate, name)
    except Exception as exc:  # noqa: BLE001
        send_message(sock, {"error": f"{type(exc).__name__}: {exc}"})
        raise SystemExit(1)
    zygote.serve()
