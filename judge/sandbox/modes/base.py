"""What an isolation mode is: the hooks the judge, the zygote, the supervisor and the sandbox's init call.

A mode's class is used in four processes, each through its own hooks:

- the judge: :meth:`Mode.check` (can this machine give it?), :meth:`Mode.before_spawn`, :meth:`Mode.cells`
  and :meth:`Mode.isolation_fields` (what a verdict says), :meth:`Mode.remove_worker_group` (after a zygote);
- the zygote, which makes one instance and keeps it, with whatever state the mode needs across runs:
  :meth:`Mode.start_zygote`, :meth:`Mode.before_run`, :meth:`Mode.after_run`, :meth:`Mode.finish_zygote`;
- the sandbox's init and the learner's process: :meth:`Mode.become` and :meth:`Mode.become_learner`;
- the supervisor, after the run: :meth:`Mode.clean_up`.

The defaults below are a process-backend mode with nothing special to do; each mode overrides what it needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from judge.sandbox.boundary.contract import Hello, RunReport, RunRequest
    from judge.sandbox.chain.supervisor import Policy
    from judge.sandbox.chain.zygote import Zygote
    from judge.sandbox.kernel.lockdown import ChildLimits
    from judge.sandbox.modes.guarantees import Cell


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
