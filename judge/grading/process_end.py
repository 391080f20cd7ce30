"""Why a run's process ended and what it used, from the kernel's records alone.

The wait status and rusage (wait4, read by the supervisor), the cgroup's OOM-kill and pids counters, the
supervisor's own clock and memory watch: nothing here comes from the learner's process.  The first case
whose slot the process never wrote gets the status these records give (:mod:`judge.grading.slots`).
"""

from __future__ import annotations

import signal

from judge.feedback import MessageRef
from judge.i18n import messages as m
from judge.i18n.catalog import render
from judge.sandbox import RunReport
from judge.verdict import Resources, Status


def process_death(report: RunReport, cpu_limit: float) -> tuple[Status | None, str]:
    """Why the process ended early, from the kernel's records, or (None, "") if it did not."""
    status, said = process_death_said(report, cpu_limit)
    return status, render(said, "en") if said is not None else ""


def process_death_said(report: RunReport, cpu_limit: float) -> tuple[Status | None, MessageRef | None]:
    """:func:`process_death`, the reason as a message id (rendered in the learner's language at the door)."""
    sig = report.signal
    if report.timed_out == "case":
        return Status.TIME_LIMIT_EXCEEDED, m.KILLED_CASE_WALL()
    if report.timed_out == "total":
        return Status.TIME_LIMIT_EXCEEDED, m.KILLED_TOTAL_WALL()
    if report.oom_kills > 0:
        return Status.MEMORY_LIMIT_EXCEEDED, m.KILLED_OOM()
    if report.memory_killed:
        return Status.MEMORY_LIMIT_EXCEEDED, m.KILLED_RSS()
    # RLIMIT_CPU sends SIGXCPU at the soft limit and SIGKILL at the hard one; either counts only
    # when the CPU used reached the limit (a learner may send itself SIGXCPU), with a margin because
    # the kernel samples CPU time per tick and rusage (utime+stime, scaled) may read under the limit
    # on a loaded machine (0.93 s measured for a 1 s limit); a self-sent SIGXCPU gains nothing either way.
    if sig in (signal.SIGXCPU, signal.SIGKILL) and report.cpu_seconds >= cpu_limit * 0.75:
        return Status.TIME_LIMIT_EXCEEDED, m.KILLED_CPU(limit=float(cpu_limit))
    if sig is not None:
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return Status.RUNTIME_ERROR, m.KILLED_SIGNAL(signal=name)
    code = report.exit_code
    if code not in (0, None):
        return Status.RUNTIME_ERROR, m.EXITED(code=code)
    return None, None


def resources(report: RunReport, killed_for: str | None) -> Resources:
    cpu_ns = report.cpu_ns or (report.user_ns + report.sys_ns)
    return Resources(wall_ms=report.wall_ns / 1e6, cpu_ms=cpu_ns / 1e6,
                     memory_peak_bytes=report.memory_peak, oom_kills=report.oom_kills + int(report.memory_killed),
                     forks_refused=report.pids_refused or 0, exit_code=report.exit_code,
                     signal=report.signal, killed_for=killed_for)
