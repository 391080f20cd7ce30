"""Starting a zygote process: its interpreter line, its environment, its socket to the judge.

A cold ``judge grade`` launches full's zygote before anything else (:mod:`judge.entry`),
so this module imports only what the launch itself needs (``json``, ``socket``,
``subprocess``): every millisecond spent before the launch delays the learner's run by
as much.  :class:`judge.sandbox.backends.zygote_client.ZygoteClient` takes the launched process over
once the judge has imported the rest.

The zygote is a fresh interpreter started with ``-E -s -S`` and an environment reduced
to a few harmless variables, so no secret of the judge's process (API tokens, database
URLs) and none of its memory (reference solutions, expected outputs) can reach a
learner's child by inheritance.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

#: The variable that demands an isolation mode (see :mod:`judge.sandbox.modes.ladder`).
ENV_MODE = "JUDGE_ISOLATION"
#: The one mode a cold start launches ahead, before the ladder has chosen (``full_likely`` guesses it): named
#: here rather than asked of :mod:`judge.sandbox.modes`, which this module runs too early to import.
AHEAD_MODE = "full"
#: The folder ``judge`` is in: this file is judge/sandbox/chain/launch.py, four levels below it.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# Variables a numerical child may legitimately need; everything else is dropped.
_PASS_THROUGH = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
#: The environment a sandbox's trusted start-up process gets (the zygote here, the container's init in
#: the container backend): nothing of the judge's, one BLAS thread (the CPU limit is per run), no .pyc.
START_ENV = {"LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
             "PYTHONDONTWRITEBYTECODE": "1"}
_BASE_ENV = {"PATH": "/usr/bin:/bin", **START_ENV}
#: The zygote starts with -S: no ``site`` (its .pth files, e.g. an editable install's finder or a CA bundle's
#: hook, cost ~40 ms of every cold start here), so it gets this judge's module path instead, and from
#: ``site`` only the builtins learner code may call (exit, quit, help, copyright, credits, license).
_BOOT = ("import sys, json; sys.path[:] = json.loads(sys.argv.pop(1)); "
         "import site; site.setquit(); site.setcopyright(); site.sethelper(); "
         "from judge.sandbox.chain.zygote_boot import boot; boot()")


class Launched:
    """A zygote process just started, and the judge's end of its socket (a plain class: ``typing`` is not
    imported yet when a cold start launches)."""

    __slots__ = ("mode", "name", "proc", "sock")

    def __init__(self, mode: str, name: str, proc: subprocess.Popen, sock: socket.socket) -> None:
        self.mode = mode
        self.name = name  #: its worker cgroup's name
        self.proc = proc
        self.sock = sock


def _module_path() -> str:
    """The zygote's sys.path (JSON): this package's root, then the judge's own path without its first entry
    (the script's folder or the working directory, nothing the zygote should import from)."""
    return json.dumps([_PACKAGE_ROOT] + [p for p in sys.path[1:] if p and os.path.isdir(p)])


def spawn(mode: str, name: str) -> Launched:
    """Start a zygote of ``mode`` whose worker cgroup is ``name``; it boots while the caller goes on."""
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    env = dict(_BASE_ENV)
    env.update({k: os.environ[k] for k in _PASS_THROUGH if k in os.environ})
    try:
        proc = subprocess.Popen(
            [sys.executable, "-E", "-s", "-S", "-c", _BOOT, _module_path(), mode, name, str(child.fileno())],
            env=env, cwd="/", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, pass_fds=(child.fileno(),), close_fds=True,
        )
    except BaseException:
        parent.close()
        raise
    finally:
        child.close()
    return Launched(mode, name, proc, parent)


def full_likely(demanded: str | None = None) -> bool:
    """Whether mode full is what the ladder will most likely choose: asked for (or auto, which tries it
    first), as root, with the memory and pids controllers writable where cgroups usually are
    (``/sys/fs/cgroup``, v1 or v2).  A guess from a few ``access`` calls, made before anything is imported:
    the ladder's real check (:func:`judge.sandbox.modes.ladder.choose`, which reads the mount table and probes the
    namespaces) runs afterwards, and a zygote launched on a wrong guess is stopped unused."""
    demanded = demanded or os.environ.get(ENV_MODE) or "auto"
    if demanded not in ("auto", AHEAD_MODE) or os.geteuid() != 0:
        return False
    root = "/sys/fs/cgroup"
    if all(os.access(os.path.join(root, c), os.W_OK) for c in ("memory", "pids")):
        return True  # v1: a hierarchy per controller (read-only in an unprivileged container)
    try:
        with open(os.path.join(root, "cgroup.controllers"), encoding="ascii") as f:
            controllers = f.read().split()
    except OSError:
        return False
    return "memory" in controllers and "pids" in controllers and os.access(root, os.W_OK)


def full_ahead(mode: str | None = None) -> Launched | None:
    """Full's zygote, launched now, if mode full is the likely outcome for ``mode`` (None/auto/full: see
    :func:`full_likely`); else None.  Its caller stops it if the ladder disagrees."""
    if not full_likely(mode):
        return None
    return spawn(AHEAD_MODE, f"w{os.getpid()}-0-ahead")


_ahead: Launched | None = None  #: full's zygote, launched by :mod:`judge.entry` before the command line


def launch_full_ahead() -> None:
    """Launch full's zygote now if full is the likely mode (see :mod:`judge.entry`); never raises: the
    regular path launches the zygote and reports any problem."""
    global _ahead
    if _ahead is None:
        try:
            _ahead = full_ahead()
        except Exception:  # noqa: BLE001
            _ahead = None


def take_ahead() -> Launched | None:
    """The zygote :func:`launch_full_ahead` launched, if nobody took it yet (its taker stops or uses it)."""
    global _ahead
    ahead, _ahead = _ahead, None
    return ahead
