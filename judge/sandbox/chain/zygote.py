"""The zygote: a warm, secret-free process that forks one sandboxed run per request.

One zygote serves one isolation mode (full, rootless, reduced or none; see
:mod:`judge.sandbox.modes.ladder`), fixed when it starts.

The judge starts it as a fresh interpreter with a scrubbed environment, so the
memory every child inherits holds numpy and this package's sandbox code, and
nothing else: no reference solution, no expected output, no token.  It joins
its worker cgroup once (joining is slow after an idle gap; children inherit
membership at fork) and serves requests over a Unix socket, one at a time.  When
the socket ends it cleans up after itself (:meth:`Zygote.finish`): a judge that is
done with it need not wait for it.

Wire protocol (both ways, :mod:`judge.sandbox.boundary.messages`): a 4-byte little-endian
length, then JSON.  Requests carry, as SCM_RIGHTS ancillary data, the result memfd,
the learner's source (a sealed memfd), the two capture memfds and, when the cases
have array inputs, the sealed input memfd (:data:`REQUEST_FDS`).  A request marked ``gated`` is followed by
one more message, ``{"clear": true}`` once the judge has cleared the result buffer: the run is set up meanwhile,
and its init starts the learner's process only after the zygote has heard it (:meth:`Zygote.run`).

No byte of a learner's submission ever enters this process's memory, since every
later run is a copy-on-write fork of it: the source reaches only the run's own
processes, as a mapping the learner's process decodes; the captures are read by
the judge; what the run leaves behind (processes, files, IPC objects) is found
and removed by the run's supervisor, a forked process that exits afterwards.
This process reads only numbers: the supervisor's report, pids, cgroup counters.
"""

from __future__ import annotations

import gc
import json
import mmap
import os
import socket
import sys
import time
from typing import TYPE_CHECKING

import numpy  # noqa: F401 - imported so every child starts warm

from judge.errors import SandboxUnavailable
from judge.sandbox.boundary.contract import Hello, RunReport, RunRequest
from judge.sandbox.boundary.messages import recv_message, send_message
from judge.sandbox.boundary.progress import ProgressPage
from judge.sandbox.chain.background import InBackground
from judge.sandbox.chain.supervisor import MemoryBudget, RunMaps, supervise, vm_size
from judge.sandbox.kernel import linux
from judge.sandbox.kernel.leftovers import kill_descendants
from judge.sandbox.modes import mode_named
from judge.sandbox.modes.base import Policy

if TYPE_CHECKING:
    from judge.sandbox.kernel.cgroups.interface import WorkerCgroup

#: The order of a request's descriptors; ``inputs`` only when the cases have array inputs.
REQUEST_FDS = ("results", "source", "stdout", "stderr", "inputs")


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * mmap.PAGESIZE


class Zygote:
    """One warm zygote of one isolation mode; its mode (:mod:`judge.sandbox.modes`) does what differs."""

    def __init__(self, sock: socket.socket, mode: str, name: str, joining: InBackground | None = None) -> None:
        self.sock = sock
        self.name = name  #: its worker cgroup's name
        self.joining = joining  #: mode full: the worker cgroup join begun before numpy's import
        self.mode = mode_named(mode)
        self.cgroup: WorkerCgroup | None = None
        self.cgroup_home: str | None = None  #: mode full: /proc/self/cgroup before joining (see finish)
        self.held: list[int] = []  #: the last run's result and input files (see run)
        self.peak_fresh = True  #: the cgroup's peak counts from after the last run (see reset_peak)
        self.notes: list[str] = []
        self.policy = Policy(mode=self.mode)
        self.stuck: set[int] = set()  #: pids of earlier runs' processes that outlived SIGKILL (left to the kernel)
        self.gate_pending = False  #: a gated request's {"clear": ...} message is still to be read (see run)
        self.mode.start_zygote(self)
        if self.mode.sandboxed:
            from judge.sandbox.kernel.seccomp import UNACCOUNTED_MEMORY_SYSCALLS, DenyListFilter

            # Without a memory cgroup nothing would charge System V or POSIX IPC memory to the run: refused.
            self.policy.seccomp = DenyListFilter(UNACCOUNTED_MEMORY_SYSCALLS if self.policy.memory_watch else ())
        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
        # Keep the warm heap shared with children instead of copied by the collector.  No collection first
        # (~5 ms of every cold start): what the imports left behind is a few objects, frozen or not.
        gc.freeze()
        self.baseline_rss = _rss_bytes()
        self.baseline_vm = vm_size()

    def describe(self) -> Hello:
        return Hello(
            isolation=self.mode.name,
            limits_by="cgroup" if self.cgroup else "rlimits",
            cgroup=self.cgroup.path_description if self.cgroup else None,
            seccomp_denied=len(self.policy.seccomp.denied) if self.policy.seccomp else 0,
            uid=self.policy.uid,
            landlock=self.policy.landlock_abi,
            notes=tuple(self.notes),
            pid=os.getpid(),
            # Once let go, it ends its processes and removes its worker group by itself: nothing need wait.
            finishes_alone=self.cgroup is None or self.cgroup_home is not None,
        )

    def _budget(self, request: RunRequest) -> MemoryBudget | None:
        if not self.policy.memory_watch:
            return None
        shared = request.result_size + request.input_size
        watch = self.baseline_rss + shared + request.limits.memory_bytes
        # The backstop sits one whole limit above the watch, so memory that is touched always meets the
        # watch first; an untouched reservation larger than that fails with MemoryError.
        return MemoryBudget(watch_bytes=watch,
                            address_space=self.baseline_vm + 2 * shared + 2 * request.limits.memory_bytes + (64 << 20))

    def _judge_cleared(self) -> bool:
        """A gated run: read the judge's word that the result buffer is clear (True only for ``{"clear": true}``;
        False for anything else or the end of the socket)."""
        self.gate_pending = False
        try:
            message, _ = recv_message(self.sock)
        except (OSError, ValueError):
            return False
        return isinstance(message, dict) and message.get("clear") is True

    def run(self, request: RunRequest, source_bytes: int, fds: list[int], gated: bool = False) -> RunReport:
        """One run: ``fds`` in the order of :data:`REQUEST_FDS`; the report holds no captured output (the judge
        reads the capture files it sent).  ``gated``: the judge is still clearing the result buffer; the sandbox
        is set up meanwhile, and its init waits at a pipe (``RunMaps.gate``) that is opened only once the judge
        has said the buffer is clear, so no learner code runs before."""
        self._release_held()
        result_fd, source_fd, stdout_fd, stderr_fd = fds[:4]
        input_fd = fds[4] if len(fds) > 4 else None
        limits = request.limits
        results = mmap.mmap(result_fd, request.result_size, access=mmap.ACCESS_WRITE)
        # Mapped, never read here: only the learner's process decodes it (RunMaps.source_text).
        source = mmap.mmap(source_fd, source_bytes, access=mmap.ACCESS_READ) if source_bytes else None
        inputs = pristine = None
        if input_fd is not None and request.input_size:
            inputs = mmap.mmap(input_fd, request.input_size, access=mmap.ACCESS_COPY)
            pristine = mmap.mmap(input_fd, request.input_size, access=mmap.ACCESS_READ)
        progress = ProgressPage()
        before = None
        if self.cgroup is not None:
            if not self.peak_fresh:  # the reset after the last reply failed: try once more, on this run's time
                self.reset_peak()
            before = self.cgroup.snapshot()
            self.cgroup.set_limits(before.memory_current + limits.memory_bytes + request.result_size,
                                   limits.max_processes + 3)  # + zygote, supervisor, sandbox init
        self.mode.before_run(self, request)
        report_r, report_w = os.pipe()
        gate_r, gate_w = os.pipe() if gated else (None, None)
        started = time.monotonic_ns()
        pid = os.fork()
        if pid == 0:
            os.close(report_r)
            if gate_w is not None:
                os.close(gate_w)  # the zygote's is the only end that can open the gate (or end it: no run)
            maps = RunMaps(inputs, pristine, results, stdout_fd, stderr_fd, source, gate=gate_r)
            supervise(request, maps, progress, self.policy, self._budget(request), report_w)
        os.close(report_w)
        if gate_r is not None and gate_w is not None:
            os.close(gate_r)
            try:
                if self._judge_cleared():
                    os.write(gate_w, b"1")
            finally:
                os.close(gate_w)
        chunks = []
        while chunk := os.read(report_r, 65536):
            chunks.append(chunk)
        os.close(report_r)
        os.waitpid(pid, 0)
        report = RunReport.from_wire(json.loads(b"".join(chunks) or b"{}"))
        if self.policy.memory_watch and report.maxrss_kib:
            report.memory_peak = max(0, report.maxrss_kib * 1024 - self.baseline_rss)
        if self.cgroup is not None and before is not None:
            report.processes_left = max(report.processes_left, self.cgroup.kill_all(keep={os.getpid()}))
            after = self.cgroup.snapshot()
            base = before.memory_current
            report.oom_kills = after.oom_kills - before.oom_kills
            report.pids_refused = after.pids_refused - before.pids_refused
            report.cpu_ns = after.cpu_ns - before.cpu_ns
            report.memory_peak = None if after.memory_peak is None or not self.peak_fresh \
                else max(0, after.memory_peak - base)
        # The supervisor (a subreaper) ended and removed what the run left; what outlived even that (a process
        # in uninterruptible sleep) was reparented here.  Only pids are read.
        report.uid = self.policy.uid
        left, stuck = kill_descendants(timeout=0.2 if report.processes_stuck else 2.0, exclude=self.stuck)
        report.processes_left = max(report.processes_left, left)
        self.stuck.update(stuck)
        report.processes_stuck = max(report.processes_stuck, len(stuck))
        self.mode.after_run(self, report)
        report.elapsed_ns = time.monotonic_ns() - started
        for m in (results, source, inputs, pristine):
            if m is not None:
                m.close()
        progress.close()
        for fd in (source_fd, stdout_fd, stderr_fd):
            os.close(fd)
        # Held until the next run or this process's exit: once the judge has closed its own descriptors,
        # the last holder frees the files' pages (~0.1 GB for the largest suite, ~25 ms), and that is this
        # process as it exits after a one-shot grading, off the verdict's path (see finish).
        self.held = [fd for fd in (result_fd, input_fd) if fd is not None]
        return report

    def _close_unheld(self, fds: list[int]) -> None:
        """After a run that failed part-way: close the request's descriptors (not those it got to hold)."""
        for fd in fds:
            if fd not in self.held:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _release_held(self) -> None:
        for fd in self.held:
            os.close(fd)
        self.held = []

    def finish(self) -> int:
        """The judge let go (end of the socket): end what is left of the runs, and in mode full leave the
        worker group and remove it, so that the judge need not wait for this process (a one-shot grading
        exits at once; :meth:`judge.sandbox.backends.zygote_client.ZygoteClient.close`).  The exit status: 0 when
        nothing is left for the judge to remove, 3 when the group is still there."""
        self.mode.finish_zygote(self)
        if self.cgroup is None:
            return 0
        self.cgroup.kill_all(keep={os.getpid()})
        if self.cgroup_home is None:
            return 3
        from judge.sandbox.kernel.cgroups import CgroupError

        try:
            self.cgroup.return_home(self.cgroup_home)
            self.cgroup.remove()
        except CgroupError as exc:
            print(f"zygote: cannot remove its worker group: {exc}", file=sys.stderr, flush=True)
            return 3
        return 0

    def reset_peak(self) -> None:
        """Restart the peak-memory watermark for the next run.

        Called after each reply, so that its cost is off the verdict's path: on
        cgroup v2 it moves the zygote into a fresh group (memory.peak cannot be
        reset before kernel 6.12), which takes 7-13 ms after an idle gap.  If it
        fails, the next run tries again and reports no peak rather than a stale one.
        """
        from judge.sandbox.kernel.cgroups import CgroupError

        if self.cgroup is None:  # no worker group: no peak to restart (callers ask only with one)
            return
        try:
            self.cgroup.reset_peak()
            self.peak_fresh = True
        except CgroupError as exc:
            self.peak_fresh = False
            print(f"zygote: cannot reset the peak-memory watermark: {exc}", file=sys.stderr, flush=True)

    def serve(self) -> None:
        send_message(self.sock, {"ready": self.describe().to_wire()})
        while True:
            message, fds = recv_message(self.sock, max_fds=len(REQUEST_FDS))
            if message is None:
                break
            self.gate_pending = message.get("gated") is True
            try:
                reply = self.run(RunRequest.from_wire(message), int(message.get("source_bytes", 0)), fds,
                                 gated=self.gate_pending).to_wire()
            except SandboxUnavailable as exc:  # mode reduced cannot hide what the judge named: no run
                reply = {"refused": str(exc)}
                self._close_unheld(fds)
            except Exception as exc:  # noqa: BLE001 - report, keep serving
                reply = {"error": f"{type(exc).__name__}: {exc}"}
                self._close_unheld(fds)
            if self.gate_pending:  # the run failed before its gate: the judge's word still comes, read it here
                self._judge_cleared()
            if reply.get("error") is None and "refused" not in reply:
                reply["hello"] = self.describe().to_wire()  # as it stands for the runs after this one
            send_message(self.sock, reply)
            if self.cgroup is not None:
                self.reset_peak()


def main(joining: InBackground | None = None) -> None:
    """Entry point, from :func:`judge.sandbox.chain.zygote_boot.boot`: argv MODE NAME FD, FD the socket to the judge;
    ``joining``: the worker cgroup join begun before the imports (mode full)."""
    mode = sys.argv[1]
    name = sys.argv[2]
    sock = socket.socket(fileno=int(sys.argv[3]))
    try:
        zygote = Zygote(sock, mode, name, joining)
    except Exception as exc:  # noqa: BLE001
        send_message(sock, {"error": f"{type(exc).__name__}: {exc}"})
        raise SystemExit(1) from exc
    zygote.serve()
    os._exit(zygote.finish())  # nothing left to flush: skip tearing down numpy and the frozen heap (~0.1 s)
