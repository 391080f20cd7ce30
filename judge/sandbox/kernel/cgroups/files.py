"""Reading and writing cgroup files, with errors that name the file."""

from __future__ import annotations

import errno
import os
import time

from judge.sandbox.kernel.cgroups.interface import CgroupError

_RMDIR_TIMEOUT = 2.0


def describe(exc: OSError) -> str:
    return f"{errno.errorcode.get(exc.errno or 0, exc.errno)}: {exc.strerror}"


def read(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError as exc:
        raise CgroupError(f"cannot read {path} ({describe(exc)})", exc.errno) from exc


def write(path: str, value: str | int) -> None:
    """Write one value in a single write(2), as cgroup files require."""
    data = str(value).encode("ascii")
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as exc:
        raise CgroupError(f"cannot open {path} for writing ({describe(exc)})", exc.errno) from exc
    try:
        os.write(fd, data)
    except OSError as exc:
        raise CgroupError(
            f"cannot write {data.decode()!r} to {path} ({describe(exc)})", exc.errno
        ) from exc
    finally:
        os.close(fd)


def read_int(path: str) -> int:
    text = read(path).strip()
    if text == "max":
        return -1
    try:
        return int(text)
    except ValueError as exc:
        raise CgroupError(f"unexpected content {text!r} in {path}") from exc


def read_key(path: str, key: str, default: int = 0) -> int:
    """Value of ``key`` in a flat-keyed file such as memory.events/pids.events.

    A missing key is ``default`` because some counters only appear once they
    are non-zero or on newer kernels.
    """
    for line in read(path).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            try:
                return int(parts[1])
            except ValueError:
                break
    return default


def read_pids(path: str) -> set[int]:
    try:
        return {int(x) for x in read(path).split()}
    except CgroupError as exc:
        if exc.errno == errno.ENOENT:  # group already removed: nothing inside
            return set()
        raise


def mkdir(path: str) -> bool:
    """Create ``path`` (one level); return False if it already existed."""
    try:
        os.mkdir(path, 0o755)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        raise CgroupError(f"cannot create cgroup directory {path} ({describe(exc)})", exc.errno) from exc


def rmdir(path: str, timeout: float = _RMDIR_TIMEOUT) -> None:
    """rmdir a cgroup, retrying EBUSY: killed tasks take a moment to detach."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno == errno.EBUSY and time.monotonic() < deadline:
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
                continue
            raise CgroupError(f"cannot remove cgroup directory {path} ({describe(exc)})", exc.errno) from exc


def validate_name(name: str) -> None:
    if not name or "/" in name or name in (".", "..") or "\0" in name:
        raise ValueError(f"invalid cgroup name {name!r}: must be one path component")
