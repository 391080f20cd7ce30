"""The process backend: the judge's side of a zygote (start it clean, hand it runs, stop it).

:class:`ZygoteClient` implements :class:`judge.sandbox.contract.SandboxBackend`
for the modes full, rootless, reduced and none.

The zygote is a fresh interpreter started with ``-E -s`` and an environment
reduced to a few harmless variables, so no secret of the judge's process (API
tokens, database URLs) and none of its memory (reference solutions, expected
outputs) can reach a learner's child by inheritance.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from judge.result_buffer import ResultBuffer, buffer_for
from judge.sandbox import guarantees
from judge.sandbox.contract import NAMESPACES, SANDBOX_UID, BackendError, RunReport, RunRequest
from judge.sandbox.messages import recv_message, send_message

if TYPE_CHECKING:
    from judge.isolation_record import Isolation

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
# Variables a numerical child may legitimately need; everything else is dropped.
_PASS_THROUGH = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
#: The environment a sandbox's trusted start-up process gets (the zygote here, the container's init in
#: the container backend): nothing of the judge's, one BLAS thread (the CPU limit is per run), no .pyc.
START_ENV = {"LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
             "PYTHONDONTWRITEBYTECODE": "1"}
_BASE_ENV = {"PATH": "/usr/bin:/bin", **START_ENV}
#: The zygote starts with -S: no ``site`` (its .pth files, e.g. an editable install's finder or a CA bundle's
#: hook, cost ~40 ms of every cold start here), so it gets this judge's module path instead, and from
#: ``site`` only the builtins learner code may call (exit, quit, help, copyright, credits, license).
_BOOT = ("import sys, json; sys.path[:] = json.loads(sys.argv.pop(1)); "
         "import site; site.setquit(); site.setcopyright(); site.sethelper(); "
         "from judge.sandbox.zygote_boot import boot; boot()")


def _module_path() -> str:
    """The zygote's sys.path (JSON): this package's root, then the judge's own path without its first entry
    (the script's folder or the working directory, nothing the zygote should import from)."""
    return json.dumps([_PACKAGE_ROOT] + [p for p in sys.path[1:] if p and os.path.isdir(p)])


class ZygoteError(BackendError):
    """The zygote could not start or stopped answering."""


class ZygoteClient:
    """One warm zygote of one isolation mode; ``run`` is serialised (a zygote runs one child at a time)."""

    def __init__(self, mode: str, name: str, note: str = "") -> None:
        self.mode = mode
        self.note = note
        self.name = name
        self.result_buffer: ResultBuffer | None = None
        if mode == "rootless":  # out of a delegated cgroup's root first, so its zygotes can have groups there
            from judge.sandbox.cgroups.delegation import claim

            claim()  # never raises; the zygote finds the outcome and says it in every verdict
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env = dict(_BASE_ENV)
        env.update({k: os.environ[k] for k in _PASS_THROUGH if k in os.environ})
        self._lock = threading.Lock()
        self._proc = subprocess.Popen(
            [sys.executable, "-E", "-s", "-S", "-c", _BOOT, _module_path(), mode, name, str(child.fileno())],
            env=env, cwd="/", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, pass_fds=(child.fileno(),), close_fds=True,
        )
        child.close()
        self._sock = parent
        self._info: dict | None = None

    def _wait_ready(self) -> dict:
        """The zygote's hello; started in __init__ without waiting so start-up overlaps other work."""
        if self._info is None:
            hello, _ = recv_message(self._sock)
            if hello is None or "ready" not in hello:
                self.close()
                raise ZygoteError((hello or {}).get("error", "the sandbox process exited during start-up"))
            self._info = hello["ready"]
        return self._info

    @property
    def info(self) -> dict:
        return self._wait_ready()

    @property
    def isolation(self) -> "Isolation":
        from judge.isolation_record import Isolation  # pydantic: imported when a run needs it, not at start-up

        info = self.info
        notes = [n for n in [self.note, *info.get("notes", [])] if n]
        fields = {"mode": self.mode, "seccomp": self.mode != "none", "limits_by": info.get("limits_by"),
                  "not_enforced": guarantees.not_enforced(self.mode), "note": "; ".join(notes)}
        if self.mode in ("full", "rootless"):
            fields.update(namespaces=list(NAMESPACES), uid=SANDBOX_UID, cgroup=info.get("cgroup"))
        elif self.mode == "reduced":
            fields.update(uid=info.get("uid"))
        return Isolation(**fields)

    def result_buffer_for(self, size: int) -> ResultBuffer:
        return buffer_for(self, size)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def run(self, request: RunRequest, inputs_fd: int | None) -> RunReport:
        if self.result_buffer is None or self.result_buffer.size < request.result_size:
            raise ZygoteError("run() before result_buffer_for(size)")
        fds = [self.result_buffer.fd] + ([inputs_fd] if inputs_fd is not None else [])
        with self._lock:
            self._wait_ready()
            try:
                send_message(self._sock, request.to_wire(), fds)
                reply, _ = recv_message(self._sock)
            except OSError as exc:
                raise ZygoteError(f"lost the sandbox process: {exc}") from exc
        if reply is None:
            raise ZygoteError("the sandbox process stopped answering")
        return RunReport.from_wire(reply)

    def alive(self) -> bool:
        return self._proc.poll() is None

    def retire(self) -> None:
        """No more runs on this backend: the zygote is told now (end of its socket), so it ends its processes
        and exits while the judge still reads the result buffer; :meth:`close` then finds it gone, and
        removes its cgroup.  A one-shot grading (:mod:`judge.oneshot`) retires its only zygote as soon as its
        run is over, which takes the zygote's exit off the verdict's path."""
        try:
            self._sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def abandon(self) -> None:
        """Stop a zygote nobody will use, at once (it may still be booting): killed, waited for, its group removed."""
        self._proc.kill()
        self.close()

    def close(self) -> None:
        if self.result_buffer is not None:
            self.result_buffer.close()
            self.result_buffer = None
        try:
            self._sock.close()
        finally:
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            if self.mode == "full":
                from judge.sandbox.cgroups import remove_worker_cgroup

                remove_worker_cgroup(self.name)
            elif self.mode == "rootless" and (self._info or {}).get("limits_by") == "cgroup":
                from judge.sandbox.cgroups import remove_worker_cgroup
                from judge.sandbox.cgroups.delegation import find

                found = find()
                if found.ok:
                    remove_worker_cgroup(self.name, found.mount)
