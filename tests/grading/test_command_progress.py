"""Long commands talk: a bar redrawn on one line on a terminal, one line per step otherwise (judge/progress.py);
`judge package` shows each step (the wheels, each smoke test) as it starts it."""

from __future__ import annotations

import io

from judge.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_one_redrawn_bar_and_a_log_gets_a_line_per_step():
    tty = _Terminal()
    bar = Progress("package exercism", total=4, stream=tty)
    for step in ("wheels", "smoke test a", "smoke test b"):
        bar.step(step)
    bar.done()
    shown = tty.getvalue()
    assert shown.count("\r\x1b[K") >= 3 and "[" + "#" * 18 + "." * 6 + "] 3/4" in shown, shown
    assert shown.endswith("judge: package exercism: done in 0 s\n") and shown.count("\n") == 1, shown

    log = io.StringIO()
    lines = Progress("package exercism", total=2, stream=log)
    lines.step("the judge's wheel")
    lines.note("no example submissions: no smoke tests")
    lines.step("wheels for Python 3.11")
    lines.done()
    assert log.getvalue().splitlines() == [
        "judge: package exercism: [1/2, 0 s] the judge's wheel",
        "judge: package exercism: no example submissions: no smoke tests",
        "judge: package exercism: [2/2, 0 s] wheels for Python 3.11",
        "judge: package exercism: done in 0 s"]
    assert "\r" not in log.getvalue()


def test_a_runners_smoke_tests_leave_the_attacks_out_by_default():
    """Exercism's smoke tests from submissions/<problem>/: the red team's attack_* files stay in the judge's tests."""
    from judge.platforms.exercism import smoke_examples
    from tests.support.common import REPO

    folder = REPO / "submissions" / "sinusoidal-pe"
    every = sorted(folder.glob("*/*.py"))
    chosen = smoke_examples(folder)
    assert any(p.name.startswith("attack_") for p in every)
    assert chosen == [p for p in every if not p.name.startswith("attack_")] and chosen
    assert {p.parent.name for p in chosen} == {p.parent.name for p in every}  # every status keeps examples
