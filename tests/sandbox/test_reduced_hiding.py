"""Mode reduced hides the bundle and the cache from the run's uid, also on a read-only root.

Exercism runs graders with ``docker run --read-only``: the ACL or chmod that hides a bundle
then fails with EROFS.  That is fine when the files' own permissions already keep the uid
out (a parent folder without 'other' r/x, as the judge image builds /opt/judge), and must be
a clear refusal otherwise.  The read-only case runs on a real read-only tmpfs in a private
mount namespace (``unshare``), not on a stand-in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from judge.sandbox.kernel.acl import denied_by, deny_uid
from judge.sandbox.kernel.uids import FIRST
from tests.support.common import unavailable

UID = FIRST + 999  # a uid no test file is owned by
REPO = str(Path(__file__).resolve().parents[2])


@pytest.fixture
def open_dir():
    """A folder every user may search (pytest's own tmp folders are 0700: everything below is denied)."""
    path = tempfile.mkdtemp(prefix="judge-hide-", dir="/tmp")
    os.chmod(path, 0o755)
    yield Path(path)
    shutil.rmtree(path, ignore_errors=True)


def _tree(root: Path) -> tuple[Path, Path]:
    for folder, mode in (("closed", 0o700), ("closed/bundle", 0o755), ("open", 0o755), ("open/bundle", 0o755)):
        (root / folder).mkdir()
        os.chmod(root / folder, mode)
    return root / "closed" / "bundle", root / "open" / "bundle"


def test_denied_by_names_the_folder_that_keeps_the_uid_out(open_dir: Path):
    closed, opened = _tree(open_dir)
    assert denied_by(str(closed), UID) == str(open_dir / "closed")
    assert denied_by(str(opened), UID) is None
    # its owner is never kept out by the mode bits: it could give itself the permission back
    assert denied_by(str(open_dir / "closed"), os.getuid()) is None


def test_an_acl_entry_denying_the_uid_counts(open_dir: Path):
    _, opened = _tree(open_dir)
    try:
        deny_uid(str(opened), UID)
    except OSError as exc:
        pytest.skip(f"no POSIX ACLs on /tmp here: {exc}")
    assert denied_by(str(opened), UID) == str(opened)
    assert denied_by(str(opened), UID + 1) is None


_ON_READ_ONLY = r'''
import json, sys
from judge.errors import SandboxUnavailable
from judge.sandbox.kernel.acl import hide_from_uid
out = {}
for name in sys.argv[2:]:
    try:
        out[name] = ["ok", hide_from_uid(name, int(sys.argv[1]))]
    except SandboxUnavailable as exc:
        out[name] = ["refused", str(exc)]
print(json.dumps(out))
'''


def test_read_only_root_is_fine_when_a_parent_denies_and_refused_clearly_otherwise(open_dir: Path):
    root = str(open_dir)
    script = (f"mount -t tmpfs -o mode=0755 judge-ro {root} && cd {root} && "
              "mkdir -p closed/bundle open/bundle && chmod 700 closed && chmod 755 closed/bundle open open/bundle && "
              f"cd / && mount -o remount,ro {root} && "
              f'exec "$0" -c "$1" {UID} {root}/closed/bundle {root}/open/bundle')
    try:
        r = subprocess.run(["unshare", "--map-root-user", "--mount", "sh", "-c", script, sys.executable,
                            _ON_READ_ONLY], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "PYTHONPATH": REPO})
    except FileNotFoundError:
        unavailable("unshare (util-linux) is not installed")
    if r.returncode != 0 and "mount" in r.stderr and "Traceback" not in r.stderr:
        unavailable(f"cannot make a private read-only tmpfs here (user and mount namespaces): {r.stderr.strip()}")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    out = json.loads(r.stdout)
    status, text = out[f"{root}/closed/bundle"]
    assert status == "ok" and "read-only file system" in text and f"{root}/closed already denies" in text, text
    status, text = out[f"{root}/open/bundle"]
    assert status == "refused", text
    assert "read-only file system" in text and f"chmod o-rwx {root}/open/bundle" in text, text
