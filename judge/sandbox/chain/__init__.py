"""The process chain, in start order: judge -> zygote -> supervisor -> init -> learner.

``launch`` starts a zygote (its interpreter line, environment and socket); ``zygote_boot`` is its first step
(mode full begins joining its worker cgroup beside numpy's import); ``zygote`` is the warm, secret-free process
that forks one run per request; ``supervisor`` is the trusted process between the zygote and the learner, which
forks the sandbox's init; ``harness`` runs inside the learner's process.  ``watch`` is what the trusted side
watches while learner code runs, ``background`` the one-call thread the zygote's start and the judge both use.
Which mode hook runs in which of these processes is written in :mod:`judge.sandbox.modes.base`.
"""
