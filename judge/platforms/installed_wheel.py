"""The judge's own wheel, rebuilt from the installed package, for ``judge package`` run from an installed judge.

A package carries the judge as a wheel (platforms build their images offline).  From a checkout it is built from
the source tree (:mod:`judge.platforms.assets`); a teacher who installed the judge from a wheel has no source
tree, yet has every file the wheel held: the installed distribution lists them in its ``RECORD``.  So the wheel is
written back from those files and the distribution's metadata, exactly the installed version, without fetching
the judge from anywhere.  Its requirements come from the same metadata (``Requires-Dist``).

Like the wheel built from a checkout, it carries no problem bundles (``judge/bundles/``): a package holds the one
bundle it grades, apart and root-only, and no other problem's reference.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import re
import zipfile
from pathlib import Path, PurePosixPath

from judge.errors import JudgeError

#: Metadata files a wheel's .dist-info keeps (RECORD is written anew; INSTALLER, REQUESTED, direct_url.json are
#: what pip added when it installed).
_METADATA = ("METADATA", "entry_points.txt", "top_level.txt")
_WHEEL = "Wheel-Version: 1.0\nGenerator: numpy-judge (rebuilt from the installed package)\nRoot-Is-Purelib: true\n" \
         "Tag: py3-none-any\n"
_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def _distribution(name: str) -> importlib.metadata.Distribution:
    try:
        return importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise JudgeError(f"judge package needs the judge's wheel: no source tree beside the running judge and no "
                         f"installed distribution {name!r} to rebuild it from") from None


def _package_files(dist: importlib.metadata.Distribution) -> list[PurePosixPath]:
    """The judge's own files as installed: its modules and data, no byte code, no bundles."""
    out = []
    for entry in dist.files or []:
        path = PurePosixPath(str(entry))
        if path.parts[:1] != ("judge",) or "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        if path.parts[1:2] == ("bundles",):
            continue
        out.append(path)
    return sorted(out)


def digest(name: str) -> str:
    """A short hash of the installed files and metadata: the cache key of the rebuilt wheel."""
    dist = _distribution(name)
    h = hashlib.sha256(dist.version.encode())
    for path in _package_files(dist):
        h.update(str(path).encode() + b"\0" + Path(str(dist.locate_file(path))).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _record_line(arcname: str, data: bytes) -> str:
    sha = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={sha},{len(data)}"


def rebuild(name: str, folder: Path) -> Path:
    """Write ``name``'s wheel into ``folder`` from the installed distribution; its path."""
    dist = _distribution(name)
    files = _package_files(dist)
    if not files:
        raise JudgeError(f"the installed {name} lists no files of its package (an editable install without its "
                         "source tree?): run judge package from the checkout")
    stem = f"{re.sub(r'[-_.]+', '_', dist.metadata['Name'])}-{dist.version}"
    info = f"{stem}.dist-info"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{stem}-py3-none-any.whl"
    records = []
    partial = target.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        def add(arcname: str, data: bytes) -> None:
            wheel.writestr(zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0)), data)
            records.append(_record_line(arcname, data))

        for path in files:
            add(str(path), Path(str(dist.locate_file(path))).read_bytes())
        for meta in _METADATA:
            text = dist.read_text(meta)
            if text is not None:
                add(f"{info}/{meta}", text.encode())
        add(f"{info}/WHEEL", _WHEEL.encode())
        wheel.writestr(f"{info}/RECORD", "\n".join(records + [f"{info}/RECORD,,"]) + "\n")
    partial.rename(target)
    return target


def requirements(name: str, extras: tuple[str, ...] = ()) -> list[str]:
    """The installed distribution's requirements, with those of ``extras`` (their markers dropped: the judge's
    extras name no other condition)."""
    out = []
    for line in _distribution(name).requires or []:
        requirement, _, marker = line.partition(";")
        wanted = _EXTRA.findall(marker)
        if not wanted:
            out.append(line.strip())
        elif set(wanted) & set(extras):
            out.append(requirement.strip())
    return out
