"""``Judge``: the warm grading engine behind the Python API, the CLI and the service.

It keeps, per bundle version, the prepared inputs and expected outputs, and a
pool of warm zygotes; a verdict is one static check, one sandboxed run of all
cases, and the comparisons in this process.
"""

from __future__ import annotations

import os
import platform
import queue
import threading
import time
from pathlib import Path

import numpy as np

from judge._version import __version__
from judge.capture import attach_output
from judge.errors import JudgeError
from judge.diagnosis import explain_safely
from judge.outcome import judge_cases, resources
from judge.prepared import PreparedProblem, bundle_mtimes, prepare
from judge.result_buffer import buffer_for
from judge.problem.loader import Bundle, load_problem, resolve
from judge.sandbox.capabilities import choose_isolation
from judge.sandbox.client import ZygoteClient, ZygoteError
from judge.static_check import check_source, decode_source
from judge.verdict import CapturedOutput, CaseResult, Isolation, Status, Verdict

OUTPUT_KEEP = 16 << 10
_NAMESPACES = ["pid", "mount", "network", "ipc", "uts"]


def _captured(capture: dict) -> CapturedOutput:
    text = capture.get("text", "")
    size = capture.get("bytes", len(text))
    if len(text) > OUTPUT_KEEP:
        text = text[:OUTPUT_KEEP]
    return CapturedOutput(text=text, bytes=size, truncated=size > len(text.encode()))


class Judge:
    """Grades submissions; reusable and thread-safe.  Use as a context manager.

    ``unsafe_no_sandbox`` allows running learner code without isolation on a
    machine that cannot isolate; the verdict then records ``isolation.mode ==
    "none"``.
    """

    def __init__(self, workers: int = 1, unsafe_no_sandbox: bool = False, backend: str = "process",
                 image: str | None = None) -> None:
        if backend not in ("process", "container"):
            raise JudgeError(f"unknown sandbox backend {backend!r} (choose process or container)")
        self.backend = backend
        self.image = image
        if backend == "container":
            self.isolation_mode, self.isolation_note = "container", ""
        else:
            self.isolation_mode, self.isolation_note = choose_isolation(unsafe_no_sandbox)
        self._workers = max(1, workers)
        self._pool: queue.Queue[ZygoteClient] = queue.Queue()
        self._started = 0
        self._lock = threading.Lock()
        self._prepared: dict[Path, PreparedProblem] = {}
        self._closed = False

    # -- problems -----------------------------------------------------------
    def problem(self, problem: str | Path) -> PreparedProblem:
        """The prepared bundle, rebuilt when any of its files changed."""
        root = resolve(problem)
        with self._lock:
            current = self._prepared.get(root)
            if current is not None and current.mtimes == bundle_mtimes(root):
                return current
            prepared = prepare(load_problem(root))
            if current is not None:
                current.close()
            self._prepared[root] = prepared
            return prepared

    # -- zygotes ------------------------------------------------------------
    def _new_worker(self) -> ZygoteClient:
        """A sandbox worker: a warm zygote, or a container launcher with the same interface."""
        if self.backend == "container":
            from judge.sandbox.container import ContainerClient

            return ContainerClient(image=self.image)
        return ZygoteClient(self.isolation_mode, f"w{os.getpid()}-{self._started}-{id(self) & 0xffff:x}")

    def _acquire(self) -> ZygoteClient:
        with self._lock:
            if self._pool.empty() and self._started < self._workers:
                self._started += 1
                try:
                    return self._new_worker()
                except Exception:
                    self._started -= 1
                    raise
        return self._pool.get()

    @staticmethod
    def _close_worker(zygote: ZygoteClient) -> None:
        zygote.close()
        buffer = getattr(zygote, "result_buffer", None)
        if buffer is not None:
            buffer.close()

    def _release(self, zygote: ZygoteClient) -> None:
        if zygote.alive() and not self._closed:
            self._pool.put(zygote)
        else:
            self._close_worker(zygote)
            with self._lock:
                self._started -= 1

    def start(self) -> None:
        """Launch every worker now, without waiting for them to be ready (overlaps the judge's own start-up)."""
        started = [self._acquire() for _ in range(self._workers - self._started)]
        for z in started:
            self._release(z)

    def warm_up(self) -> None:
        """Start every worker and wait until each is ready to run a submission."""
        started = [self._acquire() for _ in range(self._workers)]
        for z in started:
            z.info  # noqa: B018 - blocks until the zygote has said hello
            self._release(z)

    # -- grading ------------------------------------------------------------
    def _verdict(self, bundle: Bundle, status: Status, **fields) -> Verdict:
        return Verdict(status=status, problem=bundle.id, problem_digest=bundle.digest,
                       judge_version=__version__, numpy_version=np.__version__,
                       python_version=platform.python_version(), score=fields.pop("score", 0.0), **fields)

    def _isolation(self, zygote: ZygoteClient) -> Isolation:
        if self.isolation_mode == "container":
            return Isolation(**zygote.info["isolation"])
        if self.isolation_mode == "full":
            return Isolation(mode="full", namespaces=_NAMESPACES, cgroup=zygote.info.get("cgroup"),
                             seccomp=True, uid=65534, note=self.isolation_note)
        return Isolation(mode="none", note=self.isolation_note)

    def grade(self, source: str | bytes, problem: str | Path = "sinusoidal-pe",
              pictures_dir: str | Path | None = None) -> Verdict:
        """Grade one submission.  Raises :class:`JudgeError` only for problems with the bundle itself.

        ``pictures_dir``: render PNGs of failing public cases there (``verdict.pictures`` names the files)."""
        started = time.perf_counter()
        prepared = self.problem(problem)
        bundle = prepared.bundle
        spec = bundle.spec
        text, issue = decode_source(source, spec.limits.source_kib * 1024)
        if issue is None and text is not None:
            issue = check_source(text, [f.name for f in spec.functions], spec.imports.allowed)
        if issue is not None or text is None:
            return self._verdict(bundle, Status.COMPILE_ERROR, message=issue.message if issue else "",
                                 judged_in_ms=(time.perf_counter() - started) * 1e3)
        try:
            verdict = self._run(prepared, text, pictures_dir)
        except (ZygoteError, OSError) as exc:
            verdict = self._verdict(bundle, Status.INTERNAL_ERROR, message=f"the sandbox failed: {exc}")
        except JudgeError:
            raise
        except Exception as exc:  # noqa: BLE001 - a judge bug is the judge's verdict, never the caller's crash
            verdict = self._verdict(bundle, Status.INTERNAL_ERROR,
                                    message=f"internal error in the judge: {type(exc).__name__}: {exc}")
        verdict.judged_in_ms = (time.perf_counter() - started) * 1e3
        return verdict

    def _run(self, prepared: PreparedProblem, source: str, pictures_dir: str | Path | None = None) -> Verdict:
        bundle = prepared.bundle
        limits = bundle.spec.limits
        request = {
            "source": source, "calls": prepared.call_specs, "input_size": prepared.inputs.size,
            "result_size": prepared.result_size,
            "limits": {"cpu_seconds": limits.cpu_seconds, "wall_seconds": limits.wall_seconds,
                       "memory_bytes": limits.memory_mib << 20, "max_processes": limits.processes,
                       "output_bytes": limits.output_kib << 10},
        }
        zygote = self._acquire()
        try:
            buffer = buffer_for(zygote, prepared.result_size)
            buffer.clear(prepared.slot_offsets)
            fds = [buffer.fd] + ([prepared.inputs.fd] if prepared.inputs.fd is not None else [])
            reply = zygote.run(request, fds)
            isolation = self._isolation(zygote)
            if "error" in reply:
                return self._verdict(bundle, Status.INTERNAL_ERROR, message=f"the sandbox failed: {reply['error']}")
            setup_error = reply.get("supervisor", {}).get("setup_error")
            if setup_error:
                return self._verdict(bundle, Status.INTERNAL_ERROR, isolation=isolation,
                                     message=f"the sandbox could not be set up: {setup_error.strip().splitlines()[-1]}")
            # The worker stays ours until its results are judged: the next run reuses the buffer.
            observed: dict = {}
            spans: dict = {}
            cases, killed_for = judge_cases(prepared, reply, buffer.map, observed, spans)
        finally:
            self._release(zygote)
        verdict = self._assemble(bundle, cases, reply, killed_for, isolation)
        verdict.load_output = attach_output(verdict.cases, reply.get("stdout", {}), reply.get("stderr", {}), spans)
        explain_safely(verdict, prepared, observed, source)
        if pictures_dir is not None:
            from judge.pictures import render_pictures_safely

            verdict.pictures = render_pictures_safely(verdict, prepared, observed, pictures_dir)
        return verdict

    def _assemble(self, bundle: Bundle, cases: list[CaseResult], reply: dict, killed_for: str | None,
                  isolation: Isolation) -> Verdict:
        failing = next((c for c in cases if c.status is not Status.ACCEPTED), None)
        status = failing.status if failing else Status.ACCEPTED
        total = sum(c.weight for c in cases) or 1.0
        score = sum(c.weight for c in cases if c.status is Status.ACCEPTED) / total
        message = ""
        if failing is not None:
            label = failing.id if failing.visibility == "public" else f"{failing.id} (hidden)"
            message = f"first failing case {label}: {failing.message}"
        return self._verdict(bundle, status, score=round(score, 6), cases=cases, message=message,
                             stdout=_captured(reply.get("stdout", {})), stderr=_captured(reply.get("stderr", {})),
                             resources=resources(reply, killed_for), isolation=isolation)

    # -- lifecycle ----------------------------------------------------------
    def close(self) -> None:
        self._closed = True
        while not self._pool.empty():
            self._close_worker(self._pool.get())
        with self._lock:
            for prepared in self._prepared.values():
                prepared.close()
            self._prepared.clear()

    def __enter__(self) -> "Judge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def grade(source: str | bytes, problem: str | Path = "sinusoidal-pe", unsafe_no_sandbox: bool = False) -> Verdict:
    """Grade one submission with a short-lived judge (start-up included)."""
    with Judge(unsafe_no_sandbox=unsafe_no_sandbox) as judge:
        return judge.grade(source, problem)


__all__ = ["Judge", "grade", "JudgeError"]
