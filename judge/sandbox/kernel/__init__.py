"""Kernel mechanisms: each module is one thing the kernel gives, wrapped, with no policy of its own.

ctypes bindings (``linux``), the seccomp deny-list, Landlock, POSIX ACLs, a run's own uid (``uids``), the new
root's binds (``rootfs``), a user namespace of one's own (``user_namespace``), control groups (``cgroups/``),
the steps that lock a forked child down (``lockdown``), throw-away attempts at each (``probes``) and what a
run leaves behind (``leftovers``).  Which of them a run gets, in what order, is a mode's decision
(:mod:`judge.sandbox.modes`), never this room's.
"""
