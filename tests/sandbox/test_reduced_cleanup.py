"""Mode reduced's pieces that do not need a sandbox: the clean-up, the uid claims, the ACLs, the Landlock view,
the paths to hide (leftovers a red team found one run could leave for the next).

The clean-up walks what a learner shaped: a folder chain deeper than Python's recursion limit and longer than
PATH_MAX, symlinks pointing out of the tree, a budget; the uid claims must survive a learner's planted lock files
and pick uids two containers will not share.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def scratch():
    path = tempfile.mkdtemp(prefix="judge-cleanup-", dir="/tmp")
    yield Path(path)
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _chain(top: Path, depth: int, name: str = "d") -> None:
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(os.open("bottom", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
    os.close(fd)


def test_a_folder_chain_deeper_than_recursion_and_path_max_is_removed(scratch: Path):
    import sys

    from judge.sandbox.kernel.leftovers import remove_tree

    top = scratch / "run"
    top.mkdir()
    depth = max(sys.getrecursionlimit() * 3, 5000)  # 5000 levels: a path of ~10 KiB, beyond PATH_MAX
    _chain(top, depth)
    for i in range(50):
        (top / f"file-{i}").write_text("x")
    outside = scratch / "keep-me"
    outside.write_text("not the run's")
    os.symlink(outside, top / "link-out")
    os.symlink(scratch, top / "link-up")
    removal = remove_tree(str(top))
    assert not top.exists()
    assert removal.left == 0 and removal.entries >= depth + 50
    assert outside.read_text() == "not the run's", "a symlink was followed"


def test_the_budget_stops_the_walk_and_says_what_is_left(scratch: Path):
    from judge.sandbox.kernel.leftovers import _Budget, remove_tree

    top = scratch / "wide"
    top.mkdir()
    for i in range(300):
        (top / f"f{i}").write_text("")
    removal = remove_tree(str(top), budget=_Budget(entries=100, seconds=60))
    assert removal.left > 0 and removal.entries <= 100
    assert remove_tree(str(top)).left == 0 and not top.exists()


def test_only_the_uid_s_own_entries_are_removed_from_shared_folders(scratch: Path):
    from judge.sandbox.kernel.leftovers import remove_files_of

    uid = 1 << 25
    shared = scratch / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    mine, theirs = shared / "mine", shared / "theirs"
    mine.mkdir()
    (mine / "inner").write_text("x")
    theirs.write_text("y")
    os.lchown(mine, uid, uid)
    remove_files_of(uid, [str(shared)])
    assert not mine.exists() and theirs.exists()


def test_uid_claims_are_random_high_and_locked_where_only_root_can_enter():
    if os.geteuid() != 0:
        pytest.skip("uid claims are made by root (mode reduced)")
    from judge.sandbox.kernel import uids

    a, b = uids.claim(), uids.claim()
    try:
        assert a.uid != b.uid and a.uid >= uids.FIRST and b.uid >= uids.FIRST
        folder = os.path.dirname(a.path)
        st = os.lstat(folder)
        assert st.st_uid == 0 and stat.S_IMODE(st.st_mode) & 0o077 == 0
        assert uids.held_elsewhere(a.uid) and uids.held_elsewhere(1000), "uids outside the range are never stale"
    finally:
        a.release()
        b.release()
    assert not uids.held_elsewhere(a.uid)


def test_a_planted_lock_folder_is_skipped(monkeypatch, scratch: Path):
    if os.geteuid() != 0:
        pytest.skip("uid claims are made by root (mode reduced)")
    from judge.sandbox.kernel import uids

    planted = scratch / "planted"
    planted.mkdir()
    os.chmod(planted, 0o777)  # what a learner's uid could make in a shared folder
    mine = scratch / "root-only"
    monkeypatch.setattr(uids, "LOCK_FOLDERS", (str(planted), str(scratch / "link"), str(mine)))
    os.symlink(planted, scratch / "link")
    assert uids.lock_folder() == str(mine)


def test_stale_lock_files_are_pruned(monkeypatch, scratch: Path):
    if os.geteuid() != 0:
        pytest.skip("uid claims are made by root (mode reduced)")
    from judge.sandbox.kernel import uids

    folder = scratch / "locks"
    monkeypatch.setattr(uids, "LOCK_FOLDERS", (str(folder),))
    held = uids.claim()
    os.makedirs(folder, exist_ok=True)
    (folder / "123456789.lock").write_text("")  # a zygote killed before it removed its lock
    other = uids.claim()
    try:
        assert sorted(os.listdir(folder)) == sorted([os.path.basename(held.path), os.path.basename(other.path)])
    finally:
        held.release()
        other.release()


def test_acl_entries_close_a_folder_to_writes_and_are_given_back(scratch: Path):
    from judge.sandbox.kernel import acl

    uid = (1 << 25) + 7
    folder = scratch / "open"
    folder.mkdir()
    os.chmod(folder, 0o1777)
    try:
        acl.set_uid_permissions(str(folder), uid, 0o1)
    except OSError as exc:
        pytest.skip(f"no POSIX ACLs here: {exc}")
    assert acl.permissions(str(folder), uid) == 0o1
    assert acl.permissions(str(folder), uid + 1) == 0o7  # everyone else as before
    acl.allow_uid_again(str(folder), uid)
    assert acl.permissions(str(folder), uid) == 0o7


def test_landlock_view_masks_site_packages_but_keeps_the_allowed_packages():
    from judge.sandbox.kernel.landlock import FileView
    from judge.sandbox.kernel.rootfs import RootPlan

    plan = RootPlan.for_this_interpreter()
    paths = {rule.path for rule in FileView.for_root_plan(plan).rules}
    for site in plan.site_dirs:
        assert site not in paths and not any(p.startswith(site + os.sep) and p not in plan.packages
                                             and not any(p.startswith(k) for k in plan.packages) for p in paths)
    assert all(pkg in paths or any(pkg.startswith(p + os.sep) for p in paths) for pkg in plan.packages)
    assert "/dev/null" in paths


def test_private_paths_name_the_bundle_its_problems_folder_the_cache_and_a_checkout_s_history(tmp_path: Path):
    from judge.problem.cache import cache_root
    from judge.problem.private_paths import private_paths

    checkout = tmp_path / "course"
    for folder in (".git/objects", "problems/a", "problems/b", "submissions/a"):
        (checkout / folder).mkdir(parents=True)
    for bundle in ("a", "b"):
        (checkout / "problems" / bundle / "problem.yaml").write_text("id: x\n")
    paths = private_paths(checkout / "problems" / "a")
    for expected in ("problems/a", "problems", ".git", "submissions"):
        assert str((checkout / expected).resolve()) in paths, (expected, paths)
    assert str(cache_root()) in paths or not cache_root().exists()
