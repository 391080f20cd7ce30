"""The process backend: the judge's side of a zygote (start it clean, hand it runs, stop it).

:class:`ZygoteClient` implements :class:`judge.sandbox.boundary.contract.SandboxBackend`
for the modes full, rootless, reduced and none.

The zygote is started by :mod:`judge.sandbox.chain.launch` (a fresh interpreter, a
scrubbed environment); a client either starts its own or takes over one launched
ahead, before the judge's imports.
"""

from __future__ import annotations

import os
import subprocess
import threading
from typing import TYPE_CHECKING

from judge.sandbox.boundary import memfd
from judge.sandbox.boundary.contract import BackendError, Capture, Hello, RunReport, RunRequest
from judge.sandbox.boundary.messages import recv_message, send_message
from judge.sandbox.boundary.result_buffer import ResultBuffer, buffer_for
from judge.sandbox.chain.launch import Launched, spawn
from judge.sandbox.modes import mode_named

if TYPE_CHECKING:
    from judge.isolation_record import Isolation


class ZygoteError(BackendError):
    """The zygote could not start or stopped answering."""


class ZygoteClient:
    """One warm zygote of one isolation mode; ``run`` is serialised (a zygote runs one child at a time)."""

    streams_slots = True  #: the sandboxed harness writes each slot into the shared buffer, header last
    #: A run's learner process waits at a gate until :meth:`run` says the buffer is clear (``ResultBuffer.clear``),
    #: so a new submission's run may be sent before the last run's scrub is over (``start_run(deferred=True)``).
    gates_runs = True

    def __init__(self, mode: str, name: str, note: str = "", launched: Launched | None = None) -> None:
        """A zygote of ``mode`` with worker cgroup ``name``, started now; or ``launched``, already started by
        :func:`judge.sandbox.chain.launch.spawn` (see :meth:`take_over`)."""
        self.mode = mode_named(mode)
        self.note = note
        self.name = name
        self.result_buffer: ResultBuffer | None = None
        if launched is None:
            self.mode.before_spawn()
            launched = spawn(mode, name)
        self._lock = threading.Lock()
        self._retired = False
        self._proc = launched.proc
        self._sock = launched.sock
        self._hello: Hello | None = None
        self._last_uid: int | None = None  #: the uid the last run ran as (mode reduced: it may change between runs)

    @classmethod
    def take_over(cls, launched: Launched) -> ZygoteClient:
        """The client of a zygote launched ahead (:func:`judge.sandbox.chain.launch.full_ahead`)."""
        return cls(launched.mode, launched.name, launched=launched)

    def _wait_ready(self) -> Hello:
        """The zygote's hello; started in __init__ without waiting so start-up overlaps other work."""
        if self._hello is None:
            message, _ = recv_message(self._sock)
            if message is None or "ready" not in message:
                self.close()
                raise ZygoteError((message or {}).get("error", "the sandbox process exited during start-up"))
            self._hello = Hello.from_wire(message["ready"])
        return self._hello

    @property
    def hello(self) -> Hello:
        """What the zygote said about itself (waits for it to be ready)."""
        return self._wait_ready()

    @property
    def isolation(self) -> Isolation:
        from judge.isolation_record import Isolation  # pydantic: imported when a run needs it, not at start-up

        hello = self.hello
        notes = [n for n in [self.note, *hello.notes] if n]
        fields = {"mode": self.mode.name, "seccomp": self.mode.sandboxed, "limits_by": hello.limits_by,
                  "not_enforced": self.mode.not_enforced(landlock=hello.landlock > 0), "note": "; ".join(notes),
                  "landlock": hello.landlock}
        fields.update(self.mode.isolation_fields(hello, self._last_uid))
        return Isolation(**fields)

    def result_buffer_for(self, size: int) -> ResultBuffer:
        return buffer_for(self, size)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def run(self, request: RunRequest, inputs_fd: int | None) -> RunReport:
        """Send the run: the request without its source, and the descriptors the zygote expects
        (:data:`judge.sandbox.chain.zygote.REQUEST_FDS`): the result buffer, the source in a sealed memfd, two fresh
        capture files, the inputs.  The captures are read here, after the run: the zygote never reads a byte a
        learner wrote.

        When the buffer's run was started ``deferred`` (the last run's scrub may still be going on), the request
        says ``gated``: the zygote sets the sandbox up meanwhile, and its init waits before the learner's process
        exists; here the buffer is cleared (:meth:`ResultBuffer.clear`) and only then does the zygote hear
        ``{"clear": true}`` and open the gate (anything else, or the end of the socket, and the run never
        starts)."""
        buffer = self.result_buffer
        if buffer is None or buffer.size < request.result_size:
            raise ZygoteError("run() before result_buffer_for(size)")
        message, source = request.without_source()
        message["source_bytes"] = len(source)
        gated = buffer.clear_pending
        if gated:
            message["gated"] = True
        source_fd = memfd.sealed_bytes("judge-source", source)
        captures = [os.memfd_create(name, os.MFD_CLOEXEC) for name in ("stdout", "stderr")]
        fds = [buffer.fd, source_fd, *captures] + ([inputs_fd] if inputs_fd is not None else [])
        try:
            with self._lock:
                self._wait_ready()
                try:
                    send_message(self._sock, message, fds)
                    if gated:
                        self._clear_and_open(buffer)
                    reply, _ = recv_message(self._sock)
                except OSError as exc:
                    raise ZygoteError(f"lost the sandbox process: {exc}") from exc
            if reply is None:
                raise ZygoteError("the sandbox process stopped answering")
            if "refused" in reply:
                from judge.errors import SandboxUnavailable

                raise SandboxUnavailable(reply["refused"])
            report = RunReport.from_wire(reply)
            report.stdout, report.stderr = (Capture.read(fd) for fd in captures)
            self._last_uid = report.uid
            if isinstance(reply.get("hello"), dict):
                self._hello = Hello.from_wire(reply["hello"])  # mode reduced may take a new uid for the runs to come
            return report
        finally:
            for fd in (source_fd, *captures):
                os.close(fd)

    def _clear_and_open(self, buffer: ResultBuffer) -> None:
        """A gated run's request is sent: clear the buffer, then tell the zygote to let the learner start; if
        clearing fails, tell it not to, take its reply to the run that never started, and raise."""
        try:
            buffer.clear()
        except BaseException:
            send_message(self._sock, {"clear": False})
            recv_message(self._sock)
            raise
        send_message(self._sock, {"clear": True})

    def alive(self) -> bool:
        return self._proc.poll() is None

    def retire(self) -> None:
        """No more runs on this backend: :meth:`close` lets the zygote finish alone if it can.

        A one-shot grading (:mod:`judge.oneshot`) retires its only zygote once its run is over.  At close,
        the judge then closes its own descriptors and the socket and returns at once: the zygote, which
        holds the last run's result and input files, ends its processes, removes its worker group
        (``finishes_alone`` in its hello) and exits, freeing those files' pages (~25 ms for the largest
        suite) after the verdict is out rather than before."""
        self._retired = True

    @property
    def retired(self) -> bool:
        """No more runs will come (:meth:`retire`): its buffer need not be made ready for one."""
        return self._retired

    #: A warm process waits for runs: a cold start may send its run as soon as it is ready (judge.grading.run_plan).
    warm = True

    def abandon(self) -> None:
        """Stop a zygote nobody will use, at once (it may still be booting): killed, waited for, its group removed."""
        self._proc.kill()
        self.close()

    def close(self) -> None:
        """Close the result buffer and the socket (the zygote then ends its processes and exits), wait for
        the zygote and remove its worker group, unless it was retired and finishes alone (:meth:`retire`)."""
        if self.result_buffer is not None:
            self.result_buffer.close()
            self.result_buffer = None
        alone = self._retired and self._hello is not None and self._hello.finishes_alone
        try:
            self._sock.close()
        finally:
            if not alone:
                self._wait_and_clean_up()

    def _wait_and_clean_up(self) -> None:
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self.mode.remove_worker_group(self.name, self._hello, self._proc.returncode)
