"""Mode none: a separate process with rlimits, as the judge's own user -- for trusted code only (an author's
own examples, ``--unsafe-no-sandbox``).  Every verdict says so, and the guarantee table's rows it does not
enforce."""

from __future__ import annotations

from judge.sandbox.modes.base import Mode, Rung


class NoneMode(Mode):
    name = "none"
    sandboxed = False

    def check(self) -> Rung:
        return Rung(self.name, True, "always (unsafe: only for trusted code)")

    def become(self, policy, limits) -> None:
        """A separate process with rlimits, nothing more."""
        from judge.sandbox.kernel import linux, lockdown

        lockdown.close_other_fds(keep=(0, 1, 2, 3))
        lockdown.clean_environment()
        lockdown.apply_rlimits(limits)
        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)


MODE = NoneMode()
