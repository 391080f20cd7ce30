"""The judge's disk caches trust nothing they did not check: expected outputs, run plans and the worker's fetched
bundle versions live only in a folder this user (or root) made and nobody else can write; a cached version's
digest is checked before use; a verdict graded with another version than its job's is never stored.

The attacks are a local user's: a folder made in advance, under the name the judge will use, in a place they can
write (the shared temp folder, a world-writable cache), holding expected outputs or a bundle of their making.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from judge.problem import private_dir
from judge.problem.loader import load_problem
from tests.support.common import PROBLEM_DIR, REPO, SUBMISSIONS, require_sandbox, unavailable
from tests.support.problems import problems_copy

SWAPPED = (SUBMISSIONS / "wrong_answer" / "sin_cos_swapped.py").read_text()
OTHER_USER = 65534  # nobody


def _foreign(path: Path, mode: int = 0o777) -> Path:
    """``path`` made as another local user would: theirs, open to all."""
    if os.geteuid() != 0:
        unavailable("needs root to make a folder another user owns")
    path.mkdir(parents=True, exist_ok=True)
    for folder, dirs, files in os.walk(path):
        for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
            os.chown(name, OTHER_USER, OTHER_USER)
    os.chmod(path, mode)
    return path


def _shared_tmp(tmp_path: Path) -> Path:
    """A folder like /tmp: root's, writable by all, sticky."""
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    return shared


@pytest.fixture(autouse=True)
def _forget_checked_folders():
    private_dir._known.clear()
    yield
    private_dir._known.clear()


# -- the private folder itself --------------------------------------------------------------------------------
def test_a_private_folder_is_made_0700_and_an_existing_one_of_ours_is_narrowed(tmp_path):
    made = private_dir.private_folder(tmp_path / "a" / "cache")
    assert stat.S_IMODE(made.stat().st_mode) == 0o700
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    os.chmod(mine, 0o755)  # what an earlier release left (umask 022): nobody else could write it
    assert private_dir.private_folder(mine) == mine and stat.S_IMODE(mine.stat().st_mode) == 0o700


def test_folders_others_made_or_can_write_are_refused(tmp_path):
    shared = _shared_tmp(tmp_path)
    theirs = _foreign(shared / "numpy-judge-bundles", 0o755)
    with pytest.raises(private_dir.UntrustedFolder, match="belongs to uid 65534"):
        private_dir.private_folder(theirs)
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    os.chmod(open_to_all, 0o777)
    with pytest.raises(private_dir.UntrustedFolder, match="writable by others"):
        private_dir.private_folder(open_to_all)
    with pytest.raises(private_dir.UntrustedFolder, match="above it is writable by others"):
        private_dir.private_folder(open_to_all / "cache")  # anyone could rename it away and put theirs
    link = tmp_path / "link"
    link.symlink_to(theirs)
    with pytest.raises(private_dir.UntrustedFolder, match="a link"):
        private_dir.private_folder(link)
    # in a shared sticky folder, the judge keeps its own folder, and refuses one made there under its name first
    own = private_dir.own_folder_in(shared)
    assert own == shared / f"uid-{os.geteuid()}" and own.stat().st_uid == os.geteuid()
    private_dir._known.clear()
    shutil.rmtree(own)
    _foreign(own, 0o755)
    with pytest.raises(private_dir.UntrustedFolder):
        private_dir.own_folder_in(shared)


def test_the_judges_cache_is_not_used_in_a_folder_another_user_made(tmp_path, monkeypatch):
    from judge.problem.cache import bundle_cache_dir, cache_dir

    theirs = _foreign(tmp_path / "cache", 0o755)
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(theirs))
    assert cache_dir() is None and bundle_cache_dir("sinusoidal-pe", "0" * 16) is None
    shared = _shared_tmp(tmp_path)
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(shared))  # a 1777 tmpfs, as compose mounts it
    assert cache_dir() == shared / f"uid-{os.geteuid()}"


def _wrong_expected_outputs(bundle, folder: Path) -> None:
    """What a local user would plant as the judge's cached expected outputs: the wrong answer's own outputs."""
    from judge.problem.inputs import build_input_file

    namespace: dict = {}
    exec(compile(SWAPPED, "sin_cos_swapped.py", "exec"), namespace)  # the test's own copy, not the judge's
    inputs = build_input_file(bundle.cases.cases)
    try:
        for index, case in enumerate(bundle.cases.cases):
            out = namespace[case.function](**inputs.cases[index].values)
            np.save(folder / f"expected-{index:04d}-{case.id}.npy", np.ascontiguousarray(out, dtype=np.float64))
    finally:
        inputs.close()


def test_judge_grade_ignores_expected_outputs_planted_in_a_cache_another_user_made(tmp_path):
    """JUDGE_CACHE_DIR names a folder another user made and filled with the wrong answer's outputs under the
    names the judge reads: the wrong answer is still graded against the reference."""
    require_sandbox()
    from judge.problem.cache import CACHE_SCHEMA

    bundle = load_problem(PROBLEM_DIR)
    cache = tmp_path / "cache"
    planted = cache / f"{bundle.id}-{bundle.digest}-np{np.__version__}-v{CACHE_SCHEMA}"
    planted.mkdir(parents=True)
    _wrong_expected_outputs(bundle, planted)
    _foreign(cache)
    (tmp_path / "wrong.py").write_text(SWAPPED)
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "JUDGE_CACHE_DIR": str(cache),
        "JUDGE_PROBLEMS_DIR": str(REPO / "problems"),
    }
    done = subprocess.run([sys.executable, "-m", "judge", "grade", "wrong.py", "--format", "json"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    verdict = json.loads(done.stdout)
    assert verdict["status"] == "wrong_answer", (verdict["status"], done.stderr[-2000:])
    assert not any(p.stat().st_uid == os.geteuid() for p in cache.rglob("*")), "the judge wrote into their folder"


# -- the worker's bundle versions -----------------------------------------------------------------------------


def _planted_bundle(into: Path, marker: Path) -> Path:
    """A bundle named like the real one whose reference is the wrong answer (and says when it runs)."""
    shutil.copytree(PROBLEM_DIR, into, ignore=shutil.ignore_patterns("__pycache__"))
    (into / "reference.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n" + SWAPPED)
    return into


def _accepted_under(store, monkeypatch, api_problems: Path) -> tuple[str, str]:
    """A submission of the wrong answer, accepted by an API whose copy is ``api_problems``: (its id, digest)."""
    from judge.service.bundle_versions import BundleVersions
    from judge.service.store import NewSubmission

    monkeypatch.setenv("JUDGE_PROBLEMS_DIR", str(api_problems))
    digest = BundleVersions(store, cache_dir=api_problems.parent / "api-cache").current("sinusoidal-pe")
    [(row, _)] = store.create([NewSubmission(platform="lms", problem="sinusoidal-pe", source=SWAPPED,
                                             problem_digest=digest)], 10)
    return row.id, digest


def test_a_bundle_planted_where_the_worker_used_to_cache_versions_is_never_used(store, tmp_path, monkeypatch, judge):
    """Another local user made ``<tmp>/numpy-judge-bundles/<problem>-<digest>/<problem>/`` before the worker
    needed that version, with the wrong answer as its reference: the worker grades with the version from the
    store, and the planted reference never runs."""
    from judge.service.bundle_versions import BundleVersions
    from judge.service.worker import process_submission

    shared = _shared_tmp(tmp_path)
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setattr(tempfile, "tempdir", None)  # tempfile reads TMPDIR again
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "worker-cache"))
    sub_id, digest = _accepted_under(store, monkeypatch,
                                      problems_copy(tmp_path / "api", "sinusoidal-pe", note="a case reviewed"))
    marker = tmp_path / "planted-reference-ran"
    _planted_bundle(shared / "numpy-judge-bundles" / f"sinusoidal-pe-{digest}" / "sinusoidal-pe", marker)
    _foreign(shared / "numpy-judge-bundles", 0o755)

    # the worker's copy is older
    monkeypatch.setenv("JUDGE_PROBLEMS_DIR", str(problems_copy(tmp_path / "worker", "sinusoidal-pe")))
    assert process_submission(store, judge, sub_id, "w1", versions=BundleVersions(store)) == "stored"
    row = store.get(sub_id)
    verdict = json.loads(row.verdict_json)
    assert (row.status, verdict["problem_digest"]) == ("wrong_answer", digest)
    assert not marker.exists(), "the planted reference ran in the worker"


def test_a_cached_version_that_does_not_give_its_digest_is_fetched_again(store, tmp_path, monkeypatch):
    from judge.service.bundle_versions import BundleVersions

    _, digest = _accepted_under(store, monkeypatch,
                                problems_copy(tmp_path / "api", "sinusoidal-pe", note="a case reviewed"))
    monkeypatch.setenv("JUDGE_PROBLEMS_DIR", str(problems_copy(tmp_path / "worker", "sinusoidal-pe")))
    cache = tmp_path / "worker-cache"
    marker = tmp_path / "stale-reference-ran"
    _planted_bundle(cache / f"sinusoidal-pe-{digest}" / "sinusoidal-pe", marker)
    os.chmod(cache, 0o700)
    root = BundleVersions(store, cache_dir=cache).root_for("sinusoidal-pe", digest)
    assert isinstance(root, Path) and load_problem(root).digest == digest
    assert "reviewed" in (root / "cases.yaml").read_text() and "open(" not in (root / "reference.py").read_text()


def test_versions_are_kept_in_a_private_folder_even_when_the_configured_one_is_not(store, tmp_path, monkeypatch):
    from judge.service.bundle_versions import BundleVersions

    _, digest = _accepted_under(store, monkeypatch,
                                problems_copy(tmp_path / "api", "sinusoidal-pe", note="a case reviewed"))
    monkeypatch.setenv("JUDGE_PROBLEMS_DIR", str(problems_copy(tmp_path / "worker", "sinusoidal-pe")))
    theirs = _foreign(tmp_path / "theirs", 0o755)
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(theirs))
    root = BundleVersions(store).root_for("sinusoidal-pe", digest)
    assert not root.is_relative_to(theirs)
    assert stat.S_IMODE(root.parent.parent.stat().st_mode) == 0o700 and root.parent.parent.stat().st_uid == os.geteuid()
    with pytest.raises(Exception, match="not an id and a digest"):
        BundleVersions(store).root_for("sinusoidal-pe", "../../etc")


def test_a_verdict_graded_with_another_version_than_the_jobs_is_never_stored(store, tmp_path, monkeypatch, judge):
    """The worker's copy is the job's version when it checks, and changes before it grades (a deploy): the
    verdict of the new version is not stored; the job's version is fetched and graded.  Without versions to
    fetch, an internal error is stored instead of the other version's verdict."""
    from judge.service.bundle_versions import BundleVersions
    from judge.service.worker import process_submission

    problems = problems_copy(tmp_path / "both", "sinusoidal-pe")
    sub_id, digest = _accepted_under(store, monkeypatch, problems)

    class DeployedMidJob(BundleVersions):
        def root_for(self, problem, job_digest, *args, **kwargs):
            found = super().root_for(problem, job_digest, *args, **kwargs)
            if not (args or kwargs):  # the first look: the deploy lands between the check and the grading
                cases = problems / "sinusoidal-pe" / "cases.yaml"
                cases.write_text(cases.read_text() + "\n# deployed while the job ran\n")
            return found

    assert (
        process_submission(store, judge, sub_id, "w1", versions=DeployedMidJob(store, tmp_path / "cache")) == "stored"
    )
    verdict = json.loads(store.get(sub_id).verdict_json)
    assert (verdict["status"], verdict["problem_digest"]) == ("wrong_answer", digest)

    from judge.service.store import NewSubmission

    [(row, _)] = store.create([NewSubmission(platform="lms", problem="sinusoidal-pe", source=SWAPPED,
                                             problem_digest=digest)], 10)  # accepted before the deploy
    assert process_submission(store, judge, row.id, "w1") == "stored"
    done = store.get(row.id)
    assert done.status == "internal_error" and "another version of the problem" in done.verdict_json
