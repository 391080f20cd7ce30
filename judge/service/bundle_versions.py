"""Bundle versions across hosts: a submission is graded with the exact bundle it was accepted under.

On many machines each host has its own copy of the problems folder, and copies drift: a case added on the
API's host before the workers' copies are updated, a rolling deploy half done.  So the version travels with
the job: the API records the bundle's digest on the submission's row (``problem_digest``) and keeps that
version's files in the store (table ``judge_bundles``, once per digest).  A worker whose own copy has another
digest does not grade with it: it **fetches** the version from the store into its own cache, checks that the
files give the same digest, and grades with them.

The cache decides verdicts (a ``reference.py`` there is the answer key, and runs in the worker), so it trusts
nothing it did not check: it lives in a folder only the worker's user (or root) can have written
(``bundles/`` in the judge's private cache, :mod:`judge.problem.private_dir`; a fresh ``mkdtemp`` folder when
there is none), never at a predictable path in the shared temp folder; a cached version's digest is checked
once per process before it is used, and a copy that does not give it is fetched again; ids and digests that
could name another folder are refused.

Why fetch rather than refuse and pass the job on: refusing needs some host that has the version, and during
a deploy there may be none (every worker older than the API), so a job could bounce forever; fetching always
ends with a verdict from the right version, and costs one read of a few tens of kB per version per host.
The store is the judge's own infrastructure (the API wrote those files from its problems folder), so a fetched
bundle is trusted exactly as the local one is; its digest is checked all the same.  The worker checks the
verdict too (:mod:`judge.service.worker`): one graded with another version than the job's is never stored.
"""

from __future__ import annotations

import gzip
import io
import logging
import os
import re
import shutil
import tarfile
import tempfile
import threading
import time
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from judge.grading.prepare import bundle_mtimes
from judge.problem.loader import load_problem
from judge.problem.locate import resolve
from judge.problem.private_dir import private_folder
from judge.service.db.schema import bundles
from judge.service.store import Store

log = logging.getLogger("judge.service")

MAX_ARCHIVE_BYTES = 64 << 20
#: A digest as the loader writes it (hex), and an id that names one folder: nothing that leads elsewhere.
_DIGEST = re.compile(r"[0-9a-f]{8,64}")
_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}")

class BundleUnavailable(Exception):
    """The version a submission was accepted under is neither on this host nor in the store."""


def _files(root: Path) -> list[Path]:
    """The bundle's files, as its digest and a grader see them: no caches, no hidden files, no links."""
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        if path.is_file() and not path.is_symlink():
            out.append(path)
    return out


def archive_of(root: Path) -> bytes:
    """A reproducible tar.gz of the bundle folder (names relative to it, no owners, no times, not even the
    gzip header's)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path in _files(root):
            data = path.read_bytes()
            info = tarfile.TarInfo(str(path.relative_to(root)))
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(buffer.getvalue(), compresslevel=6, mtime=0)


def _unpack(archive: bytes, into: Path) -> None:
    """Regular files only, each inside ``into`` (the store is ours, and a bad row must still not write
    elsewhere)."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        tar.extractall(into, members=[m for m in tar.getmembers() if m.isreg()], filter="data")


class BundleVersions:
    """The API's side (:meth:`current`: the local digest, its files kept in the store) and the worker's side
    (:meth:`root_for`: a folder holding exactly the version a submission names)."""

    def __init__(self, store: Store, cache_dir: Path | None = None) -> None:
        self.store = store
        self.cache_dir = cache_dir  #: None: ``bundles/`` in the judge's private cache
        self._private: Path | None = None                 # the checked folder, once found
        self._known: dict[Path, tuple[tuple, str]] = {}   # root -> (mtimes, digest)
        self._kept: set[str] = set()                      # digests known to be in the store
        self._verified: set[Path] = set()                 # cached versions whose digest was checked
        self._lock = threading.Lock()

    def _cache(self) -> Path:
        """The private folder fetched versions are kept in, checked (owner, mode, the folders above) once."""
        with self._lock:
            if self._private is None:
                from judge.problem.cache import cache_dir

                base = self.cache_dir
                if base is None:
                    private = cache_dir()
                    base = private / "bundles" if private is not None else None
                try:
                    if base is None:
                        raise OSError("the judge has no private cache folder (JUDGE_CACHE_DIR)")
                    self._private = private_folder(base)
                except OSError as exc:
                    self._private = Path(tempfile.mkdtemp(prefix="numpy-judge-bundles-"))
                    log.warning("bundle versions are not kept in %s (%s): this process keeps them in %s",
                                base, exc, self._private)
            return self._private

    def local_digest(self, problem: str) -> str | None:
        """The digest of this host's copy (None when this host has no such problem)."""
        try:
            root = resolve(problem)
        except Exception:  # noqa: BLE001 - an unknown problem here: the store may still have it
            return None
        stamp = bundle_mtimes(root)
        with self._lock:
            hit = self._known.get(root)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        digest = load_problem(root).digest
        with self._lock:
            self._known[root] = (stamp, digest)
        return digest

    def current(self, problem: str) -> str:
        """The API's side: the digest new submissions of ``problem`` are accepted under; its files are in the
        store before the submission is."""
        digest = self.local_digest(problem)
        if digest is None:
            raise BundleUnavailable(f"problem {problem!r} is not in this server's problems folder")
        if digest not in self._kept:
            self._keep(problem, digest)
        return digest

    def _keep(self, problem: str, digest: str) -> None:
        t = bundles
        with self.store._read() as conn:
            have = conn.execute(select(t.c.digest).where(t.c.digest == digest)).first()
        if have is None:
            archive = archive_of(resolve(problem))
            if len(archive) > MAX_ARCHIVE_BYTES:
                raise BundleUnavailable(f"problem {problem!r}: the bundle is {len(archive)} bytes packed, "
                                        f"more than {MAX_ARCHIVE_BYTES}")
            try:
                with self.store._write() as conn:
                    conn.execute(t.insert().values(digest=digest, problem=problem, archive=archive,
                                                   created_at=time.time()))
                log.info("bundle %s version %s kept in the store (%d bytes)", problem, digest, len(archive))
            except IntegrityError:  # another server kept it first
                pass
        with self._lock:
            self._kept.add(digest)

    def root_for(self, problem: str, digest: str | None, fetch: bool = False) -> Path | str:
        """The worker's side: what to grade ``problem`` with so that its digest is ``digest``.

        The problem id when this host's copy is that version (or no version was recorded: a submission from
        before versions travelled); else (or with ``fetch``: this host's copy changed while it graded) a folder
        of the version from the store.  Raises :class:`BundleUnavailable`."""
        if digest is None or (not fetch and self.local_digest(problem) == digest):
            return problem
        if not _ID.fullmatch(problem) or not _DIGEST.fullmatch(digest):
            raise BundleUnavailable(f"problem {problem!r} version {digest!r}: not an id and a digest")
        folder = self._cache() / f"{problem}-{digest}" / problem
        if (folder / "problem.yaml").is_file():
            if folder in self._verified:
                return folder
            try:
                got = load_problem(folder).digest
            except Exception as exc:  # noqa: BLE001 - a damaged copy is fetched again
                got = f"unusable ({type(exc).__name__})"
            if got == digest:
                with self._lock:
                    self._verified.add(folder)
                return folder
            log.warning("bundle %s version %s: the cached copy gives %s; fetched again", problem, digest, got)
            shutil.rmtree(folder.parent, ignore_errors=True)
        with self.store._read() as conn:
            row = conn.execute(select(bundles.c.archive).where(bundles.c.digest == digest,
                                                                bundles.c.problem == problem)).first()
        if row is None:
            raise BundleUnavailable(f"problem {problem!r} version {digest} is neither in this worker's problems "
                                    f"folder (it has {self.local_digest(problem) or 'none'}) nor in the store")
        staging = Path(tempfile.mkdtemp(prefix=f".{problem}-{digest}-", dir=self._cache()))
        try:
            _unpack(bytes(row[0]), staging / problem)
            got = load_problem(staging / problem).digest
            if got != digest:
                raise BundleUnavailable(f"problem {problem!r}: the stored version {digest} unpacks to {got}")
            try:
                os.rename(staging, folder.parent)
            except OSError:  # another thread put it there first
                pass
            with self._lock:
                self._verified.add(folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        log.info("bundle %s version %s fetched from the store (this host has %s)", problem, digest,
                 self.local_digest(problem))
        return folder
