"""No byte of one learner's submission reaches another learner's run (two breaches a red team found on warm judges).

A red team handed in, on warm judges, a file that computed nothing and returned what the previous learner's
run had left in the shared result buffer (accepted), and one that found the previous learner's source in its
own heap -- a copy-on-write fork of a zygote that had received that source -- and delegated to it (accepted).

Here a victim plants a fresh secret in everything its run touches: its source text, what it prints, files
wherever it may write, and the bytes of its outputs.  Then, on the same warm judge, an attacker that was given
only the secret's sha256 searches everything its own run can read: its whole result mapping, every readable
page of its address space (/proc/self/maps where it can read it, else regions found with mincore around
sbrk(0) and live objects, read through a pipe so an unreadable page is EFAULT, not a crash) and every file it
can open.  It must find nothing; and, read from outside by root, the zygote every run is forked from must not
hold the secret either.  A control run that plants and searches in one file finds its own secret in all three
places: the search works.

Mode reduced runs in the judge image (tests/containers/test_reduced_container.py); mode rootless in the rootless CI tier
(as a normal user; these tests then select themselves with ``-k rootless``).
"""

from __future__ import annotations

import os
import secrets

import pytest

from tests.support.cross_run import attacker, control, findings, process_memory_holds, victim
from tests.support.sandbox import require_mode

SANDBOX_IMAGE = os.environ.get("JUDGE_CONTAINER_IMAGE", "numpy-judge:sandbox")
MODES = ["full", "rootless", "container"]


def _judge(mode: str, workers: int = 1):
    from judge import Judge

    if mode == "container":
        from tests.support.common import require_docker

        require_docker(SANDBOX_IMAGE, what="CONTAINER CROSS-RUN TESTS").close()
        return Judge(workers=workers, backend="container", image=SANDBOX_IMAGE)
    require_mode(mode)
    return Judge(workers=workers, isolation=mode)


def _zygote_pids(judge) -> list[int]:
    """The warm zygotes' pids (the container backend has none: each run is a fresh container)."""
    from judge.sandbox.backends.zygote_client import ZygoteClient

    return [w.pid for w in list(judge._pool.queue) if isinstance(w, ZygoteClient)]


@pytest.mark.parametrize("mode", MODES)
def test_the_next_run_on_a_warm_judge_reads_nothing_of_the_last(mode: str):
    from judge.verdict import Status

    token = secrets.token_hex(16)
    with _judge(mode) as judge:
        judge.warm_up()
        planted = judge.grade(victim(token))
        assert f"PLANTED:{token}" in planted.stdout.text, "the victim's run did not plant its secret"
        assert planted.status is Status.WRONG_ANSWER, (planted.status, planted.message[:300])
        for pid in _zygote_pids(judge):
            assert process_memory_holds(pid, token.encode()) == [], "the zygote holds the last learner's bytes"
        searched = judge.grade(attacker(token))
        found, clean = findings(searched.stdout.text)
        assert found == [], found
        assert len(clean) == 3, searched.stdout.text[-2000:]
        assert searched.status is Status.WRONG_ANSWER, (searched.status, searched.message[:300])
        assert token not in searched.model_dump_json()
        # and the other way round: the secret of the searching run is not in the zygote either
        for pid in _zygote_pids(judge):
            assert process_memory_holds(pid, b"PLANTED:") == []


@pytest.mark.parametrize("mode", MODES)
def test_control_the_search_finds_a_secret_its_own_run_planted(mode: str):
    """The same search, in a run that planted the secret itself before its second call (its first slot is
    written by then): found in the result buffer, in memory and in a file.  The attacker's CLEAN above is not
    a search that cannot fail."""
    token = secrets.token_hex(16)
    with _judge(mode) as judge:
        v = judge.grade(control(token))
    found, _ = findings(v.stdout.text)
    where = {line.split(" (")[0] for line in found}
    assert where == {"FOUND in result buffer", "FOUND in memory", "FOUND in files"}, v.stdout.text[-2000:]
