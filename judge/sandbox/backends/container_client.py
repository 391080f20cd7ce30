"""The container backend: one short-lived container per submission, through the Docker engine.

:class:`ContainerClient` implements :class:`judge.sandbox.boundary.contract.SandboxBackend`
like the process backend and returns the same :class:`~judge.sandbox.boundary.contract.RunReport`,
so :mod:`judge.grading.slots` turns it into statuses unchanged.  Per run it makes a
private directory on the host's tmpfs holding the request, a pre-sized results
file, a progress file and two output files, bind-mounts them one by one (with
a copy of the sealed inputs) into a container of the sandbox image (see the
Dockerfile's ``sandbox`` target), and runs :mod:`judge.sandbox.backends.container_entry` there.

The container gets: no network (``network_mode=none``), a memory limit with
no swap, a pids limit, a read-only root with a small tmpfs ``/tmp``, no IPC
namespace sharing, every capability dropped, no-new-privileges, uid 65534, and
an environment of a few harmless variables (nothing of the judge's).  The
engine's default seccomp profile applies, and the entry stacks the judge's own
deny-list on it.

Statuses come from the engine's records and the judge's own clock: the exit
code from ``wait`` (128+N read as signal N), ``State.OOMKilled``, and wall
limits the judge enforces by killing the container, per case from the
progress file and in total (the same :class:`~judge.sandbox.chain.watch.Watchdog`
as the process backend's supervisor, reading :mod:`judge.sandbox.boundary.progress`'s
layout).  Inside, the container runs the same sandbox init
(:func:`judge.sandbox.chain.supervisor.sandbox_init`), whose report of the learner's
wait status is decoded as the supervisor decodes it.  CPU time and memory peak
come from the cgroup the engine puts the container in, read by the process
backend's reader (:mod:`judge.sandbox.kernel.cgroups.counters`): each run's container
gets a fresh parent group of its own, whose counters outlive the container
and count that run alone.

What stays here and not in the process backend: the per-run host folder
(docker can bind-mount files, not the judge's memfds, so the sealed inputs are
copied once per input file and the results file is copied back into the
judge's result buffer), the container's creation and removal, and the
engine-specific reading of its end (``wait``, ``State.OOMKilled``, the log).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from judge.isolation_record import Isolation
from judge.sandbox.backends.container_entry import INPUTS, MOUNT_DIR, REPORT_MARKER, RUN_FILES
from judge.sandbox.boundary.contract import SANDBOX_UID, BackendError, Capture, Hello, RunReport, RunRequest
from judge.sandbox.boundary.progress import PAGE_BYTES, PHASE_SETUP, ProgressFile
from judge.sandbox.boundary.result_buffer import ResultBuffer, buffer_for
from judge.sandbox.chain.launch import START_ENV
from judge.sandbox.chain.supervisor import USAGE_FIELDS
from judge.sandbox.chain.watch import POLL_SECONDS, Watchdog
from judge.sandbox.kernel.cgroups.counters import EngineGroup
from judge.sandbox.modes import mode_named

if TYPE_CHECKING:
    from docker.models.containers import Container

DEFAULT_IMAGE = "numpy-judge:sandbox"
IMAGE_ENV = "JUDGE_CONTAINER_IMAGE"
LABEL = "numpy-judge.sandbox"
ENTRY = ["python3", "-I", "-m", "judge.sandbox.backends.container_entry"]
ENV = {**START_ENV, "HOME": "/tmp"}  # PATH is the image's (python3 is not in /usr/bin in every base image)
# What the interpreter, numpy and the harness use before learner code runs (measured ~35 MiB RSS).
BASELINE_BYTES = 96 << 20
TMP_BYTES = 16 << 20
START_GRACE_S = 20.0  # container start-up and imports, before the learner's clock starts


class ContainerError(BackendError):
    """The engine or the container failed (not the learner's code): an internal-error verdict."""


def default_image() -> str:
    return os.environ.get(IMAGE_ENV) or DEFAULT_IMAGE


def _capture(path: Path) -> Capture:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return Capture()
    try:
        return Capture.read(fd)
    finally:
        os.close(fd)


class ContainerClient:
    """Runs each request in a fresh container of ``image``; ``run`` is serialised per client."""

    streams_slots = False  #: the results file is copied into the buffer after the run, headers before data

    def __init__(self, image: str | None = None, run_root: str | None = None) -> None:
        try:
            import docker
        except ImportError as exc:
            raise ContainerError(
                "the container backend needs the 'docker' Python package (pip install docker)"
            ) from exc
        self.image = image or default_image()
        self.name = f"numpy-judge-{uuid.uuid4().hex[:12]}"
        self._lock = threading.Lock()
        self._closed = False
        self._runs = 0
        self._inputs: dict[str, str] = {}
        self._inputs_dir: str | None = None
        self.result_buffer: ResultBuffer | None = None
        self.run_root = run_root or os.environ.get("JUDGE_CONTAINER_RUN_ROOT") or \
            ("/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir())
        try:
            self._docker = docker.from_env(timeout=60)
            self._docker.ping()
            engine = self._docker.version()
            image_obj = self._docker.images.get(self.image)
            engine_info = self._docker.info()
        except docker.errors.ImageNotFound:
            raise ContainerError(f"the sandbox image {self.image!r} is not built "
                                 "(build it with: .ci/docker.sh build, or docker build --target sandbox -t "
                                 f"{self.image} .)") from None
        except docker.errors.DockerException as exc:
            raise ContainerError(f"no Docker engine reachable for the container backend: {exc}") from None
        # Each run's container goes under a fresh group <parent>/run-<k> (cgroupfs driver only: the
        # systemd driver takes slice names), so its counters are that run's alone.
        self._cgroup_parent: str | None = None
        self._cgroup_version = int(engine_info.get("CgroupVersion") or 1)
        if engine_info.get("CgroupDriver") == "cgroupfs":
            self._cgroup_parent = f"/{self.name}"
        mode = mode_named("container")
        self.isolation = Isolation(
            mode=mode.name, seccomp=True, limits_by="engine", not_enforced=mode.not_enforced(),
            **mode.isolation_fields(Hello(isolation=mode.name, limits_by="engine"), None),
            note=(f"one container per submission, image {self.image} ({image_obj.short_id}), "
                  f"Docker {engine.get('Version', '?')}: network none, read-only root, all capabilities "
                  "dropped, no-new-privileges, memory and pids limits, the engine's seccomp profile "
                  "plus the judge's deny-list"))
        self.info: dict = {
            "image": self.image,
            "image_id": image_obj.id,
            "engine": engine.get("Version"),
            "cgroup_parent": self._cgroup_parent,
        }

    #: Each run starts its own container: a cold start has nothing to begin early (judge.grading.run_plan).
    warm = False

    def result_buffer_for(self, size: int) -> ResultBuffer:
        return buffer_for(self, size)

    def retire(self) -> None:
        """No more runs: nothing to let finish alone (each run's container is removed after it)."""
        self._retired = True

    @property
    def retired(self) -> bool:
        return getattr(self, "_retired", False)

    # -- one run ------------------------------------------------------------
    def _prepare_dir(self, request: RunRequest) -> Path:
        run_dir = Path(tempfile.mkdtemp(prefix=f"{self.name}-", dir=self.run_root))
        os.chmod(run_dir, 0o711)

        def make(name: str, data: bytes = b"", size: int = 0, mode: int = 0o644) -> None:
            fd = os.open(run_dir / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
            try:
                if data:
                    os.write(fd, data)
                if size:
                    os.ftruncate(fd, size)
                os.fchmod(fd, mode)  # not narrowed by the umask: uid 65534 must open it
            finally:
                os.close(fd)

        make("request.json", json.dumps(request.to_wire()).encode())
        make("results", size=request.result_size, mode=0o666)
        make("progress", size=PAGE_BYTES, mode=0o666)
        make("stdout", mode=0o666)
        make("stderr", mode=0o666)
        return run_dir

    def _inputs_file(self, request: RunRequest, inputs_fd: int | None) -> str:
        """A host copy of the sealed input memfd, made once per input file and shared by its runs."""
        size = request.input_size or 0
        if inputs_fd is None or not size:
            key = "empty"
        else:
            st = os.fstat(inputs_fd)
            key = f"{st.st_dev}-{st.st_ino}-{size}"
        path = self._inputs.get(key)
        if path is not None and os.path.exists(path):
            return path
        if self._inputs_dir is None:
            self._inputs_dir = tempfile.mkdtemp(prefix=f"{self.name}-inputs-", dir=self.run_root)
            os.chmod(self._inputs_dir, 0o711)
        path = os.path.join(self._inputs_dir, key)
        fd = os.open(path + ".part", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            offset = 0
            while inputs_fd is not None and key != "empty" and offset < size:
                chunk = os.pread(inputs_fd, min(size - offset, 1 << 20), offset)
                if not chunk:
                    break
                os.write(fd, chunk)
                offset += len(chunk)
            os.fchmod(fd, 0o444)
        finally:
            os.close(fd)
        os.rename(path + ".part", path)
        self._inputs[key] = path
        return path

    def _create(self, request: RunRequest, run_dir: Path, inputs: str, group: EngineGroup | None) -> Container:
        from docker.types import LogConfig, Mount

        limits = request.limits
        memory = BASELINE_BYTES + limits.memory_bytes + request.result_size + request.input_size
        mounts = [Mount(f"{MOUNT_DIR}/{name}", str(run_dir / name), type="bind", read_only=name == "request.json")
                  for name in RUN_FILES]
        mounts.append(Mount(f"{MOUNT_DIR}/{INPUTS}", inputs, type="bind", read_only=True))
        kwargs = {}
        if group is not None:
            kwargs["cgroup_parent"] = "/" + group.path
        return self._docker.containers.create(
            self.image, ENTRY, entrypoint=[], user=f"{SANDBOX_UID}:{SANDBOX_UID}", environment=ENV,
            working_dir="/tmp", hostname="sandbox", network_mode="none", ipc_mode="none",
            mem_limit=memory, memswap_limit=memory, pids_limit=int(limits.max_processes) + 1,  # + the sandbox's init
            read_only=True, tmpfs={"/tmp": f"size={TMP_BYTES},mode=1777,nosuid,nodev"},
            cap_drop=["ALL"], security_opt=["no-new-privileges"], mounts=mounts,
            labels={LABEL: self.name}, stdin_open=False, tty=False, detach=True,
            log_config=LogConfig(type="json-file", config={"max-size": "256k", "max-file": "1"}),
            **kwargs)

    def _supervise(
        self, container: Container, request: RunRequest, progress: ProgressFile, report: RunReport
    ) -> int | None:
        """Wait for the container's end, killing it on a wall limit; returns the engine's exit code."""
        done = threading.Event()
        outcome: dict = {}

        def wait() -> None:
            try:
                outcome["status"] = container.wait()
            except Exception as exc:  # noqa: BLE001
                outcome["error"] = exc
            finally:
                done.set()

        waiter = threading.Thread(target=wait, daemon=True)
        waiter.start()
        started = time.monotonic_ns()
        start_deadline = started + int(START_GRACE_S * 1e9)
        watchdog = None  # started when the learner's phase begins: container start-up is not its time
        while not done.wait(POLL_SECONDS):
            now = time.monotonic_ns()
            position = progress.read()
            if watchdog is None and position[2] != PHASE_SETUP:
                watchdog = Watchdog(request, now)
            if watchdog is None:
                if now >= start_deadline:
                    report.setup_error = f"the container did not start within {START_GRACE_S:g} s"
            else:
                report.timed_out = watchdog.expired(now, position)
            if report.timed_out or report.setup_error:
                try:
                    container.kill()
                except Exception:  # noqa: BLE001 - it may have ended meanwhile
                    pass
                done.wait(30)
                break
        report.wall_ns = time.monotonic_ns() - (watchdog.start_ns if watchdog else started)
        waiter.join(30)
        if "status" not in outcome:
            raise ContainerError(f"lost the container: {outcome.get('error', 'no exit status')}")
        return outcome["status"].get("StatusCode")

    def run(self, request: RunRequest, inputs_fd: int | None) -> RunReport:
        if self._closed:
            raise ContainerError("the container client is closed")
        with self._lock:
            return self._run(request, inputs_fd)

    def _run(self, request: RunRequest, inputs_fd: int | None) -> RunReport:
        import docker

        self._runs += 1
        run_dir = self._prepare_dir(request)
        group = EngineGroup(f"{self._cgroup_parent}/run-{self._runs}", self._cgroup_version) \
            if self._cgroup_parent else None
        container = None
        report = RunReport()
        started = time.monotonic_ns()
        try:
            try:
                container = self._create(request, run_dir, self._inputs_file(request, inputs_fd), group)
                container.start()
            except docker.errors.DockerException as exc:
                raise ContainerError(f"could not start the sandbox container: {exc}") from None
            progress = ProgressFile(str(run_dir / "progress"))
            try:
                code = self._supervise(container, request, progress, report)
                case, _, phase = progress.read()
            finally:
                progress.close()
            try:
                container.reload()
                state = container.attrs.get("State", {})
            except docker.errors.DockerException:
                state = {}
            oom = bool(state.get("OOMKilled"))
            report.last_case = case
            init = self._init_report(container)
            if "wait_status" in init and not report.timed_out:
                report.set_wait_status(int(init["wait_status"]))
                report.update({key: int(init.get(key) or 0) for key in USAGE_FIELDS})
            elif report.timed_out or oom or (code is not None and 128 < code < 128 + 65):
                report.signal = signal.SIGKILL if report.timed_out or code is None or code <= 128 else code - 128
            else:
                report.exit_code = code
            if init.get("setup_error"):
                report.setup_error = str(init["setup_error"])
            elif phase == PHASE_SETUP and "wait_status" not in init and not report.timed_out \
                    and not report.setup_error and not oom:
                report.setup_error = (f"the sandbox container ended during setup (status {code}): "
                                      f"{init.get('log', '')}").strip()
            counters = group.snapshot() if group else None
            report.oom_kills = int(oom)
            report.pids_refused = None  # the engine's pids limit is on the container's own group, gone by now
            report.cpu_ns = counters.cpu_ns if counters else None
            report.memory_peak = counters.memory_peak if counters else None
            report.stdout = _capture(run_dir / "stdout")
            report.stderr = _capture(run_dir / "stderr")
            if self.result_buffer is None:
                raise BackendError("run() before result_buffer_for(size)")
            self._copy_results(run_dir / "results", self.result_buffer.fd, request.result_size)
            report.elapsed_ns = time.monotonic_ns() - started
            return report
        finally:
            if container is not None:
                try:
                    container.remove(force=True)
                except docker.errors.NotFound:
                    pass
                except docker.errors.DockerException:
                    self._remove_labelled()
            if group is not None:
                group.remove()
            shutil.rmtree(run_dir, ignore_errors=True)

    @staticmethod
    def _init_report(container: Container) -> dict:
        """The sandbox init's report line from the engine's log (only the init holds that stream)."""
        import docker

        try:
            log = container.logs(stdout=True, stderr=True, tail=50).decode("utf-8", errors="replace")
        except docker.errors.DockerException:
            return {}
        for line in reversed(log.splitlines()):
            if line.startswith(REPORT_MARKER):
                try:
                    report = json.loads(line[len(REPORT_MARKER):])
                except ValueError:
                    break
                return report if isinstance(report, dict) else {}
        return {"log": log[-1000:]}

    @staticmethod
    def _copy_results(path: Path, result_fd: int, size: int) -> None:
        """The written parts of the results file's first ``size`` bytes into the judge's fresh (zero) memfd.

        Holes (slots never written) are skipped with SEEK_DATA/SEEK_HOLE, so a
        100 MB results region costs only what the learner's process wrote.
        """
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            end = min(size, os.fstat(fd).st_size)
            offset = 0
            while offset < end:
                try:
                    start = os.lseek(fd, offset, os.SEEK_DATA)
                    stop = min(os.lseek(fd, start, os.SEEK_HOLE), end)
                except OSError:  # ENXIO: no data past offset
                    break
                while start < stop:
                    chunk = os.pread(fd, min(stop - start, 1 << 20), start)
                    if not chunk:
                        break
                    os.pwrite(result_fd, chunk, start)
                    start += len(chunk)
                offset = stop
        finally:
            os.close(fd)

    def _remove_labelled(self) -> None:
        try:
            for c in self._docker.containers.list(all=True, filters={"label": f"{LABEL}={self.name}"}):
                c.remove(force=True)
        except Exception:  # noqa: BLE001
            pass

    # -- lifecycle ----------------------------------------------------------
    @property
    def pid(self) -> None:
        return None

    def alive(self) -> bool:
        return not self._closed

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._lock:
            if self.result_buffer is not None:
                self.result_buffer.close()
                self.result_buffer = None
            self._remove_labelled()
            if self._cgroup_parent is not None:
                EngineGroup(self._cgroup_parent, self._cgroup_version).remove()
            if self._inputs_dir is not None:
                shutil.rmtree(self._inputs_dir, ignore_errors=True)
            try:
                self._docker.close()
            except Exception:  # noqa: BLE001
                pass
