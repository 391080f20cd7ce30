"""A queued submission's run is set up while the last run's result buffer is still being zeroed, and no learner
code runs before the buffer is clear (the process backend's gate: ResultBuffer.start_run(deferred=True),
ZygoteClient.run, Zygote.run, RunMaps.gate).

The scrub is slowed down here so that the next request is always sent while it goes on: the attacker of
tests/sandbox/test_cross_run.py, graded right after the victim, must still find nothing of it; a gate the judge never
opens means no learner code at all (an internal error, nothing captured), and the zygote serves the next run as
before.
"""

from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path

import pytest

from tests.support.cross_run import attacker, findings, victim
from tests.support.sandbox import require_mode

MODES = ["full", "none"]


def _slow_scrub(monkeypatch) -> list[bool]:
    """Every scrub takes 0.3 s longer; returns a list that gets, per ``clear()``, whether a scrub was still going
    on when the run's request had been sent (the case the gate is for)."""
    import judge.sandbox.boundary.result_buffer as rb

    real_zero, real_clear = rb._zero, rb.ResultBuffer.clear
    seen: list[bool] = []

    def slow_zero(buffer, stop=None, fd=None):  # noqa: ANN001, ANN202
        if threading.current_thread().name == "judge-result-scrub":
            time.sleep(0.3)
        return real_zero(buffer, stop, fd)

    def clear(self) -> None:  # noqa: ANN001
        if self.clear_pending:
            seen.append(self._scrub is not None and self._scrub.is_alive())
        real_clear(self)

    monkeypatch.setattr(rb, "_zero", slow_zero)
    monkeypatch.setattr(rb.ResultBuffer, "clear", clear)
    return seen


@pytest.fixture(autouse=True)
def _no_planted_files_left():
    """Mode none isolates nothing: its victims really write their planted files in the judge's folders; remove
    the ones this test made (the sandboxed modes write them inside the sandbox only)."""
    folders = [Path.cwd(), Path("/tmp"), Path("/var/tmp"), Path("/dev/shm")]
    before = {p for folder in folders for p in folder.glob("planted-*.txt")}
    yield
    for path in {p for folder in folders for p in folder.glob("planted-*.txt")} - before:
        path.unlink(missing_ok=True)


@pytest.mark.parametrize("mode", MODES)
def test_a_run_sent_during_the_last_scrub_reads_nothing_of_the_last(mode: str, monkeypatch):
    from judge import Judge
    from judge.verdict import Status

    require_mode(mode)
    seen = _slow_scrub(monkeypatch)
    token = secrets.token_hex(16)
    with Judge(isolation=mode, unsafe_no_sandbox=mode == "none") as judge:
        judge.warm_up()
        planted = judge.grade(victim(token))
        assert f"PLANTED:{token}" in planted.stdout.text, "the victim's run did not plant its secret"
        searched = judge.grade(attacker(token))  # at once: the victim's buffer is still being zeroed
    assert True in seen, "no run was sent while the last scrub went on: the gate was not exercised"
    found, clean = findings(searched.stdout.text)
    assert any(line.startswith("CLEAN result buffer") for line in clean), \
        (searched.status, searched.message[:500], searched.stdout.text[-2000:])
    if mode != "none":  # mode none isolates nothing: the victim's files and memory are the machine's to read
        assert found == [], found
    assert searched.status is Status.WRONG_ANSWER, (searched.status, searched.message[:300])


@pytest.mark.parametrize("mode", MODES)
def test_a_gate_never_opened_runs_no_learner_code(mode: str, monkeypatch):
    from judge import Judge
    from judge.sandbox.backends.zygote_client import ZygoteClient
    from judge.sandbox.boundary.messages import send_message
    from judge.verdict import Status

    require_mode(mode)
    _slow_scrub(monkeypatch)
    source = "print('LEARNER CODE RAN', flush=True)\n" + victim(secrets.token_hex(16))
    with Judge(isolation=mode, unsafe_no_sandbox=mode == "none") as judge:
        judge.warm_up()
        first = judge.grade(victim(secrets.token_hex(16)))
        assert first.status is Status.WRONG_ANSWER, first.message[:300]

        def refuse(self, buffer) -> None:  # noqa: ANN001
            buffer.clear()
            send_message(self._sock, {"clear": False})

        with monkeypatch.context() as m:
            m.setattr(ZygoteClient, "_clear_and_open", refuse)
            refused = judge.grade(source)
        assert refused.status is Status.INTERNAL_ERROR, (refused.status, refused.message[:300])
        assert "did not say the result buffer was clear" in refused.message, refused.message[:300]
        assert "LEARNER CODE RAN" not in refused.stdout.text
        again = judge.grade(source)  # the zygote took the refusal in its stride: the next run is an ordinary one
        assert "LEARNER CODE RAN" in again.stdout.text, again.message[:300]
        assert again.status is Status.WRONG_ANSWER, (again.status, again.message[:300])
