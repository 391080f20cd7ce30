"""What each isolation mode guarantees: one table, read by the README, the verdicts and the tests.

Rows are harms a learner's file could do; columns are the isolation modes.  A
cell names the mechanism that stops the harm, or says it is not enforced.  The
README's table is rendered from here (``render_markdown``; a test keeps them
equal), every verdict lists the rows its mode does not enforce
(``Isolation.not_enforced``, from the mode's :meth:`~judge.sandbox.modes.base.Mode.cells`), and the
attack tests expect, per mode, the folder's verdict where the row is enforced and that
statement where it is not.  Data only: what a mode does lives in :mod:`judge.sandbox.modes`.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.sandbox.boundary.contract import LADDER


@dataclass(frozen=True)
class Cell:
    enforced: bool
    how: str


def _yes(how: str) -> Cell:
    return Cell(True, how)


def _no(how: str = "") -> Cell:
    return Cell(False, ("not enforced: " + how) if how else "not enforced")


ROWS: dict[str, str] = {
    "file_system": "file system",
    "network": "network",
    "other_processes": "other processes",
    "environment_secrets": "secrets in the environment",
    "memory": "memory",
    "cpu": "CPU",
    "process_count": "process count",
    "wall_time": "wall time",
    "verdict_forging": "verdict forging",
    "other_submissions": "other learners' submissions",
}

_RLIMIT_MEMORY = ("RLIMIT_AS + the supervisor's watch of each process's resident set (VmRSS/VmHWM, wait4 maxrss); "
                  "System V shared memory and message queues and POSIX message queues, which no resident set "
                  "shows, are refused (seccomp)")
_FORKED_CLEAN = ("a zeroed result buffer per run; the zygote every run is forked from never holds a learner's bytes "
                 "(the source reaches only the run, in a sealed memfd; the judge reads the output; the clean-up runs "
                 "in a process that exits)")
_VERDICT = "results only as bounded slots in shared memory; statuses from wait4, cgroup or /proc records"

_REDUCED_WITHOUT_LANDLOCK = ("not enforced: a dedicated uid sees every world-readable file and writes "
                             "world-writable folders (what it creates there is deleted after the run); the bundle, "
                             "the judge's cache and a checkout's history are made unreadable to it")
#: Mode reduced where Landlock is refused: these rows replace the table's (``not_enforced(..., landlock=False)``).
REDUCED_WITHOUT_LANDLOCK: dict[str, Cell] = {"file_system": _no(_REDUCED_WITHOUT_LANDLOCK[len("not enforced: "):])}

TABLE: dict[str, dict[str, Cell]] = {
    "full": {
        "file_system": _yes("mount namespace, tmpfs root with read-only /usr, Python and numpy; private /tmp"),
        "network": _yes("network namespace (only a down loopback) + seccomp denies socket()"),
        "other_processes": _yes("pid namespace, own session, uid 65534"),
        "environment_secrets": _yes("zygote started with a scrubbed environment; learner sees 4 variables"),
        "memory": _yes("cgroup memory limit (v1 or v2), OOM kill counted by the kernel"),
        "cpu": _yes("RLIMIT_CPU (SIGXCPU/SIGKILL) + cgroup CPU accounting"),
        "process_count": _yes("cgroup pids.max, refusals counted by the kernel"),
        "wall_time": _yes("supervisor's clock, per case and in total"),
        "verdict_forging": _yes(_VERDICT),
        "other_submissions": _yes(_FORKED_CLEAN + "; private /tmp, IPC and pid namespaces per run"),
    },
    "rootless": {
        "file_system": _yes("mount namespace inside an unprivileged user namespace, same tmpfs root as full"),
        "network": _yes("network namespace (only a down loopback) + seccomp denies socket()"),
        "other_processes": _yes("pid namespace, own session, nested user namespace as uid 65534"),
        "environment_secrets": _yes("zygote started with a scrubbed environment; learner sees 4 variables"),
        "memory": _yes("memory.max of a cgroup v2 subtree delegated to the user, where it has one (OOM kill "
                       "counted by the kernel; `limits_by: cgroup`), else " + _RLIMIT_MEMORY),
        "cpu": _yes("RLIMIT_CPU (SIGXCPU/SIGKILL) + the delegated cgroup's CPU accounting; without one, "
                    "per process, the wall clock bounds the total"),
        "process_count": _yes("the delegated cgroup's pids.max (refusals counted by the kernel), else RLIMIT_NPROC "
                              "in the run's own user namespace"),
        "wall_time": _yes("supervisor's clock, per case and in total"),
        "verdict_forging": _yes(_VERDICT),
        "other_submissions": _yes(_FORKED_CLEAN + "; private /tmp, IPC and pid namespaces per run"),
    },
    "reduced": {
        "file_system": _yes("Landlock: reads only /usr, the Python standard library and numpy, writes only its "
                            "private folder; where the kernel (before 5.13) or the container's seccomp profile "
                            "refuses Landlock, " + _REDUCED_WITHOUT_LANDLOCK),
        "network": _yes("seccomp denies socket() (no network namespace)"),
        "other_processes": _yes("a uid no other process uses: it can list processes but signal only its own; "
                                "all of them are killed after the run"),
        "environment_secrets": _yes("scrubbed environment; the judge's /proc/<pid>/environ is another uid's"),
        "memory": _yes(_RLIMIT_MEMORY),
        "cpu": _yes("RLIMIT_CPU (SIGXCPU/SIGKILL); per process, the wall clock bounds the total"),
        "process_count": _yes("RLIMIT_NPROC on a uid no other process uses"),
        "wall_time": _yes("supervisor's clock, per case and in total"),
        "verdict_forging": _yes(_VERDICT),
        "other_submissions": _yes(_FORKED_CLEAN + "; every process, file (its folder and every folder the uid could "
                                  "write) and IPC object of the run's uid removed after it; a uid drawn at random "
                                  "per zygote, locked where no learner can reach"),
    },
    "container": {
        "file_system": _yes("a fresh container of the sandbox image: read-only root, tmpfs /tmp, no bundle"),
        "network": _yes("network none + seccomp denies socket()"),
        "other_processes": _yes("the container's pid namespace, uid 65534, all capabilities dropped"),
        "environment_secrets": _yes("the container gets 6 harmless variables, nothing of the judge's"),
        "memory": _yes("the engine's memory cgroup (no swap), OOMKilled from the engine"),
        "cpu": _yes("RLIMIT_CPU + the engine's cgroup CPU accounting"),
        "process_count": _yes("the engine's pids limit"),
        "wall_time": _yes("the judge's clock; the container is killed"),
        "verdict_forging": _yes(_VERDICT),
        "other_submissions": _yes("a fresh container per run; results copied into a zeroed buffer"),
    },
    "none": {
        "file_system": _no("the learner runs as the judge's user, with its files"),
        "network": _no(),
        "other_processes": _no("same uid as the judge: it can signal or trace it"),
        "environment_secrets": _no("the child's environment is scrubbed, but the judge's /proc/<pid>/environ "
                                   "is readable by the same uid"),
        "memory": _yes(_RLIMIT_MEMORY),
        "cpu": _yes("RLIMIT_CPU (SIGXCPU/SIGKILL)"),
        "process_count": _no("RLIMIT_NPROC would count the judge's own user"),
        "wall_time": _yes("supervisor's clock, per case and in total"),
        "verdict_forging": _no("same uid as the judge: /proc/<pid>/mem of the judge is writable"),
        "other_submissions": _no("same uid as the judge, whose memory holds every submission it graded"),
    },
}

assert set(TABLE) == set(LADDER) and all(set(cells) == set(ROWS) for cells in TABLE.values())


#: The attack corpus' ``# harm:`` ids (and the older attack files), by the table row that stops them.
HARM_ROWS: dict[str, str | None] = {
    "crash_judge_sigbus": "verdict_forging",
    "flood_output": None,  # RLIMIT_FSIZE, every mode
    "forge_verdict_channels": "verdict_forging",
    "huge_output": None,  # slot capacity, every mode
    "import_allowlist_escape": "file_system",
    "kill_judge": "other_processes",
    "lying_array_like": "verdict_forging",
    "signals_to_itself": "wall_time",
    "steal_environment": "environment_secrets",
    "steal_reference": "file_system",
    "write_outside_sandbox": "file_system",
    "read_host_files": "file_system",
    "network": "network",
    "fork_bomb": "process_count",
    "self_kill": None,
    "deep_recursion": None,
    "os_exit": None,
    "forge_output": "verdict_forging",
    "monkeypatch_numpy": "verdict_forging",
    "ndarray_subclass_lies": "verdict_forging",
    "sleep": "wall_time",
    "memory_hog": "memory",
    "read_other_submission": "other_submissions",
    "leave_leftovers": "other_submissions",
    "hide_memory": "memory",
    "stall_the_judge": None,  # bounded judge-side work, every mode
    "crash_the_judge": "verdict_forging",
    "leak_hidden_cases": None,  # the search's run starts on zeros, its candidates read no hidden case: every mode
    "forge_feedback": None,  # the learner's text in a counterexample is cut, cleaned and said to be theirs
}


def render_markdown() -> str:
    """The README's table: rows are harms, columns are modes."""
    lines = ["| | " + " | ".join(f"`{m}`" for m in LADDER) + " |",
             "|---|" + "---|" * len(LADDER)]
    for row, label in ROWS.items():
        lines.append(f"| {label} | " + " | ".join(TABLE[m][row].how for m in LADDER) + " |")
    return "\n".join(lines) + "\n"
