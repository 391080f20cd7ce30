"""What an isolation mode is: the hooks the judge, the zygote, the supervisor and the sandbox's init call.

A mode's class is used in four processes, each through its own hooks:

- the judge: :meth:`Mode.check` (can this machine give it?), :meth:`Mode.before_spawn`, :meth:`Mode.cells`
  and :meth:`Mode.isolation_fields` (what a verdict says), :meth:`Mode.remove_worker_group` (after a zygote);
- the zygote, which makes one instance and keeps it, with whatever state the mode needs across runs:
  :meth:`Mode.start_zygote`, :meth:`Mode.before_run`, :meth:`Mode.after_run`, :meth:`Mode.finish_zygote`;
- the sandbox's init and the learner's process: :meth:`Mode.become` and :meth:`Mode.become_learner`;
- the supervisor, after the run: :meth:`Mode.clean_up`.

The defaults below are a process-backend mode with nothing special to do; each mode overrides what it needs.

``Policy`` (how a zygote's runs are isolated) lives here, not in the supervisor that follows it: the zygote, the
supervisor, the container's entry and the modes' hooks all name it, and the modes import nothing of the chain
that calls them (``Zygote`` below is the zygote as its hooks see it, a protocol).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol

if TYPE_CHECKING:
    from judge.sandbox.boundary.contract import Hello, RunReport, RunRequest
    from judge.sandbox.chain.background import InBackground
    from judge.sandbox.kernel.cgroups.interface import WorkerCgroup
    from judge.sandbox.kernel.lockdown import ChildLimits
    from judge.sandbox.kernel.rootfs import RootPlan
    from judge.sandbox.kernel.seccomp import DenyListFilter
    from judge.sandbox.modes.guarantees import Cell


@dataclass
class Policy:
    """How the zygote's runs are isolated; fixed when the zygote starts (mode reduced's uid may change)."""

    mode: Mode  #: the isolation mode (judge.sandbox.modes): how the init becomes isolated, what is cleaned up
    plan: RootPlan | None = None  #: the new root (full, rootless)
    seccomp: DenyListFilter | None = None  #: every mode but none
    uid: int | None = None  #: reduced: the uid of this zygote's runs
    workdir: str | None = None  #: reduced: the run's private folder (HOME, TMPDIR, cwd)
    memory_watch: bool = False  #: no cgroup: RLIMIT_AS + the supervisor's memory watch
    own_uid_count: bool = False  #: RLIMIT_NPROC counts only the run (reduced, rootless)
    landlock_abi: int = 0  #: reduced: the kernel's Landlock ABI (0: none; see judge.sandbox.kernel.landlock)
    landlock_rules: list = field(default_factory=list)  #: reduced: (O_PATH fd, rights) of the run's file view
    shared_folders: tuple[str, ...] = ()  #: reduced: folders the uid could write, swept after each run
    workdir_parent: str | None = None  #: reduced: where each run's private folder is made
    workdir_in_memory: bool = False  #: reduced: that folder is on tmpfs, so its files count as memory


class Zygote(Protocol):
    """What a mode's zygote hooks read and change of the zygote (:class:`judge.sandbox.chain.zygote.Zygote`),
    as a protocol: the modes are called by the chain and so do not import it, hints included."""

    name: str  #: its worker cgroup's name
    joining: InBackground | None  #: mode full: the worker cgroup join begun before numpy's import
    cgroup: WorkerCgroup | None
    cgroup_home: str | None  #: mode full: /proc/self/cgroup before joining
    notes: list[str]
    policy: Policy


@dataclass(frozen=True)
class Rung:
    """Whether this machine can give a mode now, and what it rests on (or why not)."""

    mode: str
    ok: bool
    why: str


class Mode:
    """One isolation mode.  Class attributes say what it is; methods are the hooks above."""

    name: ClassVar[str]
    #: Its runs get pid, mount, network, IPC and UTS namespaces of their own.
    namespaced: ClassVar[bool] = False
    #: False only for trusted code (mode none): the learner runs as the judge's user.
    sandboxed: ClassVar[bool] = True
    #: The ladder tries it when no mode is demanded.
    automatic: ClassVar[bool] = False
    #: How its runs are started: "process" (a warm zygote forks each one,
    #: :mod:`judge.sandbox.backends.zygote_client`) or
    #: "engine" (a container engine starts each one, :mod:`judge.sandbox.backends.container_client`).
    backend: ClassVar[str] = "process"
    #: The zygote joins its worker cgroup in a thread while it imports numpy (:mod:`judge.sandbox.chain.zygote_boot`).
    joins_cgroup_early: ClassVar[bool] = False

    # -- the judge's side ------------------------------------------------------------------------
    def check(self) -> Rung:
        """Whether this machine can give the mode now (a real attempt in a throw-away child where it matters)."""
        raise NotImplementedError

    def before_spawn(self) -> None:
        """In the judge, before a zygote of this mode is started."""

    def cells(self, landlock: bool = True) -> dict[str, Cell]:
        """Its column of the guarantee table, as a run had it (``landlock``: whether Landlock confined it)."""
        from judge.sandbox.modes.guarantees import TABLE

        return dict(TABLE[self.name])

    def not_enforced(self, landlock: bool = True) -> list[str]:
        """The rows of the guarantee table this mode does not enforce (``Isolation.not_enforced``)."""
        return [row for row, cell in self.cells(landlock).items() if not cell.enforced]

    def isolation_fields(self, hello: Hello, last_uid: int | None) -> dict:
        """What a verdict's ``Isolation`` says beyond mode, seccomp, limits and notes: namespaces, uid, cgroup.
        ``hello``: the zygote's (updated after each run); ``last_uid``: the uid the last run ran as."""
        return {}

    def remove_worker_group(self, name: str, hello: Hello | None, returncode: int | None) -> None:
        """After a zygote exited: remove its worker cgroup if it could not remove it itself."""

    # -- the zygote's side ------------------------------------------------------------------------
    def start_zygote(self, zygote: Zygote) -> None:
        """Ready the zygote (its cgroup, its namespace, its uid): runs once, before numpy is frozen in its heap.
        Without a memory cgroup, sets ``zygote.policy.memory_watch`` (rlimits + the supervisor's watch)."""
        zygote.policy.memory_watch = True

    def before_run(self, zygote: Zygote, request: RunRequest) -> None:
        """In the zygote, before a run is forked."""

    def after_run(self, zygote: Zygote, report: RunReport) -> None:
        """In the zygote, once the run and its clean-up are over (``report`` says what was left)."""

    def finish_zygote(self, zygote: Zygote) -> None:
        """The judge let the zygote go: give back what the mode holds."""

    # -- the run's side ---------------------------------------------------------------------------
    def become(self, policy: Policy, limits: ChildLimits) -> None:
        """In the sandbox's init: isolate it, in this mode's order of steps (:mod:`judge.sandbox.kernel.lockdown`)."""
        raise NotImplementedError

    def become_learner(self, policy: Policy, limits: ChildLimits) -> None:
        """In the learner's process, right after the init forked it, before its code is loaded."""

    def clean_up(self, policy: Policy, report: RunReport, proc: int | None) -> None:
        """In the supervisor, after the run: end every process the run left (the supervisor is their subreaper).
        Only pids are read; nothing of the learner enters the zygote."""
        from judge.sandbox.kernel import leftovers

        left, stuck = leftovers.kill_descendants(proc=proc)
        report.processes_left, report.processes_stuck = left, len(stuck)
