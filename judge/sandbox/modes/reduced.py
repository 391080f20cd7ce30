"""Mode reduced: root in an ordinary container (Gradescope, PrairieLearn, Exercism), where namespaces and cgroup
writes are refused but root can still change uid.

Everything the mode does, in the order a run meets it:

- the zygote draws a uid of its own at random (:mod:`judge.sandbox.kernel.uids`: two grader containers on one host
  practically never share one, and RLIMIT_NPROC then counts only its runs), and reads the kernel's Landlock
  ABI (:mod:`judge.sandbox.kernel.landlock`);
- each run gets a fresh private folder (HOME, TMPDIR, working directory), on disk where there is one: files
  on tmpfs are memory, which the supervisor's watch then counts;
- the run's init confines files with Landlock to mode full's view plus that folder, sets rlimits,
  no_new_privs and the seccomp filter (System V and POSIX IPC refused: no resident set would show them) but
  keeps root's uid; the learner's process drops to the run's uid after the fork, so ``kill(-1)`` from it
  reaches only its own processes;
- where Landlock is refused (a kernel before 5.13, an engine's seccomp profile from before 2022), the paths
  the judge names (the bundle, the cache, a checkout's history) get ACL entries denying the uid, every folder
  the uid could write (found by one scan per zygote) is closed to it, and the verdict says the file system
  row is not enforced;
- after the run the supervisor kills every process of the uid, removes its folder, what it owns in every
  shared folder and its System V objects (:mod:`judge.sandbox.kernel.leftovers`); a process that outlives SIGKILL
  leaves the uid quarantined and the next run takes another.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING

from judge.sandbox.kernel import acl
from judge.sandbox.modes.base import Mode, Rung

if TYPE_CHECKING:
    from judge.sandbox.boundary.contract import Hello
    from judge.sandbox.kernel.uids import UidPool


class ReducedMode(Mode):
    name = "reduced"
    automatic = True

    def __init__(self) -> None:
        # State of the one zygote an instance serves (the judge's side uses none of it).
        self.uids: UidPool = None  # type: ignore[assignment]  # set by start_zygote, before any other use
        self.hidden: set[tuple[str, int]] = set()  #: without Landlock: (path, uid) hidden by an ACL entry
        self.closed: dict[int, list[str]] = {}  #: without Landlock: uid -> folders closed to it by ACL
        self._scan: tuple[int, int] | None = None  #: without Landlock: (pid, pipe) of the writable-folder scan

    # -- the judge's side
    def check(self) -> Rung:
        if os.geteuid() != 0:
            return Rung(self.name, False, "needs root (in a container) to change to the sandbox uid")
        from judge.sandbox.kernel.probes import in_child, readable_python_as_other_uid

        ok, why = in_child(readable_python_as_other_uid)
        return Rung(self.name, ok, "uid change, no_new_privs, seccomp filter" if ok else why)

    def cells(self, landlock: bool = True) -> dict:
        from judge.sandbox.modes.guarantees import REDUCED_WITHOUT_LANDLOCK

        column = super().cells(landlock)
        if not landlock:
            column.update(REDUCED_WITHOUT_LANDLOCK)
        return column

    def isolation_fields(self, hello: Hello, last_uid: int | None) -> dict:
        return {"uid": last_uid if last_uid is not None else hello.uid}

    # -- the zygote's side
    def start_zygote(self, zygote) -> None:
        from judge.sandbox.kernel import landlock
        from judge.sandbox.kernel.leftovers import SHARED_WRITABLE
        from judge.sandbox.kernel.rootfs import RootPlan
        from judge.sandbox.kernel.uids import UidPool

        policy = zygote.policy
        self.uids = UidPool()
        policy.uid = self.uids.uid
        policy.memory_watch = policy.own_uid_count = True
        policy.landlock_abi = landlock.abi_version()
        policy.shared_folders = SHARED_WRITABLE
        policy.workdir_parent, policy.workdir_in_memory = workdir_parent()
        if policy.landlock_abi:
            policy.landlock_rules = landlock.FileView.for_root_plan(RootPlan.for_this_interpreter()).open()
        else:
            zygote.notes.append("Landlock is not available (kernel older than 5.13, or refused by the container's "
                                "seccomp profile): the run's uid sees every world-readable file")
            self._scan = _start_folder_scan(self.uids.uid)

    def before_run(self, zygote, request) -> None:
        policy = zygote.policy
        self.uids.release_free()
        if not policy.landlock_abi:
            self._hide(zygote, request.hide)
            self._collect_scan(zygote)
        policy.workdir = private_workdir(policy.uid, policy.workdir_parent)

    def after_run(self, zygote, report) -> None:
        """Processes of the run outlived SIGKILL: the next run takes another uid (this one stays locked)."""
        if not report.processes_stuck:
            return
        self.uids.quarantine()
        zygote.policy.uid = self.uids.uid
        if not zygote.policy.landlock_abi and self.closed:
            self._close_shared_folders(zygote)
        zygote.notes.append("a run's processes outlived SIGKILL (uninterruptible sleep); later runs use another uid")

    def finish_zygote(self, zygote) -> None:
        """Give the uid back: its ACL entries removed (where its processes are gone), its lock released."""
        self.uids.release_free()
        held = {c.uid for c in self.uids.quarantined}
        for path, uid in self.hidden:
            if uid not in held:
                acl.allow_uid_again(path, uid)
        for uid, folders in self.closed.items():
            if uid not in held:
                for folder in folders:
                    acl.allow_uid_again(folder, uid)
        self.uids.current.release()

    def _hide(self, zygote, paths: list[str]) -> None:
        """Without Landlock: the paths the judge named, unreadable to this uid (when an ACL is full, entries of
        uids no zygote holds any more make room)."""
        from judge.sandbox.kernel.uids import held_elsewhere

        uid = zygote.policy.uid
        todo = [path for path in paths if (path, uid) not in self.hidden]
        if todo:
            hide_paths(todo, uid, stale=lambda other: other != uid and not held_elsewhere(other))
            self.hidden.update((path, uid) for path in todo)

    def _collect_scan(self, zygote) -> None:
        """Without Landlock: the scan's folders (waited for once), then closed to the uid."""
        if self._scan is None:
            return
        pid, pipe = self._scan
        self._scan = None
        data = b""
        while chunk := os.read(pipe, 65536):
            data += chunk
        os.close(pipe)
        os.waitpid(pid, 0)
        try:
            found = json.loads(data or b"{}")
            folders, complete = list(found["folders"]), bool(found["complete"])
        except (ValueError, KeyError, TypeError):
            folders, complete = [], False
        policy = zygote.policy
        policy.shared_folders = tuple(sorted({*policy.shared_folders, *folders}))
        if not complete:
            zygote.notes.append("the scan for folders the run's uid could write was cut short")
        self._close_shared_folders(zygote)

    def _close_shared_folders(self, zygote) -> None:
        """Leave the uid only search permission on every folder it could write (ACLs), so its runs create files
        in their own folder only; the clean-up still sweeps every one of them."""
        uid = zygote.policy.uid
        folders = [f for f in zygote.policy.shared_folders if os.path.isdir(f)]
        still_open = close_to_writes(folders, uid)
        self.closed[uid] = [f for f in folders if f not in still_open]
        if still_open:
            zygote.notes.append("these folders could not be closed to the run's uid (no ACLs there): "
                                + ", ".join(still_open[:8]) + "; what it leaves in them is removed after each run")

    # -- the run's side
    def become(self, policy, limits) -> None:
        """The init's part: no new root, the run's private folder, Landlock confining files to mode full's view
        plus that folder (where the kernel allows it), rlimits, no_new_privs, seccomp.  The init keeps its uid:
        with no pid namespace, a process of the run's uid could otherwise kill it (kill(-1, SIGKILL)) and cut
        its own run short.  This init is a subreaper, so every process the learner starts stays below it where
        the supervisor's memory watch finds it."""
        from dataclasses import replace

        from judge.sandbox.kernel import linux, lockdown

        rules = policy.landlock_rules or []
        lockdown.raise_oom_score()
        lockdown.close_other_fds(keep=(0, 1, 2, 3, *(fd for fd, _ in rules)))
        lockdown.clean_environment(HOME=policy.workdir, TMPDIR=policy.workdir)
        os.chdir(policy.workdir)
        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
        if policy.landlock_abi:
            from judge.sandbox.kernel import landlock

            linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)  # what Landlock needs from a process without CAP_SYS_ADMIN
            landlock.restrict_self(policy.landlock_abi, rules, policy.workdir)
            for fd, _ in rules:
                os.close(fd)
        lockdown.apply_rlimits(replace(limits, processes=None))  # RLIMIT_NPROC counts the uid that forks
        lockdown.lock_down(policy.seccomp)

    def become_learner(self, policy, limits) -> None:
        """In the learner's process right after the fork: its process limit, then the run's uid."""
        import resource

        from judge.sandbox.kernel import lockdown

        if limits.processes is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
        lockdown.drop_privileges(policy.uid)

    def clean_up(self, policy, report, proc) -> None:
        """Every process of the uid killed; its folder, what it owns in every shared folder and its System V
        objects removed: bounded, iterative, and in this process (the supervisor), which exits afterwards."""
        from judge.sandbox.kernel import leftovers

        leftovers.kill_uid(policy.uid)
        super().clean_up(policy, report, proc)
        removal = leftovers.Removal()
        if policy.workdir:
            leftovers.remove_tree(policy.workdir, removal=removal)
        leftovers.remove_files_of(policy.uid, policy.shared_folders, removal)
        leftovers.remove_ipc_of(policy.uid)
        report.files_left = removal.left


def _start_folder_scan(uid: int) -> tuple[int, int]:
    """Fork a child that lists every folder ``uid`` could write (:func:`writable_folders`, ~50 ms in a grader
    container) while the zygote readies itself: (pid, the pipe its JSON comes on)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            folders, complete = writable_folders(uid)
            os.write(write_end, json.dumps({"folders": folders, "complete": complete}).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    return pid, read_end


#: File systems with nothing a run could leave behind (or that are not files at all).
_PSEUDO = {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs", "securityfs", "bpf", "pstore",
           "configfs", "fusectl", "binfmt_misc", "autofs", "nsfs", "hugetlbfs", "efivarfs", "selinuxfs", "rpc_pipefs"}
SCAN_BUDGET_FOLDERS = 200_000
SCAN_BUDGET_SECONDS = 5.0


#: File systems whose files are memory: what a run writes there counts against its memory limit.
MEMORY_BACKED = ("tmpfs", "ramfs", "shm")


def workdir_parent() -> tuple[str, bool]:
    """Where runs' private folders go, and whether that is memory (tmpfs): a disk-backed folder root may write
    is preferred, since files on tmpfs are memory no resident set shows (the memory watch then counts them)."""
    import tempfile

    kinds = {point: kind for point, kind, _ in _mounts()}
    candidates = [tempfile.gettempdir(), "/var/tmp", "/tmp"]
    usable = [c for c in dict.fromkeys(candidates) if os.path.isdir(c) and os.access(c, os.W_OK)]
    if not usable:
        raise OSError("no writable folder for the runs' private folders")

    def kind_of(path: str) -> str:
        best = max((point for point in kinds if path == point or path.startswith(point.rstrip("/") + "/")),
                   key=len, default="/")
        return kinds.get(best, "")

    for folder in usable:
        if kind_of(folder) not in MEMORY_BACKED:
            return folder, False
    return usable[0], True


def private_workdir(uid: int, parent: str | None = None) -> str:
    """A fresh folder only ``uid`` can use, in ``parent``: the run's HOME, TMPDIR and working directory."""
    import tempfile

    path = tempfile.mkdtemp(prefix="numpy-judge-run-", dir=parent)
    os.chown(path, uid, uid)
    os.chmod(path, 0o700)
    return path


def close_to_writes(folders: list[str] | tuple[str, ...], uid: int) -> list[str]:
    """Leave ``uid`` only search permission on each folder (an ACL entry ``--x``), so that a run can reach its
    private folder but create nothing anywhere else: the fallback where Landlock is refused.  The folders it
    could not close (no ACL support, a read-only mount) are returned: the clean-up sweeps those."""
    still_open = []
    for folder in folders:
        try:
            acl.set_uid_permissions(folder, uid, 0o1)
        except OSError:
            still_open.append(folder)
    return still_open


def _mounts() -> list[tuple[str, str, bool]]:
    """(mount point, file system type, read-only) of every mount this process sees."""
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, after = left.split(), right.split()
                if len(fields) < 6 or not after:
                    continue
                point = fields[4].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n") \
                    .replace("\\134", "\\")
                found.append((point, after[0], "ro" in fields[5].split(",")))
    except OSError:
        pass
    return found


def writable_folders(uid: int, system_uid_below: int = 1 << 24) -> tuple[list[str], bool]:
    """Every folder ``uid`` could create files in (search and write permission, ACLs included) on a writable,
    non-pseudo file system, and whether the walk saw everything (False: its budget ran out first).

    Folders owned by uids at or above ``system_uid_below`` (other runs' uids) are neither listed nor entered:
    what another run made is that run's to remove, and its names stay out of this zygote.  Each mount is walked
    on its own (a read-only root may hold writable mounts, e.g. ``--read-only --tmpfs /tmp``); the walk enters
    only folders ``uid`` could search, since a run cannot reach anything below one it cannot."""
    mounts = _mounts()
    skip = {point for point, kind, _ in mounts if kind in _PSEUDO}
    roots = sorted({point for point, kind, ro in mounts if kind not in _PSEUDO and not ro} or {"/"})
    found: list[str] = []
    seen_folders = 0
    deadline = time.monotonic() + SCAN_BUDGET_SECONDS
    for root in roots:
        if any(root == s or root.startswith(s.rstrip("/") + "/") for s in skip):
            continue
        try:
            device = os.stat(root).st_dev
        except OSError:
            continue
        todo = [root]
        while todo:
            folder = todo.pop()
            seen_folders += 1
            if seen_folders > SCAN_BUDGET_FOLDERS or (seen_folders % 512 == 0 and time.monotonic() > deadline):
                return sorted(set(found)), False
            try:
                st = os.stat(folder, follow_symlinks=False)
                if st.st_uid >= system_uid_below:
                    continue
                perm = acl.permissions(folder, uid, st)
            except OSError:
                continue
            if not perm & 0o1:
                continue
            if perm & 0o2:
                found.append(folder)
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        try:
                            if (
                                entry.is_dir(follow_symlinks=False)
                                and entry.stat(follow_symlinks=False).st_dev == device
                            ):
                                todo.append(entry.path)
                        except OSError:
                            continue
            except OSError:
                continue
    return sorted(set(found)), True


def hide_paths(paths: list[str], uid: int, stale=None) -> list[str]:
    """Hide each of ``paths`` from ``uid`` (:func:`judge.sandbox.kernel.acl.hide_from_uid`); what was done.  Raises
    :class:`~judge.errors.SandboxUnavailable` for a path that can be neither hidden nor already denied."""
    done = []
    for path in paths:
        what = acl.hide_from_uid(path, uid, stale)
        if what:
            done.append(what)
    return done

MODE = ReducedMode()
