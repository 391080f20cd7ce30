"""The one contract between the judge and a sandbox backend: what a run asks, what it reports.

Every backend (the warm process backend in any isolation mode, the Docker
container backend, the fake that replays stored reports) takes a
:class:`RunRequest` and gives back a :class:`RunReport`; :class:`SandboxBackend`
is the whole interface the judge relies on.  Requests and reports cross process
boundaries as JSON (``to_wire`` / ``from_wire``): new fields get defaults, so a
report written by an older backend still reads.

The report is documented field by field, the way isolate documents its meta
file: each field says who measured it.  *Kernel* fields come from wait4(2),
/proc or cgroup counters read by the trusted supervisor or backend; nothing in
a report comes from the learner's process, which only writes result slots
(see :mod:`judge.sandbox.boundary.wire`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:  # the zygote imports this module: it must not load pydantic and the verdict models
    from judge.isolation_record import Isolation
    from judge.sandbox.boundary.result_buffer import ResultBuffer

# -- constants every backend shares (defined here once) ----------------------
#: The uid (and gid) learner code runs as in the full, rootless and container modes.
SANDBOX_UID = 65534
#: The init's exit code when isolation could not be set up (learner code never ran).
SETUP_FAILED_EXIT = 121
#: The namespaces the full and rootless modes (and Docker) give each run, by their usual names.
NAMESPACES: tuple[str, ...] = ("pid", "mount", "network", "ipc", "uts")

IsolationMode = Literal["full", "rootless", "reduced", "container", "none"]
#: Best first: the order the judge tries modes in when none is demanded.
LADDER: tuple[str, ...] = ("full", "rootless", "reduced", "container", "none")
TimedOut = Literal["case", "total"]
#: How much of each output stream a backend reads back into its report (the rest is only counted).
CAPTURE_BYTES = 64 << 10


@dataclass(frozen=True)
class RunLimits:
    """Limits of one run, all cases together unless said otherwise (from the bundle)."""

    cpu_seconds: float  #: CPU time of the learner's process (RLIMIT_CPU; cgroup accounting)
    wall_seconds: float  #: total wall time, on the supervisor's clock (per-case limits ride on the calls)
    memory_bytes: int  #: memory the learner may add over the warm interpreter's own
    max_processes: int  #: processes and threads the learner may have at once
    output_bytes: int  #: stdout, stderr and any one file (RLIMIT_FSIZE)


@dataclass(frozen=True)
class ArrayRef:
    """Where an array argument lies in the sealed input file, as the harness views it (read-only, or a private
    copy-on-write view for inputs the call may write)."""

    offset: int  #: the first element's byte offset in the input file
    nbytes: int  #: bytes of the logical array
    dtype: str  #: numpy's dtype string (``<f8``)
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    readonly: bool  #: the case's layout is read-only: writing raises, as the bundle says
    region: int  #: the start of the bytes the array spans (for the changed-input check)

    def to_wire(self) -> dict:
        return {**asdict(self), "shape": list(self.shape), "strides": list(self.strides)}

    @classmethod
    def from_wire(cls, data: dict) -> ArrayRef:
        return cls(offset=int(data["offset"]), nbytes=int(data["nbytes"]), dtype=str(data["dtype"]),
                   shape=tuple(int(n) for n in data["shape"]), strides=tuple(int(n) for n in data["strides"]),
                   readonly=bool(data.get("readonly")), region=int(data["region"]))


@dataclass(frozen=True)
class ArgSpec:
    """One argument of a call: a JSON scalar, or an array in the input file."""

    name: str
    scalar: Any = None
    array: ArrayRef | None = None

    def to_wire(self) -> list:
        return [self.name, {"array": self.array.to_wire()} if self.array is not None else {"scalar": self.scalar}]

    @classmethod
    def from_wire(cls, data: list) -> ArgSpec:
        name, spec = data
        if "array" in spec:
            return cls(str(name), array=ArrayRef.from_wire(spec["array"]))
        return cls(str(name), scalar=spec["scalar"])


@dataclass(frozen=True)
class Call:
    """One call the harness makes: a case's function with its arguments, where its result goes, its time."""

    case: int  #: the case's index in the bundle
    function: str
    args: tuple[ArgSpec, ...]
    slot_offset: int  #: where its result slot starts in the result buffer
    slot_capacity: int  #: bytes of array data the slot holds
    wall_seconds: float  #: the call's own wall-time limit
    #: what the function returns: array, scalar or tuple:<k> (:mod:`judge.sandbox.boundary.outputs`)
    returns: str = "array"

    def to_wire(self) -> dict:
        wire = {"case": self.case, "function": self.function, "args": [a.to_wire() for a in self.args],
                "slot_offset": self.slot_offset, "slot_capacity": self.slot_capacity,
                "wall_seconds": self.wall_seconds}
        if self.returns != "array":  # the default stays off the wire: stored runs' keys hash it
            wire["returns"] = self.returns
        return wire

    @classmethod
    def from_wire(cls, data: dict) -> Call:
        return cls(case=int(data["case"]), function=str(data["function"]),
                   args=tuple(ArgSpec.from_wire(a) for a in data["args"]), slot_offset=int(data["slot_offset"]),
                   slot_capacity=int(data["slot_capacity"]), wall_seconds=float(data["wall_seconds"]),
                   returns=str(data.get("returns", "array")))


@dataclass(frozen=True)
class RunRequest:
    """One submission's run: its source, the calls to make, where inputs and results live."""

    source: str  #: the learner's file, already decoded and statically checked
    calls: tuple[Call, ...]  #: one per case, in the bundle's order
    input_size: int  #: bytes of the sealed input file (0: no array inputs)
    result_size: int  #: bytes of the result buffer the slots live in
    limits: RunLimits
    #: Paths the run must not reach (the bundle, the judge's cache, a checkout's history): a mode without a root
    #: of its own hides them from the run's uid; the others have no path to them anyway.
    hide: tuple[str, ...] = ()

    def to_wire(self) -> dict:
        return {"source": self.source, "calls": [c.to_wire() for c in self.calls], "input_size": self.input_size,
                "result_size": self.result_size, "limits": asdict(self.limits), "hide": list(self.hide)}

    def without_source(self) -> tuple[dict, bytes]:
        """The wire form with an empty ``source``, and the source's UTF-8 bytes: what a warm backend sends
        its zygote (the bytes go in a sealed memfd that only the run's own processes read, see
        :mod:`judge.sandbox.chain.zygote`)."""
        return {**self.to_wire(), "source": ""}, self.source.encode("utf-8")

    @classmethod
    def from_wire(cls, data: dict) -> RunRequest:
        return cls(source=data.get("source", ""), calls=tuple(Call.from_wire(c) for c in data["calls"]),
                   input_size=int(data["input_size"]),
                   result_size=int(data["result_size"]), limits=RunLimits(**data["limits"]),
                   hide=tuple(data.get("hide", ())))


@dataclass(frozen=True)
class Hello:
    """What a zygote says when it is ready, and again after each run (mode reduced may take a new uid, and
    notes accumulate): how its runs are isolated, as every verdict will describe it."""

    isolation: str  #: the mode's name
    limits_by: str  #: "cgroup" or "rlimits"
    cgroup: str | None = None  #: the worker cgroup, described (modes full, rootless with a delegated group)
    seccomp_denied: int = 0  #: system calls the deny-list refuses
    uid: int | None = None  #: the uid of the next run (mode reduced)
    landlock: int = 0  #: the Landlock ABI confining its runs' files (mode reduced; 0: none)
    notes: tuple[str, ...] = ()
    pid: int = 0
    #: Once let go, it ends its processes and removes its worker group by itself: nothing need wait for it.
    finishes_alone: bool = False

    def to_wire(self) -> dict:
        return {**asdict(self), "notes": list(self.notes)}

    @classmethod
    def from_wire(cls, data: dict) -> Hello:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["notes"] = tuple(str(n) for n in values.get("notes", ()))
        return cls(**values)


@dataclass
class Capture:
    """The head of one output stream and its full size (the stream itself is capped by RLIMIT_FSIZE)."""

    text: str = ""
    bytes: int = 0

    @classmethod
    def read(cls, fd: int) -> Capture:
        """The first CAPTURE_BYTES of a capture file (decoded, invalid UTF-8 replaced) and its full size.

        Every backend reads its capture files with this, so the judge's per-call split
        (:mod:`judge.grading.capture`) can rely on one read-back length."""
        size = os.fstat(fd).st_size
        head = os.pread(fd, CAPTURE_BYTES, 0)
        return cls(text=head.decode("utf-8", errors="replace"), bytes=size)


@dataclass
class RunReport:
    """What a backend saw of one run.  Field by field (``None``: not measured by this backend):

    ``exit_code``      exit status of the learner's process (wait4 by the sandbox's init or the engine)
    ``signal``         signal that ended the learner's process (wait4; SIGKILL when the judge killed it)
    ``wall_ns``        wall time from start to end on the supervisor's monotonic clock
    ``user_ns``        user CPU of the learner's processes (wait4 rusage, waited-for descendants included)
    ``sys_ns``         system CPU, likewise
    ``maxrss_kib``     largest resident set of any learner process (wait4 rusage; VmHWM polled)
    ``timed_out``      "case" or "total" when the supervisor killed for wall time, else None
    ``last_case``      the case the progress page named last (-1: none; only moves blame between cases)
    ``setup_error``    why isolation could not be set up; learner code never ran
    ``cpu_ns``         CPU of the whole run from the cgroup (cpuacct / cpu.stat); None without a cgroup
    ``memory_peak``    peak memory over the warm baseline, bytes (cgroup peak, or polled VmHWM)
    ``oom_kills``      kernel OOM kills in the run's cgroup (or the engine's OOMKilled)
    ``memory_killed``  the supervisor killed the run because a learner process's resident set (VmRSS,
                       read from /proc) passed the limit: the rlimits modes' OOM kill
    ``pids_refused``   forks the cgroup's pids.max refused (None under RLIMIT_NPROC, which keeps no count)
    ``processes_left`` processes killed after the run (cgroup.procs, or the sandbox uid's processes)
    ``processes_stuck`` processes of the run still alive after SIGKILL (uninterruptible sleep, e.g. a ``sync()``
                       of a large write): left to the kernel; mode reduced gives the uid up until they end
    ``files_left``     files of the run the clean-up's budget did not reach (mode reduced)
    ``uid``            the uid the learner's processes ran as, where the backend chooses it per zygote (reduced)
    ``stdout``         head and size of the learner's standard output
    ``stderr``         head and size of its standard error
    ``elapsed_ns``     the backend's own time for the run, set-up and clean-up included
    ``error``          the backend failed (not the learner): the judge reports an internal error
    """

    exit_code: int | None = None
    signal: int | None = None
    wall_ns: int = 0
    user_ns: int = 0
    sys_ns: int = 0
    maxrss_kib: int = 0
    timed_out: TimedOut | None = None
    last_case: int = -1
    setup_error: str | None = None
    cpu_ns: int | None = None
    memory_peak: int | None = None
    oom_kills: int = 0
    memory_killed: bool = False
    pids_refused: int | None = None
    processes_left: int = 0
    processes_stuck: int = 0
    files_left: int = 0
    uid: int | None = None
    stdout: Capture = field(default_factory=Capture)
    stderr: Capture = field(default_factory=Capture)
    elapsed_ns: int = 0
    error: str | None = None

    def to_wire(self) -> dict:
        return asdict(self)

    @classmethod
    def from_wire(cls, data: dict) -> RunReport:
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {k: v for k, v in data.items() if k in known}
        for name in ("stdout", "stderr"):
            if isinstance(values.get(name), dict):
                values[name] = Capture(**values[name])
        return cls(**values)

    def update(self, data: dict) -> None:
        """Copy the known fields of ``data`` (e.g. a supervisor's JSON report) into this report."""
        for key, value in RunReport.from_wire(data).__dict__.items():
            if key in data:
                setattr(self, key, value)

    def set_wait_status(self, status: int) -> None:
        """``exit_code`` or ``signal`` from a wait(2) status (the other one None): one decoding
        for the supervisor's and the container backend's view of the learner's end."""
        if os.WIFSIGNALED(status):
            self.signal, self.exit_code = os.WTERMSIG(status), None
        else:
            self.signal, self.exit_code = None, os.WEXITSTATUS(status)

    @property
    def cpu_seconds(self) -> float:
        """CPU time of the run: the larger of the cgroup's total and the learner's rusage."""
        return max(self.user_ns + self.sys_ns, self.cpu_ns or 0) / 1e9


@runtime_checkable
class SandboxBackend(Protocol):
    """A place learner code runs.  One run at a time per backend; the judge pools several.

    A backend owns the shared memory its runs write results into (``result_buffer_for``),
    so the judge never passes buffers around: it clears the slots, calls ``run``, then
    reads the same buffer.
    """

    #: Whether each slot's header becomes visible only after its array bytes while the run goes on (the
    #: harness writes them straight into the shared buffer): the judge then judges each slot as soon as it
    #: is written (:class:`judge.grading.slots.CaseJudging`).  False for a backend that fills the buffer after the
    #: run, in file order (headers before their data): its slots are judged once the run is over.
    streams_slots: bool

    @property
    def isolation(self) -> Isolation:
        """How this backend isolates runs (goes into every verdict).  May wait for start-up."""

    def result_buffer_for(self, size: int) -> ResultBuffer:
        """The buffer runs write their result slots into, at least ``size`` bytes."""

    def run(self, request: RunRequest, inputs_fd: int | None) -> RunReport:
        """Run ``request`` against the sealed input file ``inputs_fd``; raise BackendError if the
        backend itself broke (the learner's failures are in the report)."""

    #: A warm backend waits for runs (a zygote): a cold start may send its first run as soon as it is ready.
    warm: bool

    @property
    def retired(self) -> bool:
        """True once :meth:`retire` was called: no run will come, its buffer need not be readied for one."""

    def retire(self) -> None:
        """No more runs will come: :meth:`close` may let the backend finish on its own after the verdict."""

    def alive(self) -> bool:
        """False once the backend cannot run anything more (the judge then replaces it)."""

    def close(self) -> None:
        """Stop the backend and free what it holds (its result buffer included)."""


#: What the judge is given instead of a mode string: makes one backend per pool slot.
BackendFactory = Callable[[int], SandboxBackend]


class BackendError(RuntimeError):
    """The sandbox backend failed (not the learner's code): the verdict is an internal error."""
