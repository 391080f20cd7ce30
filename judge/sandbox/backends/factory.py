"""Backend factories: what ``Judge`` is given to make its sandbox backends.

``backend_factory_for(mode)`` resolves the isolation mode once (demanded, or
the best the machine can give: :func:`judge.sandbox.modes.ladder.choose`) and makes
one backend per pool slot: a zygote of that mode, or a container launcher.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge.sandbox.boundary.contract import SandboxBackend
from judge.sandbox.chain.launch import AHEAD_MODE
from judge.sandbox.modes import mode_named

if TYPE_CHECKING:
    from judge.sandbox.backends.zygote_client import ZygoteClient
    from judge.sandbox.chain.launch import Launched


@dataclass
class ModeFactory:
    """Makes backends of one isolation mode (``mode`` is what every verdict will say)."""

    mode: str
    note: str = ""
    image: str | None = None

    def __call__(self, slot: int) -> SandboxBackend:
        if mode_named(self.mode).backend == "engine":
            from judge.sandbox.backends.container_client import ContainerClient

            return ContainerClient(image=self.image)
        from judge.sandbox.backends.zygote_client import ZygoteClient

        return ZygoteClient(self.mode, f"w{os.getpid()}-{slot}-{id(self) & 0xffff:x}", self.note)


#: What ``Judge(backend=...)`` and ``--backend`` accept: the process backend (a zygote of the mode the ladder
#: gives), or a mode whose runs an engine starts (``container``), named for its backend.
def backends() -> tuple[str, ...]:
    from judge.sandbox.modes import LADDER

    return ("process", *(m for m in LADDER if mode_named(m).backend == "engine"))


def backend_factory_for(mode: str | None = None, unsafe_no_sandbox: bool = False,
                        image: str | None = None, backend: str = "process") -> ModeFactory:
    """A factory for ``mode`` (None or "auto": JUDGE_ISOLATION, else the best available), or for the mode named
    by ``backend`` when it is not the process backend; raises SandboxUnavailable when the machine cannot give it
    or JUDGE_MIN_ISOLATION refuses it, JudgeError for an unknown backend."""
    from judge.sandbox.modes.ladder import choose

    mode = _mode_of(backend, mode)
    chosen, note = choose(None if mode in (None, "auto") else mode, unsafe_no_sandbox)
    return ModeFactory(chosen, note, image)


class PrestartedFactory:
    """A factory whose first backend is launched at once, before the caller's own start-up.

    A one-shot ``judge grade`` makes this first, then imports numpy, pydantic and the
    grading code and loads the bundle while the zygote boots on the other core: the
    two start-ups overlap instead of running one after the other.  The launched
    backend goes to the first call, any later call gets a new one.  ``close()`` stops
    the launched backend if no judge took it (e.g. the bundle could not be loaded).
    The container mode launches nothing ahead (its backend starts per run).
    """

    def __init__(self, factory: ModeFactory, launched: SandboxBackend | None = None) -> None:
        self.mode = factory.mode
        self._factory = factory
        if launched is None and mode_named(factory.mode).backend == "process":
            launched = factory(0)
        self._first: SandboxBackend | None = launched

    @property
    def launched(self) -> SandboxBackend | None:
        """The backend launched ahead, while no judge has taken it (a cold start's early run uses it)."""
        return self._first

    def __call__(self, slot: int) -> SandboxBackend:
        first, self._first = self._first, None
        return first if first is not None else self._factory(slot)

    def close(self) -> None:
        first, self._first = self._first, None
        if first is not None:
            first.close()

    def __enter__(self) -> PrestartedFactory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def full_zygote_ahead(mode: str | None = None) -> ZygoteClient | None:
    """Full's zygote, launched now, if mode full is the likely outcome for ``mode`` (None/auto/full; see
    :func:`judge.sandbox.chain.launch.full_likely`); else None.  Its caller stops it if the ladder disagrees."""
    from judge.sandbox.chain.launch import full_ahead

    launched = full_ahead(mode)
    if launched is None:
        return None
    from judge.sandbox.backends.zygote_client import ZygoteClient

    return ZygoteClient.take_over(launched)  # full's note is always empty: nothing above it


def _mode_of(backend: str, mode: str | None) -> str | None:
    if backend not in backends():
        from judge.errors import JudgeError

        raise JudgeError(f"unknown sandbox backend {backend!r} (choose {' or '.join(backends())})")
    return mode if backend == "process" else backend


def prestarted_factory_for(mode: str | None = None, unsafe_no_sandbox: bool = False,
                           image: str | None = None, ahead: Launched | None = None,
                           backend: str = "process") -> PrestartedFactory:
    """:func:`backend_factory_for`, with its first backend already booting (see :class:`PrestartedFactory`).

    Where mode full is the likely outcome (:func:`judge.sandbox.chain.launch.full_likely`), its zygote is
    launched before the ladder's namespace probe runs rather than after: a cold start gains the probe's
    ~20 ms.  If the ladder then chooses another mode (or refuses), that zygote is killed unused.
    ``ahead``: full's zygote, launched even earlier by the caller (:mod:`judge.entry`)."""
    mode = _mode_of(backend, mode)
    first: ZygoteClient | None = None
    if ahead is not None:
        from judge.sandbox.backends.zygote_client import ZygoteClient

        first = ZygoteClient.take_over(ahead)
    if first is not None and mode not in (None, "auto", AHEAD_MODE):
        first.abandon()
        first = None
    if first is None and mode in (None, "auto", AHEAD_MODE):
        first = full_zygote_ahead(mode)
    try:
        factory = backend_factory_for(mode, unsafe_no_sandbox, image)
    except BaseException:
        if first is not None:
            first.abandon()
        raise
    if first is not None and factory.mode != AHEAD_MODE:
        first.abandon()
        first = None
    return PrestartedFactory(factory, first)


def stop_launched(launched: Launched | None) -> None:
    """Stop a zygote launched ahead that no grading took (killed, waited for, its group removed)."""
    if launched is not None:
        from judge.sandbox.backends.zygote_client import ZygoteClient

        ZygoteClient.take_over(launched).abandon()
