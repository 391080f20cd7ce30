"""Judging one stored submission: the one code path of embedded threads and Celery workers."""

from __future__ import annotations

import logging
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from judge._version import __version__
from judge.service import learner_hooks
from judge.service.bundle_versions import BundleUnavailable, BundleVersions
from judge.service.claims import Claims
from judge.service.store import STORE_AWAY, Store, StoredSubmission
from judge.verdict import Status, Verdict

if TYPE_CHECKING:
    from judge.engine import Judge
    from judge.service.worker_beat import WorkerBeat

log = logging.getLogger("judge.service")


def internal_error(problem: str, message: str) -> Verdict:
    return Verdict(status=Status.INTERNAL_ERROR, score=0.0, problem=problem, message=message,
                   judge_version=__version__, numpy_version=np.__version__,
                   python_version=platform.python_version())


def other_version(job_digest: str | None, verdict: Verdict) -> bool:
    """Whether ``verdict`` was graded with another bundle version than the job was accepted under (a verdict
    that names none, an internal error, says nothing of a version and is kept)."""
    return bool(job_digest) and bool(verdict.problem_digest) and verdict.problem_digest != job_digest


#: A submission whose copies died this many times (their workers lost) ends with an internal error instead of
#: another run (JUDGE_MAX_ATTEMPTS); copies still running do not count (:mod:`judge.service.claims`).
MAX_ATTEMPTS = 3

#: How long a worker keeps a verdict in memory and tries to store it while the store is away.
STORE_PATIENCE_SECONDS = 300.0

LEARNER_PLATFORMS = ("lti:", "learn:")  # submissions from the learner page (judge.service.lti, via its hooks)


def draw_pictures(store: Store, judge: Judge, row: StoredSubmission, verdict: Verdict,
                  problem: str | Path | None = None) -> None:
    """For the learner page, after the verdict is stored (drawing takes seconds; the learner does not wait
    for it): run the file again with a pictures folder and keep the PNGs beside the submission."""
    hooks = learner_hooks.registered()
    if hooks is None or not row.platform.startswith(LEARNER_PLATFORMS):
        return
    drawn = []
    if verdict.status is Status.WRONG_ANSWER:
        with tempfile.TemporaryDirectory(prefix="judge-pictures-") as folder:
            again = judge.grade(row.source, problem or row.problem, pictures_dir=folder)
            drawn = [(p, (Path(folder) / p.file).read_bytes()) for p in again.pictures
                     if Path(p.file).name == p.file and (Path(folder) / p.file).is_file()]
    hooks.save_pictures(store, row.id, drawn)


def store_verdict(store: Store, sub_id: str, verdict: Verdict, patience: float = STORE_PATIENCE_SECONDS) -> bool:
    """``store.finish``, tried again while the store is away (a database restart): the verdict is kept in
    memory meanwhile, so the learner's code does not run again.  After ``patience`` seconds the error is
    raised, and the job is retried as a whole (the broker still holds it)."""
    deadline = time.monotonic() + patience
    pause = 0.5
    while True:
        try:
            return store.finish(sub_id, verdict.model_dump_json(), verdict.status.value)
        except STORE_AWAY as exc:
            if time.monotonic() + pause > deadline:
                raise
            log.warning("submission %s: the store is unreachable (%s); storing the verdict again in %.1f s",
                        sub_id, type(exc).__name__, pause)
            time.sleep(pause)
            pause = min(pause * 2, 5.0)


def public_shower(store: Store, row: StoredSubmission) -> Callable[[Verdict], None]:
    """What keeps this attempt's public-phase verdict beside the running submission (a phased judge calls it
    as soon as the public cases are judged).  Best effort: a store away costs the early feedback, never the
    grading; a verdict of another bundle version than the job's is not shown."""

    def show(verdict: Verdict) -> None:
        if other_version(row.problem_digest, verdict):
            return
        try:
            store.show_public(row.id, row.attempts, verdict.model_dump_json())
        except Exception as exc:  # noqa: BLE001 - the final verdict is what must be stored
            log.warning("submission %s: its public verdict could not be kept (%s)", row.id, type(exc).__name__)

    return show


def process_submission(store: Store, judge: Judge, sub_id: str, worker: str,
                       on_stored: Callable[[dict], None] | None = None,
                       versions: BundleVersions | None = None, max_attempts: int = MAX_ATTEMPTS,
                       beat: WorkerBeat | None = None) -> str:
    """Claim, grade through the sandboxed :class:`~judge.engine.Judge`, store the verdict once.

    Returns ``"stored"``, ``"duplicate"`` (another attempt stored a verdict first)
    or ``"skipped"`` (already done or unknown).  Learner code runs only inside
    ``judge.grade``.  With ``versions``, the submission is graded with the bundle version it was accepted
    under, fetched from the store when this host's copy differs (:mod:`judge.service.bundle_versions`).
    A submission whose earlier copies died ``max_attempts`` times (each lost with its worker: a submission
    that takes its worker down with it would otherwise come back forever) gets an internal error; a copy still
    running elsewhere is no failed attempt.  ``beat`` keeps this copy's claim alive while it runs (a claim
    not beaten counts as alive for :data:`~judge.service.claims.ALIVE_SECONDS`).
    """
    row = store.claim(sub_id, worker)
    if row is None:
        log.info("submission %s: already judged or unknown, skipped", sub_id)
        return "skipped"
    claims = Claims(store)
    token, dead = claims.open(sub_id, worker)
    if beat is not None:
        beat.hold(token)
    try:
        return _judge_claimed(store, judge, row, worker, dead, on_stored, versions, max_attempts)
    finally:
        if beat is not None:
            beat.release(token)
        try:
            claims.close(token)
        except Exception as exc:  # noqa: BLE001 - the store away: the claim looks dead later, as it should
            log.warning("submission %s: could not close its claim (%s)", sub_id, type(exc).__name__)


def _judge_claimed(store: Store, judge, row, worker: str, dead: int,  # noqa: ANN001
                   on_stored: Callable[[dict], None] | None, versions: BundleVersions | None,
                   max_attempts: int) -> str:
    sub_id = row.id
    target: str | Path = row.problem
    try:
        if dead >= max_attempts:  # every earlier attempt lost its worker: not again, never queued forever
            log.error("submission %s: %s earlier attempts died (at most %s); not judged again", sub_id, dead,
                      max_attempts)
            verdict = internal_error(row.problem, f"the judge started this submission {dead} times "
                                                  "and no attempt finished (its worker was lost each time); it is "
                                                  "not judged again: ask your teacher for a rejudge")
        else:
            if versions is not None:
                target = versions.root_for(row.problem, row.problem_digest)
            shown = public_shower(store, row)
            verdict = judge.grade(row.source, target, on_public=shown)
            if other_version(row.problem_digest, verdict) and versions is not None:
                # this host's copy changed between the check and the grading (a deploy): the job's own version
                target = versions.root_for(row.problem, row.problem_digest, fetch=True)
                verdict = judge.grade(row.source, target, on_public=shown)
            if other_version(row.problem_digest, verdict):
                log.error("submission %s: graded with bundle version %s, accepted under %s; not stored", sub_id,
                          verdict.problem_digest, row.problem_digest)
                verdict = internal_error(row.problem, f"the judge graded this submission with another version of "
                                                      f"the problem ({verdict.problem_digest}) than the one it was "
                                                      f"accepted under ({row.problem_digest}); ask for a rejudge")
    except BundleUnavailable as exc:
        log.error("submission %s: %s", sub_id, exc)
        verdict = internal_error(row.problem, f"the judge cannot grade this submission: {exc}")
    except STORE_AWAY:
        raise  # the store is away while fetching a version: the job is retried, nothing is stored
    except Exception as exc:  # noqa: BLE001 - a broken bundle or a judge bug still gets a verdict
        log.exception("submission %s: grading failed", sub_id)
        verdict = internal_error(row.problem, f"the judge failed: {type(exc).__name__}: {exc}")
    stored = store_verdict(store, sub_id, verdict)
    if not stored:
        log.warning("submission %s: a verdict was stored by another attempt; this one is discarded", sub_id)
        return "duplicate"
    try:
        Claims(store).clear(sub_id)
    except Exception as exc:  # noqa: BLE001 - leftovers of a judged submission are never counted again
        log.warning("submission %s: could not clear its claims (%s)", sub_id, type(exc).__name__)
    log.info("submission %s: %s (attempt %s, %s)", sub_id, verdict.status.value, row.attempts, worker)
    if on_stored is not None:
        on_stored(row)
    try:
        draw_pictures(store, judge, row, verdict, target)
    except Exception:  # noqa: BLE001 - pictures are a bonus: the verdict is stored
        log.exception("submission %s: pictures failed", sub_id)
    return "stored"
